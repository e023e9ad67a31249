import type { RunRecord } from '../rerun/record';
import type { CellRef, JudgeVerdict } from './results';
import type { RunScore } from './score';
import { percentile, stat, type Stat } from './stats';

/*
 * Scored runs → the matrix: one cell per strategy × model, per trace and over all traces
 * (docs/eval.md, "Aggregation"). Definitions:
 * - Quality metrics use clean runs (no injected fault) that did not fail. The spread is over
 *   repeats: for each repeat index, the mean of the metric over the cell's targets; then the mean,
 *   min, max and sample stddev of those per-repeat means. Targets differ far more than repeats do,
 *   and pooling them would pass that difference off as run-to-run noise.
 * - failures: clean runs that failed or were cancelled / clean runs. A strategy that fails on the
 *   hard targets has its quality averaged over the easy ones only — read the two together.
 * - recovery: runs under an injected fault that still committed / runs under a fault.
 * - spend (tokens, requests, cost) is over every run, faults included: it is what was paid. Cost
 *   is null when any run that made requests has an unknown cost (no prices pinned).
 * - latency p50/p95: over the calls of clean runs (nearest rank); wall: over clean runs' wall time.
 */

export interface ScoredRun {
  readonly cell: CellRef;
  readonly run: Pick<RunRecord, 'outcome' | 'totals' | 'calls' | 'mock'>;
  readonly score: RunScore;
  readonly judge?: JudgeVerdict | null;
}

export const QUALITY_METRICS = ['recall', 'constraint', 'decision', 'open_work', 'evidence', 'staleRejection', 'provenance'] as const;
export type QualityMetric = (typeof QUALITY_METRICS)[number];

export interface MatrixCell {
  readonly strategy: string;
  readonly model: string;
  /** null: over all traces. */
  readonly trace: string | null;
  /** Clean runs (no injected fault). */
  readonly runs: number;
  readonly quality: Readonly<Record<QualityMetric, Stat | null>>;
  /** The judge's grade (score, or pass as 1/0) over repeats; null when no judge ran. Not a quality score. */
  readonly judge: Stat | null;
  readonly failures: { readonly count: number; readonly of: number; readonly rate: number | null };
  readonly fallbacks: number;
  readonly recovery: { readonly committed: number; readonly of: number; readonly rate: number | null };
  readonly structural: {
    readonly error: number;
    readonly warning: number;
    readonly info: number;
    /** Error-severity diagnostics of the worst clean run; null without clean runs. */
    readonly maxErrorsPerRun: number | null;
    readonly rules: Readonly<Record<string, number>>;
  };
  readonly spend: {
    readonly runs: number;
    readonly requests: number;
    readonly input: number;
    readonly output: number;
    readonly cacheRead: number;
    readonly cacheWrite: number;
    readonly costUsd: number | null;
    readonly costPerRun: number | null;
  };
  readonly latency: { readonly p50: number | null; readonly p95: number | null; readonly calls: number };
  readonly wall: { readonly p50: number | null; readonly p95: number | null };
  readonly mock: boolean;
  /**
   * For each fact (keyed factKey(trace, id)), how many scored clean runs missed it — for a stale
   * fact, how many asserted it as current. Facts no run missed are absent.
   */
  readonly missed: Readonly<Record<string, number>>;
}

/** The key of a fact across traces (fact ids are unique within a facts file only). */
export const factKey = (trace: string, id: string): string => `${trace}::${id}`;

export interface Aggregate {
  /** Per trace first (in trace order), then the overall cells; strategies and models in first-seen order. */
  readonly cells: readonly MatrixCell[];
  readonly strategies: readonly string[];
  readonly models: readonly string[];
  readonly traces: readonly string[];
  readonly runs: number;
}

function metricOf(s: RunScore, m: QualityMetric): number | null {
  if (m === 'recall') return s.recall.overall;
  if (m === 'staleRejection') return s.staleRejection;
  if (m === 'provenance') return s.provenance;
  return s.recall[m];
}

function judgeValue(j: JudgeVerdict | null | undefined): number | null {
  if (!j || j.error !== null) return null;
  return j.score ?? (j.pass === null ? null : j.pass ? 1 : 0);
}

