import { useApp } from '../useApp';
import { useReach } from './reach';
import { baseName, counted, when } from './format';
import type { RecentEntry } from './recent';

const WORST: Record<RecentEntry['worst'], string> = { error: 'errors', warning: 'warnings', info: 'info only', none: 'no findings' };

/** Sessions opened before in this browser profile or app (kept in localStorage: paths and counts, never content). */
export function RecentList(): React.JSX.Element | null {
  const recent = useApp((s) => s.recent);
  const openPath = useApp((s) => s.openPath);
  const forgetRecent = useApp((s) => s.forgetRecent);
  const reach = useReach();
  if (recent.length === 0) return null;
  return (
    <section className="recent" aria-labelledby="recent-title">
      <h2 id="recent-title">
        Recent <span className="muted">({recent.length})</span>
      </h2>
      <ul className="recent-list">
        {recent.map((r) => (
          <li key={r.path}>
            <button type="button" className="recent-open" title={r.path} onClick={() => void openPath(r.path)} {...reach(r.path)}>
              <span className="name">{baseName(r.path)}</span>
              <span className="tag">{r.format}</span>
              <span className="muted small">
                {counted(r.requests, 'request')} · {counted(r.compactions, 'compaction')} ·{' '}
                <span className={`sev-${r.worst}`}>{WORST[r.worst]}</span> · opened {when(r.openedAt)}
              </span>
              <span className="muted small path">{r.path}</span>
            </button>
            <button
              type="button"
              className="link forget"
              aria-label={`Forget ${r.path}`}
              title="Forget (the file is not touched)"
              onClick={() => forgetRecent(r.path)}
            >
              ×
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
