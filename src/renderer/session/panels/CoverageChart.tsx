import type { MapReduceDetail } from '../../../shared/api/contract';
import { coverageLayout } from '../coverage';

const LANE = 16;
const AXIS = 18;

/**
 * MapReduce coverage: the source items along the axis, each segment a bar coloured by its map's
 * status, gaps (items no segment covers) and overlaps (items covered twice) marked in red / amber.
 */
export function CoverageChart({ coverage }: { coverage: MapReduceDetail['coverage'] }): React.JSX.Element {
  const c = coverageLayout(coverage.axis, coverage.segments);
  const n = Math.max(1, c.items);
  const w = (k: number): string => `${(k / n) * 100}%`;
  const height = AXIS + Math.max(1, c.lanes) * LANE + 6;
  return (
    <figure className="sv-coverage" aria-label="MapReduce coverage">
      <div className="sv-coverage-plot" style={{ height }}>
        {c.gaps.map((g) => (
          <div
            key={`gap-${g.start}`}
            className="sv-cov-gap"
            style={{ left: w(g.start), width: w(g.end - g.start + 1) }}
            title={`gap: items ${g.start}–${g.end} are covered by no segment`}
            data-gap={`${g.start}-${g.end}`}
          />
        ))}
        {c.overlaps.map((o) => (
          <div
            key={`ov-${o.start}`}
            className="sv-cov-overlap"
            style={{ left: w(o.start), width: w(o.end - o.start + 1) }}
            title={`overlap: items ${o.start}–${o.end} are covered by segments ${o.ordinals.join(', ')}`}
            data-overlap={`${o.start}-${o.end}`}
          />
        ))}
        {coverage.axis.map((a, i) => (
          <div
            key={a.id}
            className={`sv-cov-item ${c.counts[i] === 0 ? 'uncovered' : ''}`}
            style={{ left: w(i), width: w(1) }}
            title={`${a.id}${a.seq !== null ? ` (seq ${a.seq})` : ''}: ${c.counts[i] ?? 0} segment(s)`}
          >
            <span>{a.id}</span>
          </div>
        ))}
        {c.bars.map((b) => (
          <div
            key={`${b.ordinal}-${b.start}`}
            className={`sv-cov-bar status-${b.status} ${b.piece ? 'piece' : ''}`}
            style={{ left: w(b.start), width: w(b.end - b.start + 1), top: AXIS + b.lane * LANE }}
            title={`segment ${b.ordinal}: ${b.status}${b.piece ? ' (not one run of items)' : ''}`}
            data-ordinal={b.ordinal}
          >
            {b.ordinal}
          </div>
        ))}
      </div>
      <figcaption className="muted small">
        {c.items} items · {coverage.segments.length} segments at seq {coverage.atSeq ?? '?'} ·{' '}
        <span className={c.gaps.length > 0 ? 'sev-error' : ''}>
          {c.gaps.length} gap{c.gaps.length === 1 ? '' : 's'}
        </span>{' '}
        ·{' '}
        <span className={c.overlaps.length > 0 ? 'sev-warning' : ''}>
          {c.overlaps.length} overlap{c.overlaps.length === 1 ? '' : 's'}
        </span>
        {c.beyond.map((b) => (
          <span key={b.ordinal} className="sev-error">
            {' '}
            · segment {b.ordinal} reaches beyond the source: {b.items.join(', ')}
          </span>
        ))}{' '}
        · <span className="sv-key status-accepted" /> accepted <span className="sv-key status-rejected" /> rejected{' '}
        <span className="sv-key status-failed" /> failed <span className="sv-key status-pending" /> no map yet
      </figcaption>
    </figure>
  );
}
