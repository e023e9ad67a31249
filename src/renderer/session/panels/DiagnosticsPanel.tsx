import { useMemo, useState } from 'react';
import type { DiagnosticRow } from '../../../shared/api/contract';
import { useSession } from '../context';
import { requestAtOrAfter } from '../stepping';

const SEVERITIES = ['error', 'warning', 'info'] as const;

/** Every finding on the branch, filterable by severity; each jumps to the event it cites first. */
export function DiagnosticsPanel(): React.JSX.Element {
  const diagnostics = useSession((s) => s.diagnostics);
  const requests = useSession((s) => s.requests);
  const jumpToSeq = useSession((s) => s.jumpToSeq);
  const [shown, setShown] = useState<ReadonlySet<DiagnosticRow['severity']>>(new Set(SEVERITIES));
  const rows = useMemo(() => diagnostics.filter((d) => shown.has(d.severity)), [diagnostics, shown]);
  const partial = useSession((s) => s.info?.partial);
  if (partial)
    return (
      <p className="muted pad">
        {partial.phase === 'failed'
          ? 'Findings were not worked out: the rest of the session could not be read.'
          : 'Findings are withheld until the whole session is read: a rule may find what the lines not yet read settle.'}
      </p>
    );
  if (diagnostics.length === 0) return <p className="muted pad">No diagnostics on this branch.</p>;
  return (
    <div className="sv-diagnostics">
      <div className="sv-filter">
        {SEVERITIES.map((s) => (
          <label key={s}>
            <input
              type="checkbox"
              checked={shown.has(s)}
              onChange={() =>
                setShown((prev) => {
                  const next = new Set(prev);
                  if (next.has(s)) next.delete(s);
                  else next.add(s);
                  return next;
                })
              }
            />{' '}
            <span className={`sev-${s}`}>{s}</span> {diagnostics.filter((d) => d.severity === s).length}
          </label>
        ))}
      </div>
      <ul className="sv-list">
        {rows.map((d, i) => {
          const seq = d.seqs[0];
          const at = seq === undefined ? -1 : requestAtOrAfter(requests, seq);
          return (
            <li key={`${d.rule}-${i}`} className={`sv-diag sev-${d.severity}`}>
              <span className={`sev-${d.severity}`}>{d.severity}</span> <code>{d.rule}</code> {d.message}
              <span className="muted small">{d.file ? ` ${d.file}:${d.line ?? '?'}` : ''}</span>
              {seq !== undefined && (
                <button type="button" className="link" onClick={() => void jumpToSeq(seq, at >= 0 ? at : undefined)}>
                  jump to event {seq}
                  {at >= 0 ? ` (request #${at})` : ''}
                </button>
              )}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
