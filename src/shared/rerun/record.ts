import { z } from 'zod';
import { Block, ToolSchema } from '../model/content';
import { Diagnostic } from '../model/diagnostic';
import { Finish, Usage } from '../model/event';
import { Item } from '../model/item';

/*
 * The sidecar results file of re-runs: one JSON line per run, appended, never rewritten. A run
 * carries everything needed to show and compare it without the provider: the pinned configuration
 * (never a key), every request with the exact body sent, usage, cost, latency, the candidate view
 * and its diagnostics. Format version 1 (docs/rerun.md).
 */

export const RUNS_FORMAT = 'palimpsest-runs';
export const RUNS_VERSION = 1;

export const RunTarget = z.union([z.object({ compaction: z.string() }), z.object({ request: z.number().int().nonnegative() })]);
export type RunTarget = z.infer<typeof RunTarget>;

/** Identifies the source file so a results file is never applied to a different session. */
export const SourceIdentity = z.object({
  path: z.string(),
  size: z.number().int().nonnegative(),
  /** sha256 of size + first and last 64 KiB: cheap, and changes when an append-only log grows. */
  fingerprint: z.string(),
});
export type SourceIdentity = z.infer<typeof SourceIdentity>;

export const CallRecord = z.object({
  stage: z.string(),
  label: z.string(),
  model: z.string(),
  ok: z.boolean(),
  finish: Finish.nullable(),
  usage: Usage.nullable(),
  latencyMs: z.number().nonnegative(),
  attempts: z.number().int().nonnegative(),
  error: z.object({ kind: z.string(), message: z.string(), status: z.number().optional(), window: z.number().optional() }).nullable(),
  /** The exact request bodies sent (one per attempt; keys and auth headers are never recorded). */
  sent: z.array(z.object({ url: z.string(), body: z.string() })).default([]),
  costUsd: z.number().nonnegative().nullable().default(null),
});
export type CallRecord = z.infer<typeof CallRecord>;

export const CandidateViewRecord = z.object({
  system: z.array(Block).nullable(),
  tools: z.array(ToolSchema).nullable(),
  items: z.array(Item),
});

export const RunRecord = z.object({
  format: z.literal(RUNS_FORMAT),
  v: z.literal(RUNS_VERSION),
  runId: z.string(),
  /** Runs started together (a --repeat series) share a batch id. */
  batchId: z.string(),
  repeat: z.object({ index: z.number().int().nonnegative(), of: z.number().int().positive() }),
  at: z.string(),
  source: SourceIdentity,
  /**
   * The captures joined to the session when the run was made (`--capture`): the run's source was the
   * joined session, and a request target indexes its joined list. Empty: the log alone.
   */
  captures: z.array(SourceIdentity).default([]),
  branch: z.string(),
  target: RunTarget,
  strategy: z.string(),
  options: z.record(z.string(), z.unknown()),
  /** The summarization chain as pinned (no keys). Empty for the model-free baselines. */
  models: z.array(z.record(z.string(), z.unknown())),
  /** True when any answer came from the mock provider: its text is not a model's. */
  mock: z.boolean(),
  budget: z.object({ window: z.number().int().positive(), maxOutput: z.number().int().positive().nullable() }),
  outcome: z.enum(['committed', 'failed', 'fallback', 'cancelled']),
  error: z.string().nullable(),
  summary: z.string().nullable(),
  view: CandidateViewRecord.nullable(),
  notes: z.array(z.string()),
  tokens: z.object({ before: z.number().int().nonnegative(), after: z.number().int().nonnegative().nullable(), counter: z.string() }),
  calls: z.array(CallRecord),
  totals: z.object({
    requests: z.number().int().nonnegative(),
    input: z.number().int().nonnegative(),
    output: z.number().int().nonnegative(),
    cacheRead: z.number().int().nonnegative(),
    cacheWrite: z.number().int().nonnegative(),
    costUsd: z.number().nonnegative().nullable(),
    /** Sum of the calls' latencies (provider time, retries included). */
    latencyMs: z.number().nonnegative(),
    /** Wall time of the whole run: with concurrent maps it is below latencyMs. */
    wallMs: z.number().nonnegative(),
  }),
  mapreduce: z.unknown().nullable(),
  diagnostics: z.array(Diagnostic),
});
export type RunRecord = z.infer<typeof RunRecord>;

/** Identities listed in the same order-free set: a run made with these captures. */
export function sameCaptures(a: readonly SourceIdentity[], b: readonly SourceIdentity[]): boolean {
  const key = (xs: readonly SourceIdentity[]): string =>
    xs
      .map((x) => `${x.path}\0${x.fingerprint}`)
      .sort()
      .join('\n');
  return key(a) === key(b);
}

/**
 * Whether a run's target names the same thing in a session read with these captures: a compaction
 * id is the log's either way, a request index is of the joined list only with the same captures.
 */
export function sameTargetSpace(run: Pick<RunRecord, 'target' | 'captures'>, captures: readonly SourceIdentity[]): boolean {
  return 'compaction' in run.target || sameCaptures(run.captures, captures);
}
