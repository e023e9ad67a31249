import { isDesktop } from '../api';
import { baseName, cellOutcomeText, progressText } from './format';
import { useEval } from './useEval';

/**
 * Running an eval from the app: the spec (one the host offers, a path, or — in the desktop app —
 * one picked in a dialog), resume, shard and results file, as `palimpsest eval` takes them; then
 * the job's progress (cells done of total), its last cell, why it stopped, and Cancel.
 */

function JobProgress(): React.JSX.Element | null {
  const job = useEval((s) => s.job);
  const watchError = useEval((s) => s.watchError);
  const cancel = useEval((s) => s.cancel);
  if (!job) return null;
  const running = job.state === 'running';
  return (
    <section className={`ev-job state-${job.state}`} aria-label="Eval progress">
      <div className="ev-job-head">
        <span className={`rr-state state-${job.state}`}>{job.state}</span>
        <strong title={job.spec}>{job.specName ?? baseName(job.spec)}</strong>
        {job.shard && (
          <span className="tag">
            shard {job.shard.k}/{job.shard.n}
          </span>
        )}
        {job.resume && <span className="tag">resume</span>}
        {running && (
          <button type="button" onClick={() => void cancel()}>
            Cancel
          </button>
        )}
      </div>
      {job.total === null && running ? (
        <progress aria-label="Cells done" />
      ) : (
        <progress aria-label="Cells done" max={Math.max(1, job.total ?? 0)} value={job.total === 0 ? 1 : job.done} />
      )}
      <div className="ev-progress-text" role="status">
        {progressText(job)}
      </div>
      {job.last && (
        <div className="small ev-last">
          last: {cellOutcomeText(job.last)}
          {job.last.mock && <span className="tag rr-mock">mock</span>}
        </div>
      )}
      {job.stopped && (
        <p className="rr-note" role="note">
          {job.stopped}
        </p>
      )}
      {job.error && (
        <p className="rr-error" role="alert">
          {job.error}
        </p>
      )}
      {job.summary && (
        <p className="small muted">
          {job.summary.ran} cell{job.summary.ran === 1 ? '' : 's'} run, {job.summary.skipped} already in the results
          {job.shard ? ` (shard: ${job.summary.shardCells} of ${job.summary.totalCells} cells)` : ` (${job.summary.totalCells} cells)`}
          {' · '}
          {job.summary.misses} threshold miss{job.summary.misses === 1 ? '' : 'es'}
        </p>
      )}
      {job.summary && job.summary.warnings.length > 0 && (
        <ul className="ev-list small">
          {job.summary.warnings.map((w, i) => (
            <li key={i}>{w}</li>
          ))}
        </ul>
      )}
      {job.errors.length > 0 && (
        <details>
          <summary className="rr-bad">
            {job.errors.length} cell{job.errors.length === 1 ? '' : 's'} could not run
          </summary>
          <ul className="ev-list small">
            {job.errors.map((e, i) => (
              <li key={i}>{e}</li>
            ))}
          </ul>
        </details>
      )}
      {job.resultsFile && (
        <p className="small muted">
          Results: <code>{job.resultsFile}</code>
        </p>
      )}
      {watchError && (
        <p className="rr-error" role="alert">
          {watchError.code}: {watchError.message}
        </p>
      )}
    </section>
  );
}

export function RunForm(): React.JSX.Element {
  const files = useEval((s) => s.files);
  const form = useEval((s) => s.form);
  const formError = useEval((s) => s.formError);
  const starting = useEval((s) => s.starting);
  const running = useEval((s) => s.job?.state === 'running');
  const setForm = useEval((s) => s.setForm);
  const start = useEval((s) => s.start);
  const browse = useEval((s) => s.browse);
  const specs = files?.specs ?? [];
  const chosen = specs.find((s) => s.path === form.spec);

  return (
    <form
      className="rr-form"
      aria-label="Eval run"
      onSubmit={(e) => {
        e.preventDefault();
        void start();
      }}
    >
      <fieldset>
        <legend>Spec</legend>
        {specs.length > 0 && (
          <label className="rr-field">
            <span>Specs this host offers</span>
            <select value={chosen ? chosen.path : ''} onChange={(e) => e.target.value !== '' && setForm({ spec: e.target.value })}>
              <option value="">{chosen ? '' : '(a path typed below)'}</option>
              {specs.map((s) => (
                <option key={s.path} value={s.path} disabled={s.error !== null} title={s.error ?? s.description ?? s.path}>
                  {s.name ?? baseName(s.path)} — {baseName(s.path)}
                  {s.error ? ' (cannot be used)' : ''}
                </option>
              ))}
            </select>
          </label>
        )}
        <label className="rr-field">
          <span>Spec file</span>
          <input
            type="text"
            value={form.spec}
            onChange={(e) => setForm({ spec: e.target.value })}
            placeholder="path to a spec (YAML or JSON)"
            spellCheck={false}
          />
        </label>
        {isDesktop() && (
          <button type="button" onClick={() => void browse('spec')}>
            Choose a spec…
          </button>
        )}
        {chosen?.description && <p className="small muted ev-desc">{chosen.description}</p>}
        {specs
          .filter((s) => s.error !== null)
          .map((s) => (
            <p key={s.path} className="small rr-bad">
              {s.error}
            </p>
          ))}
      </fieldset>
      <fieldset>
        <legend>Run</legend>
        <div className="rr-row">
          <label className="rr-radio">
            <input type="checkbox" checked={form.resume} onChange={(e) => setForm({ resume: e.target.checked })} /> Resume
          </label>
          <label className="rr-field rr-narrow">
            <span>Shard</span>
            <input
              type="text"
              value={form.shard}
              onChange={(e) => setForm({ shard: e.target.value })}
              placeholder="k/n"
              spellCheck={false}
            />
          </label>
        </div>
        <label className="rr-field">
          <span>Results file</span>
          <input
            type="text"
            value={form.results}
            onChange={(e) => setForm({ results: e.target.value })}
            placeholder={`default: in ${files?.resultsFolder ?? 'the data folder'}`}
            spellCheck={false}
          />
        </label>
        <p className="small muted rr-help">
          Resume skips the cells already in the results file; a shard k/n runs the cells whose key hashes to k (docs/eval.md).
        </p>
      </fieldset>
      <div className="rr-actions">
        <button type="submit" className="rr-primary" disabled={starting || running}>
          {starting ? 'Starting…' : 'Run eval'}
        </button>
      </div>
      {formError && (
        <p className="rr-error" role="alert">
          {formError}
        </p>
      )}
      <JobProgress />
    </form>
  );
}
