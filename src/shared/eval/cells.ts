import type { PinnedModel } from '../rerun/pinned';
import type { RunTarget } from '../rerun/record';
import { targetLabel } from './facts';
import { canonicalJson, hash32 } from './hash';
import { fail, ok, type Result } from './result';
import { NONE_MODEL, strategyLabel, type EvalSpec, type FaultScenario, type SpecTrace } from './spec';

/*
 * Cell expansion (docs/eval.md, "Cells"). A cell is one run: one target of one trace, one strategy
 * with its options, one model, one fault scenario (or none), one repeat. The rule:
 *
 *   for repeat r in 0..repeats-1                      (outermost: see below)
 *     for each resolved trace, in spec order (a glob's files sorted), each of its targets
 *       for each strategy, in spec order
 *         needsModel false → one cell with model 'none', only for r = 0 (deterministic: repeating
 *                            it measures nothing), whatever the model list says
 *         needsModel true  → one cell per model of the list other than 'none'
 *                            (an error if the list has no such model)
 *           for a mock model, one more cell per fault scenario that applies to it
 *
 * Repeats are the outermost loop so that a run stopped early (a spending limit, Ctrl-C) has covered
 * every cell once before it repeats any. A cell's key is stable across machines and runs: --resume
 * skips the keys already in the results file, and --shard k/n takes the keys whose hash falls in
 * shard k, so the union of all shards is every cell exactly once whatever order they run in.
 */

/** One trace of the spec with its glob expanded and its targets resolved (main does both). */
export interface ResolvedTrace {
  /** Index of the entry in spec.traces. */
  readonly trace: number;
  /** The file, relative to the spec file, with '/' separators: part of every cell key. */
  readonly path: string;
  /** The targets to run: the spec's list, or every compaction of the file for 'compactions'. */
  readonly targets: readonly RunTarget[];
}

export interface StrategyInfo {
  readonly needsModel: boolean;
}
/** The strategy registry as expandCells needs it: undefined for an unknown id. */
export type StrategyLookup = (id: string) => StrategyInfo | undefined;

export interface Cell {
  readonly key: string;
  readonly trace: {
    readonly index: number;
    readonly path: string;
    readonly spec: SpecTrace;
  };
  readonly target: RunTarget;
  readonly strategy: {
    readonly id: string;
    readonly label: string;
    readonly options: Readonly<Record<string, unknown>>;
    readonly needsModel: boolean;
  };
  /** label 'none' with pinned null for the model-free strategies. */
  readonly model: { readonly label: string; readonly pinned: PinnedModel | null };
  readonly fault: FaultScenario | null;
  readonly repeat: { readonly index: number; readonly of: number };
}

export interface CellKeyParts {
  readonly trace: string;
  readonly target: RunTarget;
  readonly strategy: string;
  readonly options: Readonly<Record<string, unknown>>;
  readonly model: string;
  readonly fault?: string | null;
  readonly repeat: number;
}

/**
 * The stable id of a cell: canonical JSON of its parts (options with sorted keys). The strategy is
 * keyed by id + options, not by label, so relabelling does not invalidate results; a model by its
 * label (change a model's settings and keep its label, and --resume takes old results as current).
 */
export function cellKey(p: CellKeyParts): string {
  return canonicalJson(['cell/1', p.trace, targetLabel(p.target), p.strategy, p.options, p.model, p.fault ?? null, p.repeat]);
}

/** The shard (1..n) a cell key belongs to: a hash of the key, not its position. */
export function shardOf(key: string, n: number): number {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`shard count must be a positive integer, got ${n}`);
  return (hash32(key) % n) + 1;
}

export interface Shard {
  readonly k: number;
  readonly n: number;
}

/** "--shard k/n": 1 ≤ k ≤ n. */
export function parseShard(text: string): Result<Shard> {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (!m) return fail(`--shard takes k/n (for example 2/4), got "${text}"`);
  const k = Number(m[1]);
  const n = Number(m[2]);
  if (n < 1 || k < 1 || k > n) return fail(`--shard ${text}: k must be between 1 and n, and n at least 1`);
  return ok({ k, n });
}

export const inShard = (key: string, shard: Shard | null): boolean => shard === null || shardOf(key, shard.n) === shard.k;

/** The fault scenarios a model's cells get: only a mock model's, and only those that name it (or name none). */
function faultsFor(spec: EvalSpec, label: string, pinned: PinnedModel | null): FaultScenario[] {
  if (pinned?.provider !== 'mock') return [];
  return spec.faults.filter((f) => f.models === undefined || f.models.includes(label));
}

/** Every cell of a spec, in run order (see the rule above), or why the spec cannot run. */
export function expandCells(spec: EvalSpec, traces: readonly ResolvedTrace[], lookup: StrategyLookup): Result<Cell[]> {
  const problems: string[] = [];
  const strategies = spec.strategies.map((s, i) => {
    const info = lookup(s.id);
    if (!info) problems.push(`strategies[${i}]: unknown strategy "${s.id}"`);
    return { id: s.id, label: strategyLabel(s), options: s.options, needsModel: info?.needsModel ?? false };
  });
  const models = spec.models.filter((m) => m.label !== NONE_MODEL);
  const needy = strategies.filter((s) => s.needsModel);
  if (needy.length > 0 && models.length === 0)
    problems.push(`${needy.map((s) => s.label).join(', ')} need${needy.length === 1 ? 's' : ''} a model, and the spec lists only "none"`);
  for (const t of traces)
    if (!spec.traces[t.trace]) problems.push(`resolved trace ${t.path} points at traces[${t.trace}], which the spec does not have`);
  if (problems.length > 0) return fail(problems.join('\n'));

  const cells: Cell[] = [];
  const seen = new Set<string>();
  for (let r = 0; r < spec.repeats; r++) {
    for (const t of traces) {
      const specTrace = spec.traces[t.trace] as SpecTrace;
      for (const target of t.targets) {
        for (const s of strategies) {
          if (!s.needsModel && r > 0) continue;
          const runs = s.needsModel
            ? models.flatMap((m) => [null, ...faultsFor(spec, m.label, m.pinned)].map((fault) => ({ model: m, fault })))
            : [{ model: { label: NONE_MODEL, pinned: null }, fault: null }];
          for (const { model, fault } of runs) {
            const key = cellKey({
              trace: t.path,
              target,
              strategy: s.id,
              options: s.options,
              model: model.label,
              fault: fault?.name ?? null,
              repeat: r,
            });
            if (seen.has(key)) continue; // the same file reached by two trace entries runs once
            seen.add(key);
            cells.push({
              key,
              trace: { index: t.trace, path: t.path, spec: specTrace },
              target,
              strategy: s,
              model,
              fault,
              repeat: { index: r, of: s.needsModel ? spec.repeats : 1 },
            });
          }
        }
      }
    }
  }
  return ok(cells);
}
