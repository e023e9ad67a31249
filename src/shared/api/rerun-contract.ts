import { z } from 'zod';
import { BranchName, Count, JobId, JobState, Millis, SessionId, Tokens } from './scalars';
import { ModelParams, ModelPrices, ProviderId } from '../rerun/pinned';
import { RunTarget } from '../rerun/record';
import { Comparison } from './compare-contract';
import { ApiKeyInput, KeyProvider, KeyStatusRow, KeyStoreStatus, ProviderKeyRow } from './rerun-keys-contract';

/**
 * The re-run and compare part of the API contract (docs/rerun.md): strategies, jobs that re-run a
 * compaction (or any request) against pinned models, their progress, the session's runs from its
 * results file, the side-by-side comparison, and which provider keys are set. Spread into CONTRACT
 * by ./contract.ts; the method names are in ./methods.ts. Semantics mirror `palimpsest rerun | runs
 * | compare` (src/main/cli/rerun.ts).
 *
 * Like ./library-contract.ts this module is evaluated while ./contract.ts is, so it imports nothing
 * from ./contract (its small schemas come from ./scalars.ts). The comparison's shapes are in
 * ./compare-contract.ts, the provider keys' in ./rerun-keys-contract.ts.
 */

export * from './compare-contract';
export * from './rerun-keys-contract';

/** Most models in one summarization chain, runs in one comparison, repeats of one job. */
export const MAX_CHAIN = 8;
export const MAX_COMPARE_RUNS = 50;
export const MAX_REPEAT = 100;
/** Longest a `watchRerun` call waits for news, in ms (below every transport's request timeout). */
export const MAX_WATCH_WAIT_MS = 25_000;

/** A compaction by id, or any request by index (the same targets as the CLI's --compaction / --request). */
export const RerunTarget = z.union([z.object({ compaction: z.string().min(1).max(200) }).strict(), z.object({ request: Count }).strict()]);
export type RerunTarget = z.infer<typeof RerunTarget>;
// The contract's target and the results file's are the same shape.
const _sameTarget: z.infer<typeof RunTarget> = {} as RerunTarget;

/**
 * A model of the summarization chain: "provider:model" ("mock:summarizer", "openai:llama3.1:8b"),
 * or an object with an endpoint and a window. `keyEnv` may only name a `*_API_KEY` variable: the
 * renderer must not be able to send an arbitrary environment variable to an endpoint it chose.
 */
export const ModelSpec = z.union([
  z.string().min(3).max(300),
  z
    .object({
      provider: ProviderId,
      model: z.string().min(1).max(200),
      baseUrl: z
        .url({ protocol: /^https?$/ })
        .max(2000)
        .optional(),
      window: z.number().int().positive().max(100_000_000).optional(),
      keyEnv: z
        .string()
        .regex(/^[A-Z][A-Z0-9_]*_API_KEY$/, 'a *_API_KEY environment variable name')
        .optional(),
      params: ModelParams.optional(),
      prices: ModelPrices.optional(),
    })
    .strict(),
]);
export type ModelSpec = z.infer<typeof ModelSpec>;

/** A model of the chain kept in settings: the object form of ModelSpec, always. */
export type PinnedModelRow = Extract<ModelSpec, object>;

/** The re-run settings: the summarization chain every re-run starts from (settings.json in the data folder). */
export const RerunSettings = z.object({
  /** Where they are kept. */
  file: z.string(),
  /** cosh: empty, the session's own model; else only these, in order. */
  chain: z.array(ModelSpec.options[1]).max(MAX_CHAIN),
  /** Why the file could not be used (the chain is then empty), in a sentence; null: fine or absent. */
  problem: z.string().nullable(),
});

export const StrategyRow = z.object({
  id: z.string(),
  title: z.string(),
  /** The compaction system it follows, by its number in docs/sources.md ("000", "001", "002", "004"), or "baseline". */
  source: z.string(),
  needsModel: z.boolean(),
});
export type StrategyRow = z.infer<typeof StrategyRow>;

const SeverityCounts = z.object({ error: Count, warning: Count, info: Count });

/** A strategy's options as a run recorded them (JSON values; the strategy validated them). */
const StrategyOptions = z.record(z.string(), z.unknown());

