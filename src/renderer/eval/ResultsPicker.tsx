import { isDesktop } from '../api';
import { baseName } from './format';
import { useEval } from './useEval';

/**
 * Which results file the matrix shows, against which baseline, with which spec (for thresholds and
 * facts in words; without one, the spec the host knows by the results' name). Files the host lists
 * can be chosen; any other path is typed, and the host says when it may not be read.
 */

export function ResultsPicker(): React.JSX.Element {
  const files = useEval((s) => s.files);
  const open = useEval((s) => s.open);
  const results = useEval((s) => s.results);
  const error = useEval((s) => s.resultsError);
  const loading = useEval((s) => s.loadingResults);
  const setOpen = useEval((s) => s.setOpen);
  const openResults = useEval((s) => s.openResults);
  const browse = useEval((s) => s.browse);
  const desktop = isDesktop();
  const listed = files?.results ?? [];

  return (
    <form
      className="rr-form"
      aria-label="Results to show"
      onSubmit={(e) => {
        e.preventDefault();
        void openResults();
      }}
    >
      <fieldset>
        <legend>Results</legend>
        {listed.length > 0 && (
          <label className="rr-field">
            <span>Results files</span>
            <select
              value={listed.some((r) => r.path === open.file) ? open.file : ''}
              onChange={(e) => e.target.value !== '' && setOpen({ file: e.target.value })}
            >
              <option value="">(a path typed below)</option>
              {listed.map((r) => (
                <option key={r.path} value={r.path} title={r.path}>
                  {baseName(r.path)} · {r.modifiedAt.slice(0, 16).replace('T', ' ')}
                </option>
              ))}
            </select>
          </label>
        )}
        <label className="rr-field">
          <span>Results file</span>
          <input
            type="text"
            value={open.file}
            onChange={(e) => setOpen({ file: e.target.value })}
            placeholder="path to a .results.jsonl"
            spellCheck={false}
          />
        </label>
        {desktop && (
          <button type="button" onClick={() => void browse('results')}>
            Choose a results file…
          </button>
        )}
        <label className="rr-field">
          <span>Baseline (optional)</span>
          <input
            type="text"
            list="ev-results-list"
            value={open.baseline}
            onChange={(e) => setOpen({ baseline: e.target.value })}
            placeholder="an earlier results file"
            spellCheck={false}
          />
        </label>
        {desktop && (
          <button type="button" onClick={() => void browse('baseline')}>
            Choose a baseline…
          </button>
        )}
        <datalist id="ev-results-list">
          {listed.map((r) => (
            <option key={r.path} value={r.path} />
          ))}
        </datalist>
        <label className="rr-field">
          <span>Spec (optional)</span>
          <input
            type="text"
            value={open.spec}
            onChange={(e) => setOpen({ spec: e.target.value })}
            placeholder="found by the results' spec name when empty"
            spellCheck={false}
          />
        </label>
      </fieldset>
      <div className="rr-actions">
        <button type="submit" disabled={loading}>
          {loading ? 'Opening…' : 'Show results'}
        </button>
        {results && results.specNames.length > 1 && (
          <label className="rr-field">
            <span>Spec in this file</span>
            <select value={results.specName ?? ''} onChange={(e) => void openResults(e.target.value)}>
              {results.specNames.map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
          </label>
        )}
      </div>
      {error && (
        <p className="rr-error" role="alert">
          {error.code}: {error.message}
        </p>
      )}
    </form>
  );
}
