import { useEffect, useRef } from 'react';
import type { EvalFact } from '../../shared/api/contract';
import { CompareView } from '../compare/CompareView';
import '../rerun/rerun.css';
import { baseName, pct1, targetText } from './format';
import type { EvalDetail } from './store';
import { useEval } from './useEval';

/**
 * One run of the matrix beside the compaction it re-ran: the compare view of the re-run panel
 * (../compare/CompareView.tsx) with the original first, and the run's score — which facts of each
 * category it kept or missed, in the words of the facts file. Keyboard focus moves here when it opens.
 */

const CATEGORIES: readonly { readonly id: string; readonly label: string; readonly missed: string }[] = [
  { id: 'constraint', label: 'constraints', missed: 'missed' },
  { id: 'decision', label: 'decisions', missed: 'missed' },
  { id: 'open_work', label: 'open work', missed: 'missed' },
  { id: 'evidence', label: 'evidence', missed: 'missed' },
  { id: 'stale', label: 'stale facts', missed: 'asserted as current' },
];

function Score({ detail, facts }: { detail: EvalDetail; facts: readonly EvalFact[] }): React.JSX.Element {
  const text = (id: string): string | undefined => facts.find((f) => f.trace === detail.run.trace && f.id === id)?.text;
  return (
    <table className="rr-table ev-score">
      <thead>
        <tr>
          <th scope="col">facts</th>
          <th scope="col" className="num">
            kept
          </th>
          <th scope="col">missed</th>
        </tr>
      </thead>
      <tbody>
        {CATEGORIES.map((c) => {
          const b = detail.facts[c.id];
          if (!b || b.total === 0)
            return (
              <tr key={c.id}>
                <th scope="row">{c.label}</th>
                <td className="num muted">none</td>
                <td className="muted">not scored (no confirmed fact)</td>
              </tr>
            );
          return (
            <tr key={c.id}>
              <th scope="row">{c.label}</th>
              <td className="num">
                {b.ok.length}/{b.total}
              </td>
              <td>
                {b.missed.length === 0 ? (
                  <span className="cmp-good">—</span>
                ) : (
                  <details>
                    <summary>
                      {b.missed.length} {c.missed}
                    </summary>
                    <ul className="ev-list">
                      {b.missed.map((id) => (
                        <li key={id}>
                          <code>{id}</code>
                          {text(id) ? ` ${text(id) ?? ''}` : ''}
                        </li>
                      ))}
                    </ul>
                  </details>
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

export function RunDetail(): React.JSX.Element | null {
  const detail = useEval((s) => s.detail);
  const runId = useEval((s) => s.detailRun);
  const error = useEval((s) => s.detailError);
  const facts = useEval((s) => s.results?.facts ?? []);
  const closeRun = useEval((s) => s.closeRun);
  const heading = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    if (detail) heading.current?.focus();
  }, [detail]);

  if (runId === null) return null;
  if (error)
    return (
      <p className="rr-error" role="alert">
        {error.code}: {error.message}
      </p>
    );
  if (!detail)
    return (
      <p className="muted" role="status">
        Loading the run and the original compaction…
      </p>
    );
  const r = detail.run;
  return (
    <section className="ev-detail" aria-label="Run compared with the original">
      <div className="rr-section-head">
        <h3 ref={heading} tabIndex={-1}>
          {r.strategy} × {r.model}
          {r.fault ? ` (${r.fault})` : ''} #{r.repeat + 1}{' '}
          <span className="muted">
            {baseName(detail.tracePath)} · {targetText(r.target)}
          </span>
        </h3>
        <button type="button" onClick={closeRun}>
          Back to the runs
        </button>
      </div>
      <p className="small">
        <span className={`rr-outcome outcome-${r.outcome}`}>{r.outcome}</span>
        {r.mock && <span className="tag rr-mock">mock</span>}
        {' · '}recall {pct1(r.recall)} · stale rejection {pct1(r.staleRejection)} · provenance {pct1(r.provenance)} · {r.structuralErrors}{' '}
        error-level diagnostics
        {detail.provenance.without.length > 0 && <> · matched without provenance: {detail.provenance.without.join(', ')}</>}
      </p>
      <Score detail={detail} facts={facts} />
      <CompareView result={detail} />
    </section>
  );
}
