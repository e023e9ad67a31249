import type { EvalComparison, EvalDelta, EvalMatrixCell, EvalMiss, EvalStat } from '../../shared/api/contract';

/**
 * The eval matrix's logic, apart from how it is drawn: the metrics a user can put in the cells,
 * each cell's value and spread, which threshold misses and baseline regressions concern a cell and
 * metric, and the "different from baseline" filter. Figures come from main (src/shared/eval's
 * aggregate, thresholds and baseline); nothing here recomputes them.
 */

export type MetricId =
  | 'recall'
  | 'constraint'
  | 'decision'
  | 'open_work'
  | 'evidence'
  | 'staleRejection'
  | 'provenance'
  | 'structuralErrors'
  | 'failureRate'
  | 'recovery'
  | 'cost'
  | 'latencyP95';

type Kind = 'rate' | 'count' | 'usd' | 'ms';

export interface MetricDef {
  readonly id: MetricId;
  readonly label: string;
  readonly kind: Kind;
  /** The baseline comparison's name for it; null: not compared. */
  readonly delta: EvalDelta['metric'] | null;
  /** Threshold names (EvalMiss.threshold) that gate it. */
  readonly thresholds: readonly string[];
  /** What a reader must keep in mind, shown under the matrix. */
  readonly caveat: string | null;
}

export const METRICS: readonly MetricDef[] = [
  { id: 'recall', label: 'Recall (all categories)', kind: 'rate', delta: 'recall', thresholds: ['minRecall'], caveat: null },
  {
    id: 'constraint',
    label: 'Recall · constraints',
    kind: 'rate',
    delta: 'constraint',
    thresholds: ['minRecallByCategory.constraint'],
    caveat: null,
  },
  {
    id: 'decision',
    label: 'Recall · decisions',
    kind: 'rate',
    delta: 'decision',
    thresholds: ['minRecallByCategory.decision'],
    caveat: null,
  },
  {
    id: 'open_work',
    label: 'Recall · open work',
    kind: 'rate',
    delta: 'open_work',
    thresholds: ['minRecallByCategory.open_work'],
    caveat: null,
  },
  {
    id: 'evidence',
    label: 'Recall · evidence',
    kind: 'rate',
    delta: 'evidence',
    thresholds: ['minRecallByCategory.evidence'],
    caveat: null,
  },
  {
    id: 'staleRejection',
    label: 'Stale-fact rejection',
    kind: 'rate',
    delta: 'staleRejection',
    thresholds: ['minStaleRejection'],
    caveat: null,
  },
  { id: 'provenance', label: 'Provenance', kind: 'rate', delta: 'provenance', thresholds: ['minProvenance'], caveat: null },
  {
    id: 'structuralErrors',
    label: 'Structural errors (worst run)',
    kind: 'count',
    delta: 'structuralErrors',
    thresholds: ['maxStructuralErrors'],
    caveat: 'Error-level diagnostics of the worst clean run: kept apart from the quality scores.',
  },
  {
    id: 'failureRate',
    label: 'Failure rate',
    kind: 'rate',
    delta: 'failureRate',
    thresholds: ['maxFailureRate'],
    caveat: 'Failed or cancelled clean runs; quality is averaged over the runs that succeeded.',
  },
  {
    id: 'recovery',
    label: 'Recovery under faults',
    kind: 'rate',
    delta: null,
    thresholds: ['minRecovery'],
    caveat: 'Runs under an injected fault (mock models only) that still committed.',
  },
  {
    id: 'cost',
    label: 'Cost per run',
    kind: 'usd',
    delta: 'costUsd',
    thresholds: [],
    caveat: 'Known only where prices were pinned. Never marked as a regression.',
  },
  {
    id: 'latencyP95',
    label: 'p95 latency',
    kind: 'ms',
    delta: 'latencyP95',
    thresholds: [],
    caveat: 'Mock latencies are local timings, not provider latency. Never marked as a regression.',
  },
];

export const metricDef = (id: MetricId): MetricDef => METRICS.find((m) => m.id === id) ?? (METRICS[0] as MetricDef);

export interface CellValue {
  /** null: not measured (every run failed, no fact of the kind, no price). */
  readonly value: number | null;
  /** The spread over repeats, for the quality metrics. */
  readonly spread: EvalStat | null;
}

const QUALITY = new Set<MetricId>(['recall', 'constraint', 'decision', 'open_work', 'evidence', 'staleRejection', 'provenance']);

export function cellValue(c: EvalMatrixCell, metric: MetricId): CellValue {
  if (QUALITY.has(metric)) {
    const s = c.quality[metric as keyof EvalMatrixCell['quality']];
    return { value: s?.mean ?? null, spread: s };
  }
  switch (metric) {
    case 'structuralErrors':
      return { value: c.structural.maxErrorsPerRun, spread: null };
    case 'failureRate':
      return { value: c.failures.rate, spread: null };
    case 'recovery':
      return { value: c.recovery.rate, spread: null };
    case 'cost':
      return { value: c.spend.costPerRun, spread: null };
    default:
      return { value: c.latency.p95, spread: null };
  }
}

export function formatValue(metric: MetricId, v: number | null): string {
  if (v === null) return '—';
  switch (metricDef(metric).kind) {
    case 'rate':
      return `${(v * 100).toFixed(1)} %`;
    case 'count':
      return String(v);
    case 'usd':
      return v === 0 ? '$0' : `$${v < 0.01 ? v.toFixed(4) : v.toFixed(2)}`;
    default:
      return v < 1000 ? `${Math.round(v)} ms` : `${(v / 1000).toFixed(1)} s`;
  }
}

