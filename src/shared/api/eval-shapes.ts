import { z } from 'zod';
import { Count, Rate } from './scalars';
import { QUALITY_METRICS, type Aggregate, type QualityMetric } from '../eval/aggregate';
import type { BaselineComparison } from '../eval/baseline';
import type { Miss } from '../eval/thresholds';

/**
 * The eval matrix as the API carries it: src/shared/eval's Aggregate, Miss and BaselineComparison
 * in zod, checked at compile time against those types (the `_agree*` lines below), so the two
 * cannot drift apart silently. Definitions of every figure: docs/eval.md, "Aggregation".
 */

/** Mean, min, max and sample stddev over repeats (n: how many repeats were measured). */
export const EvalStat = z.object({
  mean: z.number(),
  min: z.number(),
  max: z.number(),
  stddev: z.number().nonnegative(),
  n: z.number().int().positive(),
});
export type EvalStat = z.infer<typeof EvalStat>;

const qualityShape = Object.fromEntries(QUALITY_METRICS.map((m) => [m, EvalStat.nullable()])) as Record<
  QualityMetric,
  z.ZodNullable<typeof EvalStat>
>;

export const EvalMatrixCell = z.object({
  strategy: z.string(),
  model: z.string(),
  /** null: over all traces. */
  trace: z.string().nullable(),
  /** Clean runs (no injected fault). */
  runs: Count,
  quality: z.object(qualityShape),
  /** The judge's grade; never a quality score, never ground truth. */
  judge: EvalStat.nullable(),
  failures: z.object({ count: Count, of: Count, rate: Rate.nullable() }),
  fallbacks: Count,
  recovery: z.object({ committed: Count, of: Count, rate: Rate.nullable() }),
  structural: z.object({
    error: Count,
    warning: Count,
    info: Count,
    maxErrorsPerRun: Count.nullable(),
    rules: z.record(z.string(), Count),
  }),
  spend: z.object({
    runs: Count,
    requests: Count,
    input: Count,
    output: Count,
    cacheRead: Count,
    cacheWrite: Count,
    costUsd: z.number().nonnegative().nullable(),
    costPerRun: z.number().nonnegative().nullable(),
  }),
  latency: z.object({ p50: z.number().nonnegative().nullable(), p95: z.number().nonnegative().nullable(), calls: Count }),
  wall: z.object({ p50: z.number().nonnegative().nullable(), p95: z.number().nonnegative().nullable() }),
  /** Some run of the cell was answered by the mock provider: scripted, not a model. */
  mock: z.boolean(),
  /** Scored clean runs that missed each fact (keyed "trace::id"; for a stale fact: asserted it). */
  missed: z.record(z.string(), Count),
});
export type EvalMatrixCell = z.infer<typeof EvalMatrixCell>;

export const EvalAggregate = z.object({
  /** Per trace first, then the overall cells (trace null). */
  cells: z.array(EvalMatrixCell),
  strategies: z.array(z.string()),
  models: z.array(z.string()),
  traces: z.array(z.string()),
  runs: Count,
});
export type EvalAggregate = z.infer<typeof EvalAggregate>;

export const EvalMiss = z.object({
  strategy: z.string(),
  model: z.string(),
  /** minRecall, minRecallByCategory.decision, maxFailureRate… */
  threshold: z.string(),
  actual: z.number().nullable(),
  limit: z.number(),
  words: z.string(),
});
export type EvalMiss = z.infer<typeof EvalMiss>;

export const DELTA_METRICS = [...QUALITY_METRICS, 'failureRate', 'structuralErrors', 'costUsd', 'latencyP95'] as const;

export const EvalDelta = z.object({
  strategy: z.string(),
  model: z.string(),
  trace: z.string().nullable(),
  metric: z.enum(DELTA_METRICS),
  baseline: z.number().nullable(),
  current: z.number().nullable(),
  delta: z.number().nullable(),
  regression: z.boolean(),
  words: z.string().nullable(),
});
export type EvalDelta = z.infer<typeof EvalDelta>;

export const EvalComparison = z.object({
  deltas: z.array(EvalDelta),
  regressions: z.array(EvalDelta),
  /** Cells only one side has ("strategy × model" [trace]). */
  onlyCurrent: z.array(z.string()),
  onlyBaseline: z.array(z.string()),
});
export type EvalComparison = z.infer<typeof EvalComparison>;

// --- compile-time agreement with src/shared/eval -------------------------------------------------

type DeepReadonly<T> = T extends (infer E)[]
  ? readonly DeepReadonly<E>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;
const _agreeAggregate: DeepReadonly<z.input<typeof EvalAggregate>> = {} as Aggregate;
const _agreeMiss: DeepReadonly<z.input<typeof EvalMiss>> = {} as Miss;
const _agreeComparison: DeepReadonly<z.input<typeof EvalComparison>> = {} as BaselineComparison;
