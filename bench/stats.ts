/* The bench's summaries of repeated measurements: one median for every script. */

/** The median (the mean of the middle two for an even count); NaN for none. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  if (n === 0) return NaN;
  return n % 2 === 1 ? (s[(n - 1) / 2] as number) : ((s[n / 2 - 1] as number) + (s[n / 2] as number)) / 2;
}

export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

/** Median and range. */
export function spread(xs: readonly number[]): Spread {
  return { median: median(xs), min: xs.length ? Math.min(...xs) : NaN, max: xs.length ? Math.max(...xs) : NaN };
}