/** One run of the results file, without its candidate view and request bodies (compare reads those). */
export const RunRow = z.object({
  runId: z.string(),
  batchId: z.string(),
  repeat: z.object({ index: Count, of: z.number().int().positive() }),
  /** ISO 8601. */
  at: z.string(),
  branch: z.string(),
  target: RerunTarget,
  strategy: z.string(),
  options: StrategyOptions,
  /** "provider:model" of each pinned model, in chain order; empty for the model-free baselines. */
  models: z.array(z.string()),
  /** Answers came from the mock provider: the text is not a model's. */
  mock: z.boolean(),
  window: z.number().int().positive(),
  maxOutput: z.number().int().positive().nullable(),
  outcome: z.enum(['committed', 'failed', 'fallback', 'cancelled']),
  error: z.string().nullable(),
  notes: z.array(z.string()),
  tokens: z.object({ before: Tokens, after: Tokens.nullable(), counter: z.string() }),
  totals: z.object({
    requests: Count,
    input: Tokens,
    output: Tokens,
    cacheRead: Tokens,
    cacheWrite: Tokens,
    costUsd: z.number().nonnegative().nullable(),
    latencyMs: Millis,
    wallMs: Millis,
  }),
  diagnostics: SeverityCounts,
  /** The session file changed since this run (its fingerprint differs): the run's source may no longer be the session's. */
  stale: z.boolean(),
});
export type RunRow = z.infer<typeof RunRow>;

export const RerunJobState = JobState;
export type RerunJobState = JobState;

/** Where a job is: the strategy's stage, maps done/total, which repeat. */
export const RerunStage = z.object({
  stage: z.string(),
  done: Count,
  total: Count.nullable(),
  /** 0-based repeat and the number of repeats. */
  repeat: z.object({ index: Count, of: z.number().int().positive() }),
  message: z.string().nullable(),
});
export type RerunStage = z.infer<typeof RerunStage>;

