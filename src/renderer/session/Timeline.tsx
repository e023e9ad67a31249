import { useMemo } from 'react';
import { BranchPicker } from './BranchPicker';
import { useSession } from './context';
import type { Marker } from './stepping';

/** Left edge of a request on the track, in percent (the slider's thumb runs the same way). */
export function trackPercent(index: number, count: number): number {
  return count <= 1 ? 50 : (index / (count - 1)) * 100;
}

function MarkerTicks({
  markers,
  count,
  kind,
  at,
}: {
  markers: readonly Marker[];
  count: number;
  kind: Marker['kind'];
  at: (logIndex: number) => number;
}): React.JSX.Element {
  const select = useSession((s) => s.select);
  const openCompaction = useSession((s) => s.openCompaction);
  const setTab = useSession((s) => s.setTab);
  return (
    <div className={`sv-ticks sv-ticks-${kind}`} aria-label={kind === 'compaction' ? 'Compactions' : 'Diagnostics'}>
      {markers.map((m) => (
        <button
          type="button"
          key={m.id}
          className={`sv-tick ${kind} ${m.severity ? `sev-${m.severity}` : ''}`}
          style={{ left: `${trackPercent(at(m.index), count)}%` }}
          title={`${m.label} — request #${m.index}`}
          aria-label={`${m.label} at request ${m.index}`}
          data-index={m.index}
          onClick={() => {
            void select(m.index);
            if (kind === 'compaction') openCompaction(m.id);
            else setTab('diagnostics');
          }}
        />
      ))}
    </div>
  );
}

/**
 * The session's requests along one track: a slider to pick one, compaction marks (blue) above it
 * and diagnostic marks (coloured by severity) below, and buttons for the same steps as the keys.
 */
export function Timeline(): React.JSX.Element {
  const requests = useSession((s) => s.requests);
  const selected = useSession((s) => s.selected);
  const markers = useSession((s) => s.markers);
  const select = useSession((s) => s.select);
  const step = useSession((s) => s.step);
  const jump = useSession((s) => s.jumpMarker);
  const toggleKeys = useSession((s) => s.toggleKeys);
  const toggleExport = useSession((s) => s.toggleExport);
  const joined = useSession((s) => s.joined);
  const selectedRow = useSession((s) => s.selectedRow);
  const selectRow = useSession((s) => s.selectRow);
  // With a capture the track runs over the joined list; marks stay on the log's requests.
  const rowOfLog = useMemo(
    () => new Map((joined?.rows ?? []).flatMap((r) => (r.logIndex === null ? [] : [[r.logIndex, r.index] as const]))),
    [joined],
  );
  const at = (logIndex: number) => (joined ? (rowOfLog.get(logIndex) ?? logIndex) : logIndex);
  const n = joined ? joined.rows.length : requests.length;
  const current = selected === null ? null : requests[selected];
  const row = joined && selectedRow !== null ? (joined.rows[selectedRow] ?? null) : null;
  const where = row
    ? `request #${row.index} of ${n} · ${row.purpose} · ${row.source === 'wire' ? `wire only, ${row.status === null ? 'no response' : `HTTP ${row.status}`}` : `log #${row.logIndex ?? '?'}${current ? ` · seq ${current.seq}` : ''}`}`
    : current
      ? `request #${current.index} of ${n} · ${current.purpose} · seq ${current.seq}`
      : `${n} requests`;

  return (
    <section className="sv-timeline" aria-label="Timeline">
      <div className="sv-timeline-bar">
        <strong>Timeline</strong>
        <span className="sv-where">{where}</span>
        <span className="sv-steps">
          <button type="button" onClick={() => step(-1)} title="previous request (k, ↑, ←)">
            ◀ request
          </button>
          <button type="button" onClick={() => step(1)} title="next request (j, ↓, →)">
            request ▶
          </button>
          <button
            type="button"
            onClick={() => jump('compaction', -1)}
            title="previous compaction (Shift+C)"
            disabled={markers.compaction.length === 0}
          >
            ◀ compaction
          </button>
          <button
            type="button"
            onClick={() => jump('compaction', 1)}
            title="next compaction (c)"
            disabled={markers.compaction.length === 0}
          >
            compaction ▶
          </button>
          <button
            type="button"
            onClick={() => jump('diagnostic', -1)}
            title="previous diagnostic (Shift+D)"
            disabled={markers.diagnostic.length === 0}
          >
            ◀ diagnostic
          </button>
          <button
            type="button"
            onClick={() => jump('diagnostic', 1)}
            title="next diagnostic (d)"
            disabled={markers.diagnostic.length === 0}
          >
            diagnostic ▶
          </button>
          <button type="button" onClick={toggleKeys} title="keys (?)">
            keys
          </button>
          <button type="button" onClick={toggleExport} title="export as HTML or Markdown, redacted (e)">
            Export…
          </button>
        </span>
        <BranchPicker />
      </div>
      {n > 0 && (
        <div className="sv-track">
          <MarkerTicks markers={markers.compaction} count={n} kind="compaction" at={at} />
          <input
            type="range"
            className="sv-slider"
            min={0}
            max={Math.max(0, n - 1)}
            value={(joined ? selectedRow : selected) ?? 0}
            aria-label="Selected request"
            aria-valuetext={
              joined ? (selectedRow === null ? undefined : `request ${selectedRow}`) : current ? `request ${current.index}` : undefined
            }
            onChange={(e) => void (joined ? selectRow(Number(e.target.value)) : select(Number(e.target.value)))}
          />
          <MarkerTicks markers={markers.diagnostic} count={n} kind="diagnostic" at={at} />
        </div>
      )}
    </section>
  );
}