/** "± 2.1 pts · 33.0–40.0 % · 3 repeats"; null when there is no spread to speak of. */
export function spreadText(s: EvalStat | null): string | null {
  if (s === null) return null;
  if (s.n < 2) return '1 repeat';
  return `± ${(s.stddev * 100).toFixed(1)} pts · ${(s.min * 100).toFixed(1)}–${(s.max * 100).toFixed(1)} % · ${s.n} repeats`;
}

/** What the cell field shows: a trace's cells, or the overall ones (null). */
export const cellKey = (strategy: string, model: string): string => `${strategy}\u0000${model}`;

export function cellsOf(cells: readonly EvalMatrixCell[], trace: string | null): Map<string, EvalMatrixCell> {
  return new Map(cells.filter((c) => c.trace === trace).map((c) => [cellKey(c.strategy, c.model), c]));
}

/** Thresholds are checked on the overall cells only (docs/eval.md): a per-trace cell has none. */
export function cellMisses(misses: readonly EvalMiss[] | null, c: EvalMatrixCell, metric?: MetricId): EvalMiss[] {
  if (misses === null || c.trace !== null) return [];
  const names = metric === undefined ? null : new Set(metricDef(metric).thresholds);
  return misses.filter((m) => m.strategy === c.strategy && m.model === c.model && (names === null || names.has(m.threshold)));
}

const sameCell = (d: EvalDelta, c: EvalMatrixCell): boolean => d.strategy === c.strategy && d.model === c.model && d.trace === c.trace;

export function cellRegressions(cmp: EvalComparison | null, c: EvalMatrixCell, metric?: MetricId): EvalDelta[] {
  if (cmp === null) return [];
  const name = metric === undefined ? null : metricDef(metric).delta;
  return cmp.regressions.filter((d) => sameCell(d, c) && (metric === undefined || d.metric === name));
}

export function cellDelta(cmp: EvalComparison | null, c: EvalMatrixCell, metric: MetricId): EvalDelta | null {
  const name = metricDef(metric).delta;
  if (cmp === null || name === null) return null;
  return cmp.deltas.find((d) => sameCell(d, c) && d.metric === name) ?? null;
}

/** The cell is in the current results and not in the baseline. */
export function onlyCurrent(cmp: EvalComparison | null, c: EvalMatrixCell): boolean {
  return cmp !== null && !cmp.deltas.some((d) => sameCell(d, c));
}

const EPS = 1e-9;

/**
 * "Different from baseline" for the metric shown: the baseline lacks the cell, the cell regressed
 * on any metric, or this metric's value moved (or became, or stopped being, measurable). Timing
 * and cost move on every run, so they count only when they are the metric shown.
 */
export function differs(cmp: EvalComparison | null, c: EvalMatrixCell, metric: MetricId): boolean {
  if (cmp === null) return false;
  if (onlyCurrent(cmp, c) || cellRegressions(cmp, c).length > 0) return true;
  const d = cellDelta(cmp, c, metric);
  if (d === null) return false;
  if ((d.baseline === null) !== (d.current === null)) return true;
  return d.delta !== null && Math.abs(d.delta) > EPS;
}

export interface Grid {
  readonly strategies: readonly string[];
  readonly models: readonly string[];
  readonly cells: ReadonlyMap<string, EvalMatrixCell>;
  /** Cells the filter hid. */
  readonly hidden: number;
}

/** The strategies × models to draw; with `diffOnly`, only differing cells, and rows and columns that keep one. */
export function grid(
  agg: { readonly cells: readonly EvalMatrixCell[]; readonly strategies: readonly string[]; readonly models: readonly string[] },
  trace: string | null,
  cmp: EvalComparison | null,
  metric: MetricId,
  diffOnly: boolean,
): Grid {
  const all = cellsOf(agg.cells, trace);
  if (!diffOnly || cmp === null) {
    const strategies = agg.strategies.filter((s) => agg.models.some((m) => all.has(cellKey(s, m))));
    const models = agg.models.filter((m) => agg.strategies.some((s) => all.has(cellKey(s, m))));
    return { strategies, models, cells: all, hidden: 0 };
  }
  const kept = new Map([...all].filter(([, c]) => differs(cmp, c, metric)));
  const strategies = agg.strategies.filter((s) => agg.models.some((m) => kept.has(cellKey(s, m))));
  const models = agg.models.filter((m) => agg.strategies.some((s) => kept.has(cellKey(s, m))));
  return { strategies, models, cells: kept, hidden: all.size - kept.size };
}

/** The delta in the metric's unit, signed: "+4.2 pts", "−1", "+$0.0100", "+35 ms". */
export function deltaText(metric: MetricId, d: number | null): string | null {
  if (d === null || Math.abs(d) <= EPS) return d === null ? null : '±0';
  const sign = d > 0 ? '+' : '−';
  const a = Math.abs(d);
  switch (metricDef(metric).kind) {
    case 'rate':
      return `${sign}${(a * 100).toFixed(1)} pts`;
    case 'count':
      return `${sign}${a}`;
    case 'usd':
      return `${sign}$${a.toFixed(4)}`;
    default:
      return `${sign}${Math.round(a)} ms`;
  }
}
