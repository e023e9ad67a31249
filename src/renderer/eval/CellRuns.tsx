import type { EvalFact, EvalMatrixCell, EvalRunRow } from '../../shared/api/contract';
import { ms, num, usd } from '../compare/format';
import { baseName, pct1, targetText } from './format';
import { cellKey, cellMisses, cellRegressions, cellsOf } from './matrix';
import type { CellRef, EvalResults } from './store';
import { useEval } from './useEval';

/**
 * A matrix cell drilled into: its figures in full (failures, recovery, structural rules, spend,
 * latency), its misses and regressions in words, the facts its runs missed most, and the list of
 * its runs — each of which opens the compare view of that run beside the original compaction.
 */

export const runsOfCell = (runs: readonly EvalRunRow[], c: CellRef): EvalRunRow[] =>
  runs.filter((r) => r.strategy === c.strategy && r.model === c.model && (c.trace === null || r.trace === c.trace));

function Figures({ c }: { c: EvalMatrixCell }): React.JSX.Element {
  const rules = Object.entries(c.structural.rules);
  return (
    <dl className="ev-figures">
      <dt>clean runs</dt>
      <dd>
        {c.runs}
        {c.fallbacks > 0 ? ` (${c.fallbacks} loud fallback${c.fallbacks === 1 ? '' : 's'})` : ''}
      </dd>
      <dt>failures</dt>
      <dd>
        {c.failures.count}/{c.failures.of}
      </dd>
      {c.recovery.of > 0 && (
        <>
          <dt>recovery</dt>
          <dd>
            {c.recovery.committed}/{c.recovery.of} under injected faults
          </dd>
        </>
      )}
      <dt>diagnostics</dt>
      <dd>
        {c.structural.error} errors · {c.structural.warning} warnings · {c.structural.info} info
        {rules.length > 0 ? ` (${rules.map(([r, n]) => `${r} ×${n}`).join(', ')})` : ''}
      </dd>
      <dt>spend</dt>
      <dd>
        {num(c.spend.requests)} requests · {num(c.spend.input)} in / {num(c.spend.output)} out tokens · {usd(c.spend.costUsd)} (
        {usd(c.spend.costPerRun)}/run)
      </dd>
      <dt>latency</dt>
      <dd>
        p50 {ms(c.latency.p50)} · p95 {ms(c.latency.p95)} over {c.latency.calls} calls{c.mock ? ' (mock: local timing)' : ''}
      </dd>
      {c.judge && (
        <>
          <dt>judge</dt>
          <dd>{pct1(c.judge.mean)} — a model&apos;s opinion, not ground truth</dd>
        </>
      )}
    </dl>
  );
}

function MissedFacts({ c, facts }: { c: EvalMatrixCell; facts: readonly EvalFact[] }): React.JSX.Element | null {
  const entries = Object.entries(c.missed).sort((a, b) => b[1] - a[1]);
  if (entries.length === 0) return null;
  const byKey = new Map(facts.map((f) => [`${f.trace}::${f.id}`, f]));
  return (
    <details className="ev-words">
      <summary>Facts missed ({entries.length})</summary>
      <ul className="ev-list">
        {entries.map(([k, n]) => {
          const f = byKey.get(k);
          const id = k.slice(k.lastIndexOf('::') + 2);
          return (
            <li key={k}>
              <strong>{n}×</strong> <code>{id}</code>
              {f ? (
                <>
                  {' '}
                  ({f.category.replace('_', ' ')}): {f.text}
                </>
              ) : null}
            </li>
          );
        })}
      </ul>
    </details>
  );
}

export function CellRuns({ results, cell }: { results: EvalResults; cell: CellRef }): React.JSX.Element | null {
  const openRun = useEval((s) => s.openRun);
  const detailRun = useEval((s) => s.detailRun);
  const selectCell = useEval((s) => s.selectCell);
  const c = cellsOf(results.aggregate.cells, cell.trace).get(cellKey(cell.strategy, cell.model));
  if (!c) return null;
  const runs = runsOfCell(results.runs, cell);
  const words = [
    ...cellMisses(results.misses, c).map((m) => `❌ ${m.words}`),
    ...cellRegressions(results.comparison, c).map((d) => `▼ ${d.words ?? ''}`),
  ];
  return (
    <section className="ev-cell-runs" aria-label="Runs of the cell">
      <div className="rr-section-head">
        <h3>
          {cell.strategy} × {cell.model} <span className="muted">{cell.trace === null ? 'all traces' : baseName(cell.trace)}</span>
        </h3>
        <button type="button" onClick={() => selectCell(null)}>
          Close
        </button>
      </div>
      <Figures c={c} />
      {words.length > 0 && (
        <ul className="ev-list">
          {words.map((w, i) => (
            <li key={i}>{w}</li>
          ))}
        </ul>
      )}
      <MissedFacts c={c} facts={results.facts} />
      <table className="rr-table">
        <thead>
          <tr>
            <th scope="col">trace · target</th>
            <th scope="col">repeat</th>
            <th scope="col">fault</th>
            <th scope="col">outcome</th>
            <th scope="col" className="num">
              recall
            </th>
            <th scope="col" className="num">
              stale rej.
            </th>
            <th scope="col" className="num">
              provenance
            </th>
            <th scope="col" className="num">
              errors
            </th>
            <th scope="col" className="num">
              requests
            </th>
            <th scope="col" className="num">
              wall
            </th>
            <th scope="col">
              <span className="sr-only">compare</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr key={r.runId} className={detailRun === r.runId ? 'ev-run-selected' : ''}>
              <td title={r.trace}>
                {baseName(r.trace)} · {targetText(r.target)}
              </td>
              <td className="num">
                #{r.repeat + 1}/{r.of}
              </td>
              <td>{r.fault ?? '—'}</td>
              <td>
                <span className={`rr-outcome outcome-${r.outcome}`}>{r.outcome}</span>
                {r.mock && <span className="tag rr-mock">mock</span>}
                {r.error && <div className="small rr-bad">{r.error}</div>}
              </td>
              <td className="num">{pct1(r.recall)}</td>
              <td className="num">{pct1(r.staleRejection)}</td>
              <td className="num">{pct1(r.provenance)}</td>
              <td className="num">{r.structuralErrors}</td>
              <td className="num">{r.totals.requests}</td>
              <td className="num">{ms(r.totals.wallMs)}</td>
              <td>
                <button
                  type="button"
                  aria-label={`Compare run #${r.repeat + 1} of ${r.strategy} × ${r.model}${r.fault ? ` (${r.fault})` : ''} with the original`}
                  onClick={() => void openRun(r.runId)}
                >
                  Compare
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {runs.length === 0 && <p className="muted small">No run rows for this cell (the answer was cut to the newest runs).</p>}
    </section>
  );
}
