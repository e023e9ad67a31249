/*
 * Small statistics for the matrix, with their definitions in one place (docs/eval.md):
 * - stddev is the sample standard deviation (n − 1), 0 for a single value: spreads over a handful
 *   of repeats, where the population formula would understate them;
 * - percentiles use the nearest-rank method (the value at rank ceil(p/100 · n)), so p95 of a few
 *   latencies is an observed latency, never an interpolation.
 */

export interface Stat {
  readonly mean: number;
  readonly min: number;
  readonly max: number;
  readonly stddev: number;
  readonly n: number;
}

export function stat(values: readonly number[]): Stat | null {
  const n = values.length;
  if (n === 0) return null;
  const mean = values.reduce((a, b) => a + b, 0) / n;
  const variance = n < 2 ? 0 : values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1);
  return { mean, min: Math.min(...values), max: Math.max(...values), stddev: Math.sqrt(variance), n };
}

export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] as number;
}
