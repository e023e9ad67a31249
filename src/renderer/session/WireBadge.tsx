import type { TimelineRow } from '../../shared/api/contract';

/**
 * Where a request of a joined session is known from: "wire" for one only the capture has (a retry,
 * a failed attempt) with its HTTP status; for one both know, "wire ✓" when the captured body is the
 * one the log rebuilds and "wire ≠" when not (the first difference in the tooltip).
 */
export function WireBadge({ row }: { row: TimelineRow }): React.JSX.Element | null {
  if (row.source === 'log')
    return (
      <span className="sv-wire log" title="only the log has this request: the capture does not">
        log only
      </span>
    );
  if (row.source === 'wire') {
    const failed = row.error !== null || (row.status !== null && row.status >= 400);
    const status = row.status === null ? 'no response' : `HTTP ${row.status}`;
    return (
      <span
        className={`sv-wire wire-only ${failed ? 'failed' : ''}`}
        title={`only the wire has this request (${row.purposeWhy}): ${status}${row.error ? ` — ${row.error.message}` : ''}`}
      >
        wire {row.status ?? '—'}
      </span>
    );
  }
  if (row.verdict === 'match')
    return (
      <span className="sv-wire match" title="the captured request is exactly the one the log rebuilds">
        wire ✓
      </span>
    );
  if (row.verdict === 'mismatch')
    return (
      <span
        className="sv-wire mismatch"
        title={`the captured request differs from the one the log rebuilds: ${row.firstDiff ?? 'first difference not known'}`}
      >
        wire ≠
      </span>
    );
  return (
    <span className="sv-wire unknown" title="in the capture and the log; whether they agree is not known">
      wire ?
    </span>
  );
}
