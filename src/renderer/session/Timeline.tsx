import { BranchPicker } from './BranchPicker';
import { useSession } from './context';
import type { Marker } from './stepping';

/** Left edge of a request on the track, in percent (the slider's thumb runs the same way). */
export function trackPercent(index: number, count: number): number {
  return count <= 1 ? 50 : (index / (count - 1)) * 100;
}

function MarkerTicks({ markers, count, kind }: { markers: readonly Marker[]; count: number; kind: Marker['kind'] }): React.JSX.Element {
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
          style={{ left: `${trackPercent(m.index, count)}%` }}
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
  const n = requests.length;
  const current = selected === null ? null : requests[selected];

  return (
    <section className="sv-timeline" aria-label="Timeline">
      <div className="sv-timeline-bar">
        <strong>Timeline</strong>
        <span className="sv-where">
          {current ? `request #${current.index} of ${n} · ${current.purpose} · seq ${current.seq}` : `${n} requests`}
        </span>
        <span className="sv-steps">
          <button type="button" onClick={() => step(-1)} title="previous request (k, ↑, ←)">◀ request</button>
          <button type="button" onClick={() => step(1)} title="next request (j, ↓, →)">request ▶</button>
          <button type="button" onClick={() => jump('compaction', -1)} title="previous compaction (Shift+C)" disabled={markers.compaction.length === 0}>◀ compaction</button>
          <button type="button" onClick={() => jump('compaction', 1)} title="next compaction (c)" disabled={markers.compaction.length === 0}>compaction ▶</button>
          <button type="button" onClick={() => jump('diagnostic', -1)} title="previous diagnostic (Shift+D)" disabled={markers.diagnostic.length === 0}>◀ diagnostic</button>
          <button type="button" onClick={() => jump('diagnostic', 1)} title="next diagnostic (d)" disabled={markers.diagnostic.length === 0}>diagnostic ▶</button>
          <button type="button" onClick={toggleKeys} title="keys (?)">keys</button>
        </span>
        <BranchPicker />
      </div>
      {n > 0 && (
        <div className="sv-track">
          <MarkerTicks markers={markers.compaction} count={n} kind="compaction" />
          <input
            type="range"
            className="sv-slider"
            min={0}
            max={Math.max(0, n - 1)}
            value={selected ?? 0}
            aria-label="Selected request"
            aria-valuetext={current ? `request ${current.index}` : undefined}
            onChange={(e) => void select(Number(e.target.value))}
          />
          <MarkerTicks markers={markers.diagnostic} count={n} kind="diagnostic" />
        </div>
      )}
    </section>
  );
}
