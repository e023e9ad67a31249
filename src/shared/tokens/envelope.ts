/**
 * The part of a request the log does not contain, measured from the provider's own figures.
 *
 * Claude Code does not log its system prompt and tool schemas, yet its usage reports count them.
 * Within a stretch of a session where the harness sends the same envelope, the reported context
 * grows with the logged content:
 *
 *     reported ≈ E + k × counted
 *
 * where E is what the log leaves out (constant within the stretch) and k the ratio between the
 * provider's tokenizer and the local encoding (≈ 1 for an exact encoding). k is fitted robustly
 * (Theil–Sen: the median of the slopes between pairs of requests of the same stretch, each pair
 * weighted by the span it covers, so a few odd requests do not move it), then each request's unlogged part is reported − k × counted, and E is
 * its median over a stretch. Stretches are separated by compactions: after one, a harness may
 * re-inject context it does not log either (Claude Code re-reads recent files), so E is given per
 * stretch; the first stretch's E is the envelope proper (system prompt + tools). A measurement, not
 * a guess: with a single request it is simply reported − counted.
 */
export interface EnvelopeFit {
  /** E of the first stretch: what the provider counted beyond the log at the start (system + tools when unlogged). */
  readonly envelope: number;
  /** k: provider tokens per locally counted token. */
  readonly ratio: number;
  /** Requests the fit used. */
  readonly requests: number;
  /** E of each stretch between compactions, in order. */
  readonly stretches: readonly { readonly stretch: number; readonly requests: number; readonly envelope: number }[];
  /** Median absolute deviation of the unlogged parts from their stretch's E, in tokens. */
  readonly spread: number;
  /** theil-sen: k fitted; difference: too few distinct sizes to fit k, so k = 1. */
  readonly method: 'theil-sen' | 'difference';
}

export interface FitPoint {
  readonly counted: number;
  readonly reported: number;
  /** Stretch (0-based): compactions seen before the request. */
  readonly stretch: number;
}

/** The weighted median: half the total weight lies on either side. */
function weightedMedian(xs: { value: number; weight: number }[]): number {
  if (xs.length === 0) return NaN;
  xs.sort((a, b) => a.value - b.value);
  let total = 0;
  for (const x of xs) total += x.weight;
  let acc = 0;
  for (const x of xs) {
    acc += x.weight;
    if (acc >= total / 2) return x.value;
  }
  return (xs[xs.length - 1] as { value: number }).value;
}

function median(xs: number[]): number {
  if (xs.length === 0) return NaN;
  xs.sort((a, b) => a - b);
  const m = xs.length >> 1;
  return xs.length % 2 === 1 ? (xs[m] as number) : ((xs[m - 1] as number) + (xs[m] as number)) / 2;
}

/** At most this many points per stretch enter the pairwise slopes (evenly spaced): the fit stays cheap on long sessions. */
const MAX_POINTS = 200;
/**
 * At most this many pairs over all stretches. A session with hundreds of compactions has hundreds
 * of stretches: 200 points each made 10 million slopes to sort on the 1M-event bench session (523
 * stretches); past this budget every stretch gets the same smaller sample instead.
 */
export const MAX_PAIRS = 200_000;

/** Points sampled per stretch: MAX_POINTS, or fewer (at least 2) so that all pairs fit MAX_PAIRS. */
export function pointsPerStretch(sizes: readonly number[]): number {
  const pairs = (cap: number): number =>
    sizes.reduce((n, size) => {
      const k = Math.min(size, cap);
      return n + (k * (k - 1)) / 2;
    }, 0);
  if (pairs(MAX_POINTS) <= MAX_PAIRS) return MAX_POINTS;
  let lo = 2;
  let hi = MAX_POINTS;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (pairs(mid) <= MAX_PAIRS) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export function fitEnvelope(points: readonly FitPoint[]): EnvelopeFit | null {
  const ps = points.filter((p) => Number.isFinite(p.counted) && Number.isFinite(p.reported) && p.counted > 0 && p.reported > 0);
  if (ps.length === 0) return null;
  const byStretch = new Map<number, FitPoint[]>();
  for (const p of ps) {
    const list = byStretch.get(p.stretch) ?? [];
    list.push(p);
    byStretch.set(p.stretch, list);
  }
  const slopes: { value: number; weight: number }[] = [];
  const cap = pointsPerStretch([...byStretch.values()].map((l) => l.length));
  for (const list of byStretch.values()) {
    const step = list.length / Math.min(list.length, cap);
    const sample: FitPoint[] = [];
    for (let i = 0; i < list.length && sample.length < cap; i++) sample.push(list[Math.floor(i * step)] as FitPoint);
    for (let i = 0; i < sample.length; i++) {
      for (let j = i + 1; j < sample.length; j++) {
        const a = sample[i] as FitPoint;
        const b = sample[j] as FitPoint;
        const dx = b.counted - a.counted;
        // Pairs whose counted sizes hardly differ say nothing about the slope.
        // Each pair weighs as much as the span it covers: neighbours' noise (a cache write of an
        // unlogged reminder, a dropped thinking block) does not outvote the trend of the stretch.
        if (Math.abs(dx) >= Math.max(64, 0.02 * Math.max(a.counted, b.counted)))
          slopes.push({ value: (b.reported - a.reported) / dx, weight: Math.abs(dx) });
      }
    }
  }
  let ratio = slopes.length >= 3 ? weightedMedian(slopes) : NaN;
  let method: EnvelopeFit['method'] = 'theil-sen';
  if (!Number.isFinite(ratio) || ratio < 0.5 || ratio > 2) {
    ratio = 1;
    method = 'difference';
  }
  const stretches: { stretch: number; requests: number; envelope: number }[] = [];
  const deviations: number[] = [];
  for (const [stretch, list] of [...byStretch.entries()].sort((a, b) => a[0] - b[0])) {
    const unlogged = list.map((p) => p.reported - ratio * p.counted);
    const e = median(unlogged.slice());
    for (const u of unlogged) deviations.push(Math.abs(u - e));
    stretches.push({ stretch, requests: list.length, envelope: Math.round(e) });
  }
  return {
    envelope: (stretches[0] as { envelope: number }).envelope,
    ratio,
    requests: ps.length,
    stretches,
    spread: Math.round(median(deviations)),
    method,
  };
}

/** The unlogged part of one request: reported − k × counted. */
export function unloggedPart(fit: EnvelopeFit, counted: number, reported: number): number {
  return Math.round(reported - fit.ratio * counted);
}
