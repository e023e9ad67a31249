import { useState } from 'react';
import type { RunRow } from '../../shared/api/contract';
import { num, targetLabel, usd, when } from '../compare/format';
import { useRerun } from './context';
import { formTarget, sameTarget } from './form';
import { optionsText } from './options';

/**
 * The session's runs from its results file: those of the chosen target first, each with a
 * checkbox to put it in the comparison, the mock flag, and "session changed since" when the
 * session file is no longer the one the run was made from. Runs of other targets are listed on
 * request, with a button to switch the target to theirs.
 */

function Row({ r, selectable }: { r: RunRow; selectable: boolean }): React.JSX.Element {
  const chosen = useRerun((s) => s.chosen.includes(r.runId));
  const toggle = useRerun((s) => s.toggleRun);
  const aim = useRerun((s) => s.aim);
  const branch = useRerun((s) => s.branch);
  const models = r.models.length > 0 ? r.models.join(' → ') : 'no model';
  return (
    <tr className={`outcome-${r.outcome}${r.stale ? ' stale' : ''}`} data-run={r.runId}>
      <td>
        {selectable ? (
          <input
            type="checkbox"
            checked={chosen}
            aria-label={`Compare ${r.strategy} run of ${when(r.at)} (#${r.repeat.index + 1})`}
            onChange={() => toggle(r.runId)}
          />
        ) : (
          <button type="button" className="link" onClick={() => void aim({ target: r.target, branch: r.branch })}>
            {targetLabel(r.target)}
            {r.branch !== branch ? ` on ${r.branch}` : ''}
          </button>
        )}
      </td>
      <td className="nowrap">{when(r.at)}</td>
      <td>
        {r.strategy}{' '}
        <span className="muted">
          #{r.repeat.index + 1}/{r.repeat.of}
        </span>
        {Object.keys(r.options).length > 0 && (
          <div className="small rr-run-options">
            <code>{optionsText(r.options)}</code>
          </div>
        )}
      </td>
      <td>
        <code>{models}</code>
        {r.mock && (
          <span className="tag rr-mock" title="Answers came from the mock provider: scripted, not a model">
            mock
          </span>
        )}
      </td>
      <td>
        <span className="rr-outcome">{r.outcome}</span>
      </td>
      <td className="num">
        {num(r.tokens.before)} → {num(r.tokens.after)}
      </td>
      <td className="num">{num(r.totals.requests)}</td>
      <td className="num">{usd(r.totals.costUsd)}</td>
      <td>
        {r.stale && (
          <span className="tag rr-stale" title="The session file changed after this run: its source may differ from the session's now">
            session changed since
          </span>
        )}
      </td>
    </tr>
  );
}

export function RunsList(): React.JSX.Element {
  const runs = useRerun((s) => s.runs);
  const file = useRerun((s) => s.runsFile);
  const problems = useRerun((s) => s.runProblems);
  const runsError = useRerun((s) => s.runsError);
  const form = useRerun((s) => s.form);
  const chosen = useRerun((s) => s.chosen);
  const compare = useRerun((s) => s.compare);
  const comparing = useRerun((s) => s.comparing);
  const refresh = useRerun((s) => s.refreshRuns);
  const [others, setOthers] = useState(false);
  const branch = useRerun((s) => s.branch);
  const target = formTarget(form);
  // Runs of the target on the branch the panel is on; the rest (other targets or branches) on request.
  const ofTarget = (r: RunRow): boolean => sameTarget(r.target, target) && r.branch === branch;
  const mine = runs.filter(ofTarget).reverse();
  const rest = runs.filter((r) => !ofTarget(r)).reverse();
  const picked = mine.filter((r) => chosen.includes(r.runId)).length;
  const isCompaction = target !== null && 'compaction' in target;
  return (
    <section className="rr-runs" aria-label="Runs">
      <div className="rr-section-head">
        <h3>Runs {target && <span className="muted">of {targetLabel(target)}</span>}</h3>
        <button type="button" onClick={() => void refresh()}>
          Refresh
        </button>
        <button
          type="button"
          className="rr-primary"
          disabled={comparing || target === null || (picked === 0 && !isCompaction)}
          onClick={() => void compare()}
        >
          {isCompaction ? `Compare ${picked} with the original` : `Compare ${picked}`}
        </button>
      </div>
      {runsError && (
        <p className="rr-error" role="alert">
          {runsError.code}: {runsError.message}
        </p>
      )}
      {problems.length > 0 && (
        <details className="rr-note">
          <summary>
            {problems.length} line{problems.length === 1 ? '' : 's'} of the results file could not be read (skipped)
          </summary>
          <ul>
            {problems.map((p) => (
              <li key={p.line}>
                line {p.line}: {p.message}
              </li>
            ))}
          </ul>
        </details>
      )}
      {mine.length === 0 ? (
        <p className="muted">No runs of this target yet.</p>
      ) : (
        <table className="rr-table">
          <thead>
            <tr>
              <th scope="col">compare</th>
              <th scope="col">when</th>
              <th scope="col">strategy</th>
              <th scope="col">models</th>
              <th scope="col">outcome</th>
              <th scope="col">tokens</th>
              <th scope="col">requests</th>
              <th scope="col">cost</th>
              <th scope="col">
                <span className="sr-only">flags</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {mine.map((r) => (
              <Row key={r.runId} r={r} selectable />
            ))}
          </tbody>
        </table>
      )}
      {rest.length > 0 && (
        <button type="button" className="link" aria-expanded={others} onClick={() => setOthers(!others)}>
          {others ? 'Hide' : 'Show'} {rest.length} run{rest.length === 1 ? '' : 's'} of other targets
        </button>
      )}
      {others && rest.length > 0 && (
        <table className="rr-table">
          <tbody>
            {rest.map((r) => (
              <Row key={r.runId} r={r} selectable={false} />
            ))}
          </tbody>
        </table>
      )}
      {file && (
        <p className="muted small">
          Results file: <code>{file}</code>
        </p>
      )}
    </section>
  );
}
