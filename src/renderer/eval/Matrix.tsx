import type { EvalComparison, EvalMatrixCell, EvalMiss } from '../../shared/api/contract';
import { baseName } from './format';
import {
  cellDelta,
  cellKey,
  cellMisses,
  cellRegressions,
  cellValue,
  deltaText,
  formatValue,
  grid,
  metricDef,
  METRICS,
  onlyCurrent,
  spreadText,
  type MetricId,
} from './matrix';
import type { EvalResults } from './store';
import { useEval } from './useEval';

/**
 * The eval matrix: strategies (rows) × models (columns) for the chosen metric, over all traces or
 * one. Each cell: the mean, its spread over repeats, the mock flag, ❌ when it missed a threshold
 * on this metric, ▼ when it regressed against the baseline, and the change since the baseline.
 * A cell is a button: it opens the list of its runs (./CellRuns.tsx).
 */

function Cell({
  c,
  metric,
  misses,
  cmp,
  selected,
  onPick,
}: {
  c: EvalMatrixCell;
  metric: MetricId;
  misses: readonly EvalMiss[] | null;
  cmp: EvalComparison | null;
  selected: boolean;
  onPick: () => void;
}): React.JSX.Element {
  const v = cellValue(c, metric);
  const missed = cellMisses(misses, c, metric);
  const regressed = cellRegressions(cmp, c, metric);
  const delta = cellDelta(cmp, c, metric);
  const dText = delta ? deltaText(metric, delta.delta) : null;
  const spread = spreadText(v.spread);
  const isNew = onlyCurrent(cmp, c);
  const words = [...missed.map((m) => m.words), ...regressed.map((d) => d.words ?? '')].filter((w) => w !== '');
  const label = `${c.strategy} × ${c.model}: ${formatValue(metric, v.value)}${missed.length > 0 ? ', missed a threshold' : ''}${regressed.length > 0 ? ', regressed' : ''}`;
  return (
    <td className={`ev-cell-td${missed.length > 0 ? ' missed' : ''}${regressed.length > 0 ? ' regressed' : ''}`}>
      <button
        type="button"
        className={`ev-cell${selected ? ' selected' : ''}`}
        aria-pressed={selected}
        aria-label={label}
        title={words.join('\n') || undefined}
        onClick={onPick}
      >
        <span className="ev-value">
          {missed.length > 0 && (
            <span className="ev-miss" aria-hidden="true">
              ❌{' '}
            </span>
          )}
          {formatValue(metric, v.value)}
          {regressed.length > 0 && (
            <span className="ev-regression" aria-hidden="true">
              {' '}
              ▼
            </span>
          )}
        </span>
        {spread && <span className="ev-spread">{spread}</span>}
        <span className="ev-flags">
          {c.mock && <span className="tag rr-mock">mock</span>}
          {c.failures.count > 0 && (
            <span className="tag ev-failed">
              {c.failures.count}/{c.failures.of} failed
            </span>
          )}
          {isNew && cmp !== null && <span className="tag">not in baseline</span>}
          {dText !== null && <span className={`ev-delta${regressed.length > 0 ? ' bad' : ''}`}>{dText} vs baseline</span>}
        </span>
      </button>
    </td>
  );
}

function Controls({ results }: { results: EvalResults }): React.JSX.Element {
  const metric = useEval((s) => s.metric);
  const trace = useEval((s) => s.trace);
  const diffOnly = useEval((s) => s.diffOnly);
  const setMetric = useEval((s) => s.setMetric);
  const setTrace = useEval((s) => s.setTrace);
  const setDiffOnly = useEval((s) => s.setDiffOnly);
  const traces = results.aggregate.traces;
  return (
    <div className="ev-controls">
      <label className="rr-field">
        <span>Metric</span>
        <select value={metric} onChange={(e) => setMetric(e.target.value as MetricId)}>
          {METRICS.map((m) => (
            <option key={m.id} value={m.id}>
              {m.label}
            </option>
          ))}
        </select>
      </label>
      <label className="rr-field">
        <span>Trace</span>
        <select value={trace ?? ''} onChange={(e) => setTrace(e.target.value === '' ? null : e.target.value)}>
          <option value="">All traces ({traces.length})</option>
          {traces.map((t) => (
            <option key={t} value={t} title={t}>
              {baseName(t)}
            </option>
          ))}
        </select>
      </label>
      <label className="rr-radio" title={results.comparison ? undefined : 'Give a baseline results file to compare with'}>
        <input type="checkbox" checked={diffOnly} disabled={results.comparison === null} onChange={(e) => setDiffOnly(e.target.checked)} />
        Only cells different from the baseline
      </label>
    </div>
  );
}