export const RerunJob = z.object({
  jobId: JobId,
  sessionId: SessionId,
  state: RerunJobState,
  strategy: z.string(),
  /** The options the job was started with, as sent. */
  options: StrategyOptions,
  target: RerunTarget,
  branch: z.string(),
  models: z.array(z.string()),
  repeat: z.number().int().positive(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  stage: RerunStage.nullable(),
  /** Runs finished so far (each is appended to the results file as it finishes). */
  runs: z.array(RunRow),
  /** Why the job failed, in a sentence (it could not start, or broke). */
  error: z.string().nullable(),
  /** The results file; null until the job has resolved it. */
  file: z.string().nullable(),
  /** What the source view cannot know from the log (as `palimpsest rerun --json` lists). */
  unknowns: z.array(z.string()),
});
export type RerunJob = z.infer<typeof RerunJob>;

/**
 * Progress of a re-run job, one of the ProgressEvent union (./contract.ts). `index` numbers the
 * job's events from 0, so a watcher asks for what came after the last one it saw. A finished run
 * arrives as an event with `run`; the last event has a final phase.
 */
export const RerunProgressEvent = z.object({
  operation: z.literal('rerun'),
  jobId: JobId,
  sessionId: SessionId,
  index: Count,
  phase: z.enum(['running', 'done', 'failed', 'cancelled']),
  stage: RerunStage.nullable(),
  run: RunRow.nullable(),
  error: z.string().nullable(),
});
export type RerunProgressEvent = z.infer<typeof RerunProgressEvent>;

// --- methods --------------------------------------------------------------------------------

const WithSession = z.object({ sessionId: SessionId });

export const RERUN_CONTRACT = {
  /** Every strategy a re-run can choose, in the order lists show them. */
  listStrategies: {
    input: z.object({}),
    output: z.object({ strategies: z.array(StrategyRow) }),
  },
  /** The session's runs from its results file, oldest first. Bad lines are reported, not fatal. */
  listRuns: {
    input: WithSession,
    output: z.object({
      file: z.string(),
      runs: z.array(RunRow),
      problems: z.array(z.object({ line: z.number().int().positive(), message: z.string() })),
    }),
  },
  /**
   * Starts a job; progress comes as ProgressEvents (`watchRerun` on every transport). What cannot
   * start (unknown strategy, target or branch, a bad model) is an error value here; what fails
   * while it runs (no window known, no key) is the job's `failed` event.
   */
  startRerun: {
    input: WithSession.extend({
      branch: BranchName.optional(),
      target: RerunTarget,
      strategy: z.string().min(1).max(100),
      options: z.record(z.string().max(100), z.json()).optional(),
      /** The summarization chain; empty or absent: the session's own model (cosh). Ignored by model-free strategies. */
      models: z.array(ModelSpec).max(MAX_CHAIN).optional(),
      window: z.number().int().positive().max(100_000_000).optional(),
      maxOutput: z.number().int().positive().max(10_000_000).optional(),
      repeat: z.number().int().positive().max(MAX_REPEAT).optional(),
      /** The in-process mock's fixed latency per request (to watch progress, or try cancelling). */
      mock: z
        .object({ latencyMs: z.number().int().nonnegative().max(60_000).optional() })
        .strict()
        .optional(),
    }),
    output: RerunJob,
  },
  /** Stops a running job (a run in flight is recorded as cancelled). false: it had already finished. */
  cancelRerun: {
    input: z.object({ jobId: JobId }),
    output: z.object({ cancelled: z.boolean(), job: RerunJob }),
  },
  /**
   * The job's progress events after `after` (its index + 1 of the last one seen; 0 for all kept).
   * Waits up to `waitMs` for the next one when there is none yet and the job still runs.
   */
  watchRerun: {
    input: z.object({ jobId: JobId, after: Count, waitMs: z.number().int().nonnegative().max(MAX_WATCH_WAIT_MS).optional() }),
    output: z.object({ events: z.array(RerunProgressEvent), next: Count, job: RerunJob }),
  },
  /** The session's jobs, running and recently finished (a window that reloads finds them again). */
  listRerunJobs: {
    input: WithSession,
    output: z.object({ jobs: z.array(RerunJob) }),
  },
  /**
   * The original compaction (first, when the target is one) beside re-runs of the same target and
   * branch: the given runs, else the latest MAX_COMPARE_RUNS.
   */
  compareRuns: {
    input: WithSession.extend({
      branch: BranchName.optional(),
      target: RerunTarget,
      runIds: z.array(z.string().min(1).max(100)).max(MAX_COMPARE_RUNS).optional(),
    }),
    output: z.object({
      file: z.string(),
      branch: z.string(),
      comparison: Comparison,
      /** Runs compared whose session changed since. */
      stale: z.array(z.string()),
      /** Run ids asked for and not found for this target. */
      missing: z.array(z.string()),
      /** A sentence when there is little to compare. */
      note: z.string().nullable(),
    }),
  },
  /** Whether each provider's key is set (and, for given models, each model's). Never a key. */
  providerKeys: {
    input: z.object({ models: z.array(ModelSpec).max(MAX_CHAIN).optional() }),
    output: z.object({
      providers: z.array(ProviderKeyRow),
      models: z.array(KeyStatusRow.extend({ label: z.string(), needsKey: z.boolean(), error: z.string().nullable() })),
      store: KeyStoreStatus,
    }),
  },
  /**
   * Stores a provider's key, encrypted (the desktop app: Electron safeStorage, in a file under its
   * data folder). The key is sent once and no method ever returns it: the answer is the provider's
   * status (set, source, last 4). NOT_AVAILABLE, with a sentence, when the host has no store (the
   * web host: use environment variables) or cannot encrypt (no keychain, or only plain text).
   */
  setProviderKey: {
    input: z.object({ provider: KeyProvider, key: ApiKeyInput }),
    output: z.object({
      status: ProviderKeyRow,
      /** Something to know, in a sentence (an environment variable that is used before the stored key). */
      note: z.string().nullable(),
    }),
  },
  /** The summarization chain kept in settings (shared with `palimpsest rerun`). */
  rerunSettings: {
    input: z.object({}),
    output: RerunSettings,
  },
  /** Replaces the chain kept in settings; an empty list clears it (re-runs then use the session's own model). */
  setSummarizationChain: {
    input: z.object({ models: z.array(ModelSpec.options[1]).max(MAX_CHAIN) }),
    output: RerunSettings,
  },
  /** Forgets a provider's stored key. removed: false when none was stored. Environment variables are untouched. */
  removeProviderKey: {
    input: z.object({ provider: KeyProvider }),
    output: z.object({ removed: z.boolean(), status: ProviderKeyRow, note: z.string().nullable() }),
  },
} as const;

export type RerunMethod = keyof typeof RERUN_CONTRACT;
