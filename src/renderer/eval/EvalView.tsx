import { CellRuns } from './CellRuns';
import { Matrix } from './Matrix';
import { ResultsPicker } from './ResultsPicker';
import { RunDetail } from './RunDetail';
import { RunForm } from './RunForm';
import { useEval } from './useEval';
import './eval.css';

/**
 * The eval view (docs/eval.md, "In the app"): on the left, running a spec and
 * choosing the results to show; on the right, the matrix, the runs of the cell drilled into, and
 * one run compared with the original compaction.
 */

function Right(): React.JSX.Element {
  const results = useEval((s) => s.results);
  const cell = useEval((s) => s.cell);
  const detailRun = useEval((s) => s.detailRun);
  const filesError = useEval((s) => s.filesError);
  return (
    <div className="rr-right">
      {filesError && (
        <p className="rr-error" role="alert">
          {filesError.code}: {filesError.message}
        </p>
      )}
      {results === null ? (
        <p className="muted ev-empty-state">
          Run a spec, or show a results file, to see the matrix of strategies × models. Evaluations are described in docs/eval.md; the
          command line is <code>palimpsest eval &lt;spec&gt;</code>.
        </p>
      ) : (
        <>
          <h3>
            Matrix <span className="muted">{results.file}</span>
          </h3>
          <Matrix />
          {cell && detailRun === null && <CellRuns results={results} cell={cell} />}
          <RunDetail />
        </>
      )}
    </div>
  );
}

export function EvalView(): React.JSX.Element {
  return (
    <div className="rr-view ev-view">
      <div className="rr-left">
        <h3>Run an eval</h3>
        <RunForm />
        <h3>Show results</h3>
        <ResultsPicker />
      </div>
      <Right />
    </div>
  );
}
