import type { TimelineRow } from '../../../shared/api/contract';
import { useSession } from '../context';
import { ms } from '../format';
import { WireBadge } from '../WireBadge';
import { WireOutputBox } from '../WireViewPane';

// One empty list: a selector returning a new [] each time would re-render without end.
const NO_ROWS: readonly TimelineRow[] = [];
const NO_RUNS: readonly (readonly number[])[] = [];

/**
 * A compaction's summarizer attempts as the capture shows them, one row each: status, error,
 * finish reason and duration. A row selects its request (Enter or Space from the keyboard); a wire
 * attempt then shows the summarizer's exact input in the model view, and its output here.
 */
export function AttemptsTimeline({ attempts, label }: { attempts: readonly number[]; label: string }): React.JSX.Element {
  const rows = useSession((s) => s.joined?.rows ?? NO_ROWS);
  const selectedRow = useSession((s) => s.selectedRow);
  const selectRow = useSession((s) => s.selectRow);
  const wireIndex = useSession((s) => (s.wire?.state === 'ready' ? s.wire.index : null));
  const shown = attempts.map((i) => rows[i]).filter((r): r is TimelineRow => r !== undefined);
  return (
    <div className="sv-attempts-box">
      <h3>Attempts ({shown.length})</h3>
      {shown.length === 0 && <p className="muted">The capture shows no summarizer call for this compaction.</p>}
      <ol className="sv-attempts" aria-label={label}>
        {shown.map((r, n) => {
          const failed = r.error !== null || (r.status !== null && r.status >= 400);
          return (
            <li
              key={r.index}
              role="button"
              tabIndex={0}
              data-index={r.index}
              className={`${failed ? 'sev-error' : ''} ${r.index === selectedRow ? 'selected' : ''}`}
              aria-pressed={r.index === selectedRow}
              onClick={() => void selectRow(r.index)}
              onKeyDown={(e) => {
                if (e.key !== 'Enter' && e.key !== ' ') return;
                e.preventDefault();
                // The session's own keys (j, k, …) must not also act on this key.
                e.stopPropagation();
                void selectRow(r.index);
              }}
            >
              attempt {n + 1} · #{r.index} <WireBadge row={r} /> ·{' '}
              {r.status === null ? (r.source === 'log' ? 'status unknown' : 'no response') : `HTTP ${r.status}`}
              {r.error && (
                <>
                  {' '}
                  · {r.error.code ?? 'error'}: {r.error.message}
                </>
              )}
              {r.finish && <> · finish {r.finish.raw}</>} · {ms(r.durationMs)}
              {r.retryOf !== null && <span className="muted"> · retry of #{r.retryOf}</span>}
            </li>
          );
        })}
      </ol>
      {wireIndex !== null && attempts.includes(wireIndex) && (
        <>
          <h3>Output of attempt #{wireIndex}</h3>
          <WireOutputBox />
        </>
      )}
    </div>
  );
}

/** Runs of summarizer attempts that no compaction of the log stands for: a compaction that left no trace in the log. */
export function OrphanAttempts(): React.JSX.Element | null {
  const orphans = useSession((s) => s.joined?.orphanAttempts ?? NO_RUNS);
  if (orphans.length === 0) return null;
  return (
    <div className="sv-orphans">
      {orphans.map((run, i) => (
        <section key={run[0] ?? i} aria-label="Compaction not in the log">
          <h3 className="sev-warning">Compaction not in the log</h3>
          <p className="muted small">The capture shows summarizer calls here, but the log records no compaction for them.</p>
          <AttemptsTimeline attempts={run} label={`Attempts of the compaction not in the log (${i + 1})`} />
        </section>
      ))}
    </div>
  );
}
