import type { RerunJob, RunRow } from '../../shared/api/contract';
import { num, targetLabel } from '../compare/format';
import { useRerun } from './context';
import { optionsText } from './options';

/**
 * This session's re-run jobs, newest first, with their streamed progress: the strategy's stage,
 * maps (or calls) done of total, which repeat, the runs finished so far, and Cancel while running.
 */

function stageText(job: RerunJob): string {
  const s = job.stage;
  if (job.state === 'running' && s === null) return 'starting…';
  if (s === null) return '';
  const total = s.total !== null ? `/${num(s.total)}` : '';
  return `${s.stage} ${num(s.done)}${total} · repeat ${s.repeat.index + 1}/${s.repeat.of}${s.message ? ` · ${s.message}` : ''}`;
}

const STATE_TEXT: Record<RerunJob['state'], string> = { running: 'running', done: 'done', failed: 'failed', cancelled: 'cancelled' };

function RunLine({ r }: { r: RunRow }): React.JSX.Element {
  return (
    <li className={`rr-run-line outcome-${r.outcome}`}>
      #{r.repeat.index + 1} <span className="rr-outcome">{r.outcome}</span> · {num(r.tokens.before)} → {num(r.tokens.after)} tokens ·{' '}
      {num(r.totals.requests)} request{r.totals.requests === 1 ? '' : 's'}
      {r.mock && <span className="tag rr-mock">mock</span>}
      {r.error && <span className="rr-bad"> · {r.error}</span>}
    </li>
  );
}

function Job({ job }: { job: RerunJob }): React.JSX.Element {
  const cancel = useRerun((s) => s.cancel);
  const running = job.state === 'running';
  const s = job.stage;
  const models = job.models.length > 0 ? ` @ ${job.models.join(' → ')}` : '';
  return (
    <li className={`rr-job state-${job.state}`} data-job={job.jobId}>
      <div className="rr-job-head">
        <strong>
          {job.strategy}
          {models}
        </strong>
        {Object.keys(job.options).length > 0 && <code className="rr-job-options">{optionsText(job.options)}</code>}
        <span className="muted">on {targetLabel(job.target)}</span>
        <span className={`rr-state state-${job.state}`}>{STATE_TEXT[job.state]}</span>
        {running && (
          <button type="button" onClick={() => void cancel(job.jobId)}>
            Cancel
          </button>
        )}
      </div>
      <div className="rr-stage" role="status" aria-live="polite">
        {stageText(job)}
        <span className="muted">
          {' '}
          · {job.runs.length}/{job.repeat} run{job.repeat === 1 ? '' : 's'}
        </span>
      </div>
      {running && <progress aria-label={`Progress of ${job.strategy}`} max={s?.total ?? undefined} value={s?.total ? s.done : undefined} />}
      {job.error && (
        <p className="rr-error" role="alert">
          {job.error}
        </p>
      )}
      {job.runs.length > 0 && (
        <ul className="rr-run-lines">
          {job.runs.map((r) => (
            <RunLine key={r.runId} r={r} />
          ))}
        </ul>
      )}
    </li>
  );
}

export function JobList(): React.JSX.Element | null {
  const jobs = useRerun((s) => s.jobs);
  const watchError = useRerun((s) => s.watchError);
  if (jobs.length === 0 && !watchError) return null;
  return (
    <section className="rr-jobs" aria-label="Jobs">
      <h3>Jobs</h3>
      {watchError && (
        <p className="rr-error" role="alert">
          {watchError.code}: {watchError.message}
        </p>
      )}
      <ul>
        {[...jobs].reverse().map((j) => (
          <Job key={j.jobId} job={j} />
        ))}
      </ul>
    </section>
  );
}
