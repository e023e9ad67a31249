import { ThemeToggle } from '../theme/ThemeToggle';
import { baseName } from '../library/format';
import { useApp } from '../useApp';

/**
 * The app bar: the Library tab, one tab per open session (each with its close button), the theme
 * toggle and the shortcuts overlay. Tabs are buttons in a tablist; `[` and `]` move between them.
 */
export function Header(): React.JSX.Element {
  const tabs = useApp((s) => s.tabs);
  const active = useApp((s) => s.active);
  const activate = useApp((s) => s.activate);
  const closeTab = useApp((s) => s.closeTab);
  const setHelp = useApp((s) => s.setHelp);

  return (
    <header className="header app-bar">
      <h1>Palimpsest</h1>
      <nav className="tabs" role="tablist" aria-label="Library and open sessions">
        <button
          type="button"
          role="tab"
          id="tab-library"
          aria-selected={active === null}
          aria-controls="tabpanel"
          className={`tab ${active === null ? 'active' : ''}`}
          onClick={() => activate(null)}
        >
          Library
        </button>
        {tabs.map((t) => (
          <span key={t.sessionId} className={`tab-wrap ${active === t.sessionId ? 'active' : ''}`}>
            <button
              type="button"
              role="tab"
              id={`tab-${t.sessionId}`}
              aria-selected={active === t.sessionId}
              aria-controls="tabpanel"
              className={`tab ${active === t.sessionId ? 'active' : ''}`}
              title={`${t.path} (${t.summary.format})`}
              onClick={() => activate(t.sessionId)}
            >
              {baseName(t.path)} <span className="tag">{t.summary.format}</span>
            </button>
            <button
              type="button"
              className="tab-close"
              aria-label={`Close ${baseName(t.path)}`}
              title="Close (Alt+W)"
              onClick={() => closeTab(t.sessionId)}
            >
              ×
            </button>
          </span>
        ))}
      </nav>
      <div className="app-bar-end">
        <ThemeToggle />
        <button type="button" onClick={() => setHelp(true)} aria-label="Keyboard shortcuts" title="Keyboard shortcuts (?)">
          ?
        </button>
      </div>
    </header>
  );
}
