import { useEffect } from 'react';
import { focusSoon, FOCUS_IDS } from '../app/useShortcuts';
import { isTyping } from '../app/shortcuts';
import { useApp } from '../useApp';
import { baseName } from './format';
import { EverywhereSearch } from './EverywhereSearch';
import { OpenBar } from './OpenBar';
import { useReach } from './reach';
import { RecentList } from './RecentList';
import { SessionList } from './SessionList';

function StartedWith(): React.JSX.Element | null {
  const paths = useApp((s) => s.initialPaths);
  const tabs = useApp((s) => s.tabs);
  const openPath = useApp((s) => s.openPath);
  const reach = useReach();
  const waiting = paths.filter((p) => !tabs.some((t) => t.path === p));
  if (waiting.length === 0) return null;
  return (
    <section aria-labelledby="started-title">
      <h2 id="started-title">Started with</h2>
      <ul className="plain-list">
        {waiting.map((p) => (
          <li key={p}>
            <button type="button" className="link" title={p} onClick={() => void openPath(p)} {...reach(p)}>
              {baseName(p)}
            </button>{' '}
            <span className="muted small">{p}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Roots(): React.JSX.Element | null {
  const discovery = useApp((s) => s.discovery);
  if (!discovery) return null;
  return (
    <details className="roots">
      <summary>
        Where Palimpsest looked ({discovery.roots.length} folders
        {discovery.problems.length > 0 ? `, ${discovery.problems.length} problems` : ''})
      </summary>
      <ul>
        {discovery.roots.map((r) => (
          <li key={`${r.harness ?? 'folder'}:${r.path}`}>
            <span className="tag">{r.harness ?? 'folder'}</span> <code>{r.path}</code>{' '}
            <span className="muted">
              ({r.source}
              {r.exists ? `, ${r.sessions} sessions` : ', does not exist'})
            </span>
          </li>
        ))}
      </ul>
      {discovery.problems.length > 0 && (
        <ul className="problems">
          {discovery.problems.map((p, i) => (
            <li key={i} className="sev-warning">
              {p}
            </li>
          ))}
        </ul>
      )}
    </details>
  );
}

/** The library: open by dialog or path, recent sessions, and the sessions found on this machine. */
export function LibraryView(): React.JSX.Element {
  const notice = useApp((s) => s.notice);
  const setNotice = useApp((s) => s.setNotice);
  const openError = useApp((s) => s.openError);
  const dismissOpenError = useApp((s) => s.dismissOpenError);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.key !== '/' || e.altKey || e.ctrlKey || e.metaKey || isTyping(e.target)) return;
      e.preventDefault();
      focusSoon(FOCUS_IDS.filter);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  return (
    <div className="library">
      <OpenBar />
      {openError && (
        <div className="notice error" role="alert">
          <strong>{openError.error.code}</strong> {openError.error.message}{' '}
          <button type="button" className="link" onClick={dismissOpenError}>
            dismiss
          </button>
        </div>
      )}
      {notice && (
        <div className={`notice ${notice.kind === 'error' ? 'error' : ''}`} role={notice.kind === 'error' ? 'alert' : 'status'}>
          {notice.text}{' '}
          <button type="button" className="link" onClick={() => setNotice(null)}>
            dismiss
          </button>
        </div>
      )}
      <EverywhereSearch />
      <div className="library-columns">
        <div className="library-side">
          <StartedWith />
          <RecentList />
          <Roots />
        </div>
        <SessionList />
      </div>
    </div>
  );
}
