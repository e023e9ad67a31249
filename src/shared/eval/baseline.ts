import { findCell, QUALITY_METRICS, type Aggregate, type MatrixCell, type QualityMetric } from './aggregate';

/*
 * Current results against a baseline results file, cell by cell (per trace and overall). The rule
 * for a regression (docs/eval.md, "Baseline"):
 * - a quality metric (recall, each category, stale rejection, provenance) whose mean drops by more
 *   than max(epsilon, the baseline's stddev over repeats, the current stddev): a drop inside the
 *   run-to-run spread is not evidence of anything; epsilon (default 0.01) absorbs rounding when
 *   both are deterministic;
 * - a metric the baseline measured and the current run cannot (every run failed now);
 * - a new failure: the baseline cell had no failed run and the current one has one, or the failure
 *   rate rose by more than epsilon;
 * - more error-level diagnostics in the worst run than the baseline's worst run.
 * Cost and latency are reported as deltas and never marked: mock and live timings do not compare.
 */

export type DeltaMetric = QualityMetric | 'failureRate' | 'structuralErrors' | 'costUsd' | 'latencyP95';

export interface Delta {
  readonly strategy: string;
  readonly model: string;
  readonly trace: string | null;
  readonly metric: DeltaMetric;
  readonly baseline: number | null;
  readonly current: number | null;
  /** current − baseline; null when either is unknown. */
  readonly delta: number | null;
  readonly regression: boolean;
  readonly words: string | null;
}

export interface BaselineComparison {
  readonly deltas: readonly Delta[];
  readonly regressions: readonly Delta[];
  /** Cells only one side has ("strategy × model" [trace]). */
  readonly onlyCurrent: readonly string[];
  readonly onlyBaseline: readonly string[];
}

const pct = (x: number): string => `${(x * 100).toFixed(1)} %`;
const name = (c: MatrixCell): string => `${c.strategy} × ${c.model}${c.trace === null ? '' : ` [${c.trace}]`}`;
const diff = (a: number | null, b: number | null): number | null => (a === null || b === null ? null : a - b);

function cellDeltas(cur: MatrixCell, base: MatrixCell, epsilon: number): Delta[] {
  const out: Delta[] = [];
  const push = (metric: DeltaMetric, b: number | null, c: number | null, words: string | null): void => {
    out.push({
      strategy: cur.strategy,
      model: cur.model,
      trace: cur.trace,
      metric,
      baseline: b,
      current: c,
      delta: diff(c, b),
      regression: words !== null,
      words: words === null ? null : `${name(cur)}: ${words}`,
    });
  };
  for (const m of QUALITY_METRICS) {
    const b = base.quality[m];
    const c = cur.quality[m];
    let words: string | null = null;
    if (b !== null && c === null) words = `${m} was ${pct(b.mean)} and can no longer be measured`;
    else if (b !== null && c !== null) {
      const tolerance = Math.max(epsilon, b.stddev, c.stddev);
      if (c.mean < b.mean - tolerance)
        words = `${m} fell from ${pct(b.mean)} to ${pct(c.mean)} (more than the ${pct(tolerance)} tolerance)`;
    }
    push(m, b?.mean ?? null, c?.mean ?? null, words);
  }
  const bf = base.failures;
  const cf = cur.failures;
  let fw: string | null = null;
  if (bf.count === 0 && cf.count > 0) fw = `new failure: ${cf.count} of ${cf.of} runs failed (the baseline had none)`;
  else if (bf.rate !== null && cf.rate !== null && cf.rate > bf.rate + epsilon)
    fw = `failure rate rose from ${pct(bf.rate)} to ${pct(cf.rate)}`;
  push('failureRate', bf.rate, cf.rate, fw);
  const be = base.structural.maxErrorsPerRun;
  const ce = cur.structural.maxErrorsPerRun;
  push(
    'structuralErrors',
    be,
    ce,
    be !== null && ce !== null && ce > be ? `error-level diagnostics per run rose from ${be} to ${ce}` : null,
  );
  push('costUsd', base.spend.costPerRun, cur.spend.costPerRun, null);
  push('latencyP95', base.latency.p95, cur.latency.p95, null);
  return out;
}

export function compareToBaseline(
  current: Aggregate,
  baseline: Aggregate,
  options: { readonly epsilon?: number } = {},
): BaselineComparison {
  const epsilon = options.epsilon ?? 0.01;
  const deltas: Delta[] = [];
  const onlyCurrent: string[] = [];
  for (const c of current.cells) {
    const b = findCell(baseline, c.strategy, c.model, c.trace);
    if (b) deltas.push(...cellDeltas(c, b, epsilon));
    else onlyCurrent.push(name(c));
  }
  const onlyBaseline = baseline.cells.filter((b) => !findCell(current, b.strategy, b.model, b.trace)).map(name);
  return { deltas, regressions: deltas.filter((d) => d.regression), onlyCurrent, onlyBaseline };
}
