import type { MapReduceDetail } from '../../../shared/api/contract';

type Reduction = MapReduceDetail['reductions'][number];

/**
 * The reduction tree, top down: the final reduction, the reductions of the level below it names,
 * down to the maps (level 0 inputs are map ordinals; higher levels name reductions of the level
 * below by their index within it).
 */
export function ReductionTree({ mr }: { mr: MapReduceDetail }): React.JSX.Element {
  const byLevel = new Map<number, Reduction[]>();
  for (const r of mr.reductions) {
    const l = byLevel.get(r.level) ?? [];
    l.push(r);
    byLevel.set(r.level, l);
  }
  const top = Math.max(-1, ...mr.reductions.map((r) => r.level));
  const mapStatus = new Map(mr.maps.map((m) => [m.ordinal, m.status]));
  const node = (r: Reduction, index: number, depth: number): React.JSX.Element => (
    <li key={`${r.level}-${index}-${r.seq}`}>
      <span className={`sv-node ${r.final ? 'final' : ''}`}>
        reduce L{r.level}#{index}
        {r.final ? ' (final)' : ''} · {r.finish?.raw ?? 'no finish'}
        {r.usage?.output !== undefined ? ` · ${r.usage.output} out` : ''}
      </span>
      <ul>
        {r.inputs.map((i) => {
          if (r.level === 0 || depth > 8)
            return (
              <li key={`m${i}`}>
                <span className={`sv-node map status-${mapStatus.get(i) ?? 'pending'}`}>
                  map #{i} ({mapStatus.get(i) ?? 'no map'})
                </span>
              </li>
            );
          const child = byLevel.get(r.level - 1)?.[i];
          return child ? (
            node(child, i, depth + 1)
          ) : (
            <li key={`x${i}`} className="sev-error">
              reduction L{r.level - 1}#{i} is not in the log
            </li>
          );
        })}
      </ul>
    </li>
  );
  if (top < 0) return <p className="muted">No reduction in the log.</p>;
  const roots = (byLevel.get(top) ?? []).map((r, i) => node(r, i, 0));
  return (
    <ul className="sv-tree" aria-label="Reduction tree">
      {roots}
    </ul>
  );
}
