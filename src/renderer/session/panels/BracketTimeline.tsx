import type { CompactionDetail } from '../../../shared/api/contract';

const W = 1000;
const H = 34;

/** Where a bracket event sits along the mini timeline, 0–1 (by seq, between the first and the last). */
export function bracketX(seq: number, first: number, last: number): number {
  return last === first ? 0.5 : (seq - first) / (last - first);
}

const KIND_CLASS = (kind: string): string =>
  kind.startsWith('mapreduce/')
    ? 'mr'
    : kind === 'compaction/summary-error' || kind === 'response'
      ? kind.replace('/', '-')
      : kind.replace('/', '-');

/** The compaction's events on one line, from its first to its last; a click brings one into the raw history. */
export function BracketTimeline({
  bracket,
  onPick,
}: {
  bracket: CompactionDetail['bracket'];
  onPick: (seq: number) => void;
}): React.JSX.Element | null {
  const ev = bracket.events;
  const first = ev[0]?.seq;
  const last = ev[ev.length - 1]?.seq;
  if (first === undefined || last === undefined) return null;
  return (
    <figure className="sv-bracket">
      <svg
        viewBox={`0 0 ${W} ${H}`}
        preserveAspectRatio="none"
        role="img"
        aria-label={`Compaction bracket: ${ev.length} events from seq ${first} to ${last}`}
      >
        <line x1={8} x2={W - 8} y1={H / 2} y2={H / 2} className="sv-bracket-axis" vectorEffect="non-scaling-stroke" />
        {ev.map((e) => {
          const x = 8 + bracketX(e.seq, first, last) * (W - 16);
          return (
            <rect
              key={e.seq}
              x={x - 3}
              y={4}
              width={6}
              height={H - 8}
              className={`sv-bracket-ev ev-${KIND_CLASS(e.kind)}`}
              onClick={() => onPick(e.seq)}
              data-seq={e.seq}
            >
              <title>{`seq ${e.seq}: ${e.label}`}</title>
            </rect>
          );
        })}
      </svg>
      <figcaption className="muted small">
        seq {first} – {last} · {ev.length} events ·{' '}
        {ev
          .map((e) => e.label)
          .slice(0, 6)
          .join(' → ')}
        {ev.length > 6 ? ' → …' : ''}
      </figcaption>
    </figure>
  );
}