function Verdict({ results }: { results: EvalResults }): React.JSX.Element {
  const misses = results.misses;
  const regressions = results.comparison?.regressions.filter((d) => d.trace === null) ?? [];
  const parts: string[] = [];
  if (misses === null) parts.push('thresholds unknown (spec not known)');
  else if (!results.spec?.thresholds) parts.push('the spec sets no thresholds');
  else parts.push(misses.length === 0 ? 'every threshold met' : `${misses.length} threshold miss${misses.length === 1 ? '' : 'es'}`);
  if (results.comparison)
    parts.push(
      regressions.length === 0
        ? 'no regression against the baseline'
        : `${regressions.length} regression${regressions.length === 1 ? '' : 's'} against the baseline`,
    );
  const bad = (misses?.length ?? 0) > 0 || regressions.length > 0;
  return (
    <div className={`ev-verdict${bad ? ' bad' : ''}`} role="status" aria-label="Verdict">
      <strong>{results.specName ?? 'no results'}</strong> · {results.lines} run{results.lines === 1 ? '' : 's'} · {parts.join(' · ')}
    </div>
  );
}

export function Matrix(): React.JSX.Element | null {
  const results = useEval((s) => s.results);
  const metric = useEval((s) => s.metric);
  const trace = useEval((s) => s.trace);
  const diffOnly = useEval((s) => s.diffOnly);
  const selected = useEval((s) => s.cell);
  const selectCell = useEval((s) => s.selectCell);
  if (!results) return null;
  const g = grid(results.aggregate, trace, results.comparison, metric, diffOnly);
  const def = metricDef(metric);
  const misses = results.misses ?? [];
  const regressions = results.comparison?.regressions ?? [];
  return (
    <section className="ev-matrix" aria-label="Eval matrix">
      <Verdict results={results} />
      <Controls results={results} />
      {g.strategies.length === 0 ? (
        <p className="muted">{diffOnly ? 'No cell differs from the baseline on this metric.' : 'No runs in this results file yet.'}</p>
      ) : (
        <div className="ev-scroll">
          <table className="ev-table">
            <caption className="sr-only">
              {def.label}, strategies by models{trace === null ? ', all traces' : `, trace ${trace}`}
            </caption>
            <thead>
              <tr>
                <th scope="col" className="ev-corner">
                  strategy \ model
                </th>
                {g.models.map((m) => (
                  <th key={m} scope="col">
                    {m}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {g.strategies.map((s) => (
                <tr key={s}>
                  <th scope="row">{s}</th>
                  {g.models.map((m) => {
                    const c = g.cells.get(cellKey(s, m));
                    if (!c)
                      return (
                        <td key={m} className="ev-empty muted" title="no runs">
                          —
                        </td>
                      );
                    const isSel = selected?.strategy === s && selected.model === m;
                    return (
                      <Cell
                        key={m}
                        c={c}
                        metric={metric}
                        misses={results.misses}
                        cmp={results.comparison}
                        selected={isSel}
                        onPick={() => selectCell(isSel ? null : { strategy: s, model: m, trace })}
                      />
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {g.hidden > 0 && (
        <p className="small muted">
          {g.hidden} cell{g.hidden === 1 ? '' : 's'} equal to the baseline hidden.
        </p>
      )}
      <p className="small muted">
        {def.label}: mean over repeats, with the spread (± stddev, min–max) where a cell ran more than once. — = not measured.
        {def.caveat ? ` ${def.caveat}` : ''} Thresholds are checked over all traces.
      </p>
      {misses.length > 0 && (
        <details className="ev-words" open>
          <summary>Threshold misses ({misses.length})</summary>
          <ul className="ev-list">
            {misses.map((m, i) => (
              <li key={i}>❌ {m.words}</li>
            ))}
          </ul>
        </details>
      )}
      {regressions.length > 0 && (
        <details className="ev-words" open>
          <summary>Regressions against the baseline ({regressions.length})</summary>
          <ul className="ev-list">
            {regressions.map((d, i) => (
              <li key={i}>▼ {d.words}</li>
            ))}
          </ul>
        </details>
      )}
      {results.comparison && results.comparison.onlyBaseline.length > 0 && (
        <p className="small muted">Only in the baseline: {results.comparison.onlyBaseline.join(', ')}</p>
      )}
      {results.notes.map((n, i) => (
        <p key={i} className="rr-note" role="note">
          {n}
        </p>
      ))}
      {results.problems.length > 0 && (
        <details>
          <summary className="rr-bad">
            {results.problems.length} line{results.problems.length === 1 ? '' : 's'} skipped
          </summary>
          <ul className="ev-list small">
            {results.problems.map((p, i) => (
              <li key={i}>{p}</li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}
