import { upperBound } from '../seq-search';

/** A compaction's bracket on the log: from its start event to its end event (or the end of the log). */
export interface Bracket {
  readonly id: string;
  readonly from: number;
  readonly to: number;
}

/**
 * The innermost bracket around a seq — the one that started last; of two that start together, the
 * first listed — or null. Markers and compaction drops that do not name their compaction are
 * attributed this way, one query per drop: a scan of every bracket per query made that quadratic
 * in a long session's compactions.
 */
export function innermostBracket(brackets: readonly Bracket[]): (seq: number) => string | null {
  // By start; of equal starts, the later listed first, so a backward scan meets the first listed first.
  const sorted = brackets
    .map((b, i) => ({ b, i }))
    .sort((x, y) => x.b.from - y.b.from || y.i - x.i)
    .map((x) => x.b);
  const froms = sorted.map((b) => b.from);
  // The furthest end among brackets 0..k: below `seq`, no bracket at or before k contains it.
  const reach: number[] = [];
  for (const b of sorted) reach.push(Math.max(b.to, reach[reach.length - 1] ?? Number.NEGATIVE_INFINITY));
  return (seq) => {
    for (let k = upperBound(froms, seq) - 1; k >= 0 && (reach[k] as number) >= seq; k--) {
      const b = sorted[k] as Bracket;
      if (seq <= b.to) return b.id;
    }
    return null;
  };
}
