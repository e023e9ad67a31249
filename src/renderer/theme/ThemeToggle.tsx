import { useApp } from '../useApp';

/** Switches between light and dark; the choice is remembered. Until one is made, the system's theme is followed. */
export function ThemeToggle(): React.JSX.Element {
  const theme = useApp((s) => s.theme);
  const pref = useApp((s) => s.themePref);
  const toggle = useApp((s) => s.toggleTheme);
  const setPref = useApp((s) => s.setThemePref);
  const next = theme === 'dark' ? 'light' : 'dark';
  return (
    <span className="theme-toggle">
      <button
        type="button"
        onClick={toggle}
        aria-label={`Switch to the ${next} theme`}
        title={`Switch to the ${next} theme (Alt+T)`}
        data-theme-state={theme}
      >
        {theme === 'dark' ? '☾ dark' : '☀ light'}
      </button>
      {pref !== 'system' && (
        <button type="button" className="link small" onClick={() => setPref('system')} title="Follow the system's light or dark setting">
          use system
        </button>
      )}
    </span>
  );
}