/** Spread over repeats of the per-repeat mean over targets (see above). */
function overRepeats(runs: readonly ScoredRun[], value: (r: ScoredRun) => number | null): Stat | null {
  const byRepeat = new Map<number, number[]>();
  for (const r of runs) {
    const v = value(r);
    if (v === null) continue;
    const list = byRepeat.get(r.cell.repeat) ?? [];
    list.push(v);
    byRepeat.set(r.cell.repeat, list);
  }
  return stat([...byRepeat.values()].map((vs) => vs.reduce((a, b) => a + b, 0) / vs.length));
}

const uniq = (xs: readonly string[]): string[] => [...new Set(xs)];

function cellOf(strategy: string, model: string, trace: string | null, all: readonly ScoredRun[]): MatrixCell {
  const clean = all.filter((r) => r.cell.fault === null);
  const faulted = all.filter((r) => r.cell.fault !== null);
  const quality = {} as Record<QualityMetric, Stat | null>;
  for (const m of QUALITY_METRICS) {
    quality[m] = overRepeats(clean, (r) => (r.score.failed ? null : metricOf(r.score, m)));
  }
  const failed = clean.filter((r) => r.score.failed).length;
  const committed = faulted.filter((r) => !r.score.failed).length;
  const rules: Record<string, number> = {};
  let error = 0,
    warning = 0,
    info = 0;
  for (const r of clean) {
    error += r.score.structural.error;
    warning += r.score.structural.warning;
    info += r.score.structural.info;
    for (const [id, n] of Object.entries(r.score.structural.rules)) rules[id] = (rules[id] ?? 0) + n;
  }
  let requests = 0,
    input = 0,
    output = 0,
    cacheRead = 0,
    cacheWrite = 0;
  let cost: number | null = 0;
  for (const r of all) {
    const t = r.run.totals;
    requests += t.requests;
    input += t.input;
    output += t.output;
    cacheRead += t.cacheRead;
    cacheWrite += t.cacheWrite;
    if (t.costUsd === null) cost = t.requests > 0 ? null : cost;
    else if (cost !== null) cost += t.costUsd;
  }
  const missed: Record<string, number> = {};
  for (const r of clean) {
    if (r.score.failed) continue;
    for (const b of Object.values(r.score.facts))
      for (const id of b.missed) missed[factKey(r.cell.trace, id)] = (missed[factKey(r.cell.trace, id)] ?? 0) + 1;
  }
  const latencies = clean.flatMap((r) => r.run.calls.map((c) => c.latencyMs));
  const walls = clean.map((r) => r.run.totals.wallMs);
  return {
    strategy,
    model,
    trace,
    runs: clean.length,
    quality,
    judge: overRepeats(clean, (r) => judgeValue(r.judge)),
    failures: { count: failed, of: clean.length, rate: clean.length === 0 ? null : failed / clean.length },
    fallbacks: clean.filter((r) => r.score.fallback).length,
    recovery: { committed, of: faulted.length, rate: faulted.length === 0 ? null : committed / faulted.length },
    structural: {
      error,
      warning,
      info,
      maxErrorsPerRun: clean.length === 0 ? null : Math.max(...clean.map((r) => r.score.structural.error)),
      rules,
    },
    spend: {
      runs: all.length,
      requests,
      input,
      output,
      cacheRead,
      cacheWrite,
      costUsd: cost,
      costPerRun: cost === null || all.length === 0 ? null : cost / all.length,
    },
    latency: { p50: percentile(latencies, 50), p95: percentile(latencies, 95), calls: latencies.length },
    wall: { p50: percentile(walls, 50), p95: percentile(walls, 95) },
    mock: all.some((r) => r.run.mock),
    missed,
  };
}

export function aggregate(runs: readonly ScoredRun[]): Aggregate {
  const strategies = uniq(runs.map((r) => r.cell.strategy));
  const models = uniq(runs.map((r) => r.cell.model));
  const traces = uniq(runs.map((r) => r.cell.trace));
  const cells: MatrixCell[] = [];
  for (const trace of [...traces, null]) {
    for (const s of strategies) {
      for (const m of models) {
        const mine = runs.filter((r) => r.cell.strategy === s && r.cell.model === m && (trace === null || r.cell.trace === trace));
        if (mine.length > 0) cells.push(cellOf(s, m, trace, mine));
      }
    }
  }
  return { cells, strategies, models, traces, runs: runs.length };
}

export function findCell(agg: Aggregate, strategy: string, model: string, trace: string | null = null): MatrixCell | undefined {
  return agg.cells.find((c) => c.strategy === strategy && c.model === model && c.trace === trace);
}
