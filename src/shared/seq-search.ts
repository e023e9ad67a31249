/**
 * Binary searches over lists in seq order (replay records, requests, compaction starts): "the last
 * one before this event", "the first one after it". Rules and reports ask these once per
 * compaction or request; a scan each time is quadratic on long sessions (docs/performance.md).
 */

/** The last entry whose seq is < `seq` (entries ascending by seq), or null. */
export function lastBefore<T extends { readonly seq: number }>(xs: readonly T[], seq: number): T | null {
  return xs[lowerBoundBy(xs, seq) - 1] ?? null;
}

/** The first entry whose seq is > `seq` (entries ascending by integer seqs), or null. */
export function firstAfter<T extends { readonly seq: number }>(xs: readonly T[], seq: number): T | null {
  return xs[lowerBoundBy(xs, seq + 1)] ?? null;
}

/** Index of the first entry whose seq is ≥ `seq` (entries ascending by seq). */
export function lowerBoundBy(xs: readonly { seq: number }[], seq: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((xs[mid] as { seq: number }).seq < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Index of the first value ≥ x in an ascending array. */
export function lowerBound(xs: readonly number[], x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((xs[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Number of values ≤ x in an ascending array. */
export function upperBound(xs: readonly number[], x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((xs[mid] as number) <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
