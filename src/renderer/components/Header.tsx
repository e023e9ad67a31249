import { num } from '../preview';
import { useApp } from '../useApp';

export function Header(): React.JSX.Element {
  const session = useApp((s) => s.session);
  const paths = useApp((s) => s.paths);
  const branch = useApp((s) => s.branch);
  const compactions = useApp((s) => s.compactions);
  const diagnostics = useApp((s) => s.diagnostics);
  const fullText = useApp((s) => s.fullText);
  const open = useApp((s) => s.open);
  const setBranch = useApp((s) => s.setBranch);
  const setFullText = useApp((s) => s.setFullText);

  const c = session?.counts;
  return (
    <header className="header">
      <div className="title-row">
        <h1>Palimpsest</h1>
        {paths.length > 1 ? (
          <select aria-label="Session" value={session?.path ?? ''} onChange={(e) => void open(e.target.value)}>
            {paths.map((p) => <option key={p} value={p}>{p}</option>)}
          </select>
        ) : (
          <span className="path" title={session?.path}>{session?.path ?? paths[0] ?? ''}</span>
        )}
        {session && <span className="tag">{session.format}</span>}
        {session && session.branches.length > 1 && (
          <label className="branch">
            branch{' '}
            <select value={branch ?? ''} onChange={(e) => void setBranch(e.target.value)}>
              {session.branches.map((b) => <option key={b.name} value={b.name}>{b.name} ({b.events} events)</option>)}
            </select>
          </label>
        )}
        {session && session.branches.length === 1 && <span className="muted">branch {branch}</span>}
        <label className="toggle" title="Re-read long texts from the source file instead of showing previews">
          <input type="checkbox" checked={fullText} onChange={(e) => setFullText(e.target.checked)} /> full text
        </label>
      </div>
      {c && (
        <div className="counts">
          <span>{num(c.events)} events</span>
          <span>{num(c.items)} items</span>
          <span>{num(c.requests)} requests</span>
          <details>
            <summary>{num(compactions.length)} compaction{compactions.length === 1 ? '' : 's'}</summary>
            <ul className="drop">
              {compactions.length === 0 && <li className="muted">none</li>}
              {compactions.map((k) => (
                <li key={k.id}>
                  <strong>{k.id}</strong> {k.trigger} · {k.outcome ?? 'open (no end recorded)'} · pre {num(k.preTokens)} → post {num(k.postTokens)} tokens
                  {k.strategy ? ` · ${k.strategy}` : ''} · seqs {k.startSeq ?? '?'}–{k.endSeq ?? '?'}
                  {k.error ? <span className="sev-error"> · {k.error.message}</span> : null}
                </li>
              ))}
            </ul>
          </details>
          <details>
            <summary>
              diagnostics: <span className={c.diagnostics.error > 0 ? 'sev-error' : ''}>{c.diagnostics.error} errors</span>,{' '}
              <span className={c.diagnostics.warning > 0 ? 'sev-warning' : ''}>{c.diagnostics.warning} warnings</span>, {c.diagnostics.info} info
            </summary>
            <ul className="drop">
              {diagnostics.length === 0 && <li className="muted">none</li>}
              {diagnostics.map((d, i) => (
                <li key={i}>
                  <span className={`sev-${d.severity}`}>{d.severity}</span> <code>{d.rule}</code>{' '}
                  <span className="muted">{d.file ?? ''}{d.line ? `:${d.line}` : ''}</span> {d.message}
                </li>
              ))}
            </ul>
          </details>
        </div>
      )}
    </header>
  );
}
