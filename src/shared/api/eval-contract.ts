import { z } from 'zod';
import { Count, JobId, JobState, Millis, Path, Rate } from './scalars';
import { Diagnostic } from '../model/diagnostic';
import { CellRef } from '../eval/results';
import { RunRecord, RunTarget } from '../rerun/record';
import { EvalAggregate, EvalComparison, EvalMiss } from './eval-shapes';
import { Comparison } from './rerun-contract';

/**
 * The offline-evaluation part of the API contract (docs/eval.md, "In the app"): the eval files this
 * host may use, eval jobs (the runner of `palimpsest eval`, src/main/eval/run.ts, in main with a
 * cancel), their progress, a results file as the matrix (with threshold misses and a baseline
 * comparison), and one run's comparison with the compaction it re-ran. Spread into CONTRACT by
 * ./contract.ts; method names in ./methods.ts. Semantics: docs/eval.md ("In the app").
 *
 * Paths follow the host's path policy (src/main/library/library.ts): a spec, results or baseline
 * file is read only when the host was started with it or a folder holding it, it was picked in a
 * native dialog (Electron), or it is in the host's own eval results folder; otherwise FORBIDDEN_PATH.
 */

export { EvalComparison, EvalDelta, EvalMatrixCell, EvalMiss, EvalStat } from './eval-shapes';

/** Longest a `watchEval` call waits for news, in ms (below every transport's request timeout). */
export const MAX_EVAL_WATCH_MS = 25_000;
/** Most run rows one `openEvalResults` answer lists (the matrix is always over every line). */
export const MAX_EVAL_RUN_ROWS = 10_000;

/** A spec file the host offers (started with it, found in a folder it was given). */
export const EvalSpecFile = z.object({
  path: z.string(),
  /** The spec's name (results lines carry it); null when it does not parse. */
  name: z.string().nullable(),
  description: z.string().nullable(),
  /** Why it cannot be used, in a sentence; null when it parses. */
  error: z.string().nullable(),
  /** The host was started with this very file (not found in a folder). */
  given: z.boolean(),
});
export type EvalSpecFile = z.infer<typeof EvalSpecFile>;

export const EvalResultsFile = z.object({
  path: z.string(),
  bytes: Count,
  /** ISO 8601. */
  modifiedAt: z.string(),
});
export type EvalResultsFile = z.infer<typeof EvalResultsFile>;

/** running: preparing (total still null) or running cells. */
export const EvalJobState = JobState;
export type EvalJobState = JobState;

/** One cell as it finished (or could not run). Trace text is a path; labels are the spec's. */
export const EvalCellOutcome = z.object({
  key: z.string(),
  trace: z.string(),
  target: RunTarget,
  strategy: z.string(),
  model: z.string(),
  fault: z.string().nullable(),
  /** 0-based repeat. */
  repeat: Count,
  /** committed | failed | fallback | cancelled; null: the cell could not run (see error). */
  outcome: z.string().nullable(),
  recall: Rate.nullable(),
  mock: z.boolean(),
  error: z.string().nullable(),
});
export type EvalCellOutcome = z.infer<typeof EvalCellOutcome>;

export const EvalShard = z.object({ k: z.number().int().positive(), n: z.number().int().positive() });

export const EvalJob = z.object({
  jobId: JobId,
  state: EvalJobState,
  spec: z.string(),
  /** The spec's name; null until it is read. */
  specName: z.string().nullable(),
  resultsFile: z.string().nullable(),
  resume: z.boolean(),
  shard: EvalShard.nullable(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  /** Cells finished (written or could not run) of the cells this job has to run; total null until the runner has counted them. */
  done: Count,
  total: Count.nullable(),
  last: EvalCellOutcome.nullable(),
  /** Why scheduling stopped early (a spending limit, a cancel), in the runner's words. */
  stopped: z.string().nullable(),
  /** Cells that could not run, a sentence each (the first 50). */
  errors: z.array(z.string()),
  /** Why the job failed, in a sentence (the spec, a facts file or a trace could not be read). */
  error: z.string().nullable(),
  /** Once finished: cells of the spec, of this shard, already in the results file, and run now. */
  summary: z
    .object({ totalCells: Count, shardCells: Count, skipped: Count, ran: Count, misses: Count, warnings: z.array(z.string()) })
    .nullable(),
});
export type EvalJob = z.infer<typeof EvalJob>;

/** Progress of an eval job, one of the ProgressEvent union (./contract.ts); `index` numbers its events from 0. */
export const EvalProgressEvent = z.object({
  operation: z.literal('eval'),
  jobId: JobId,
  index: Count,
  phase: EvalJobState,
  done: Count,
  total: Count.nullable(),
  cell: EvalCellOutcome.nullable(),
  error: z.string().nullable(),
});
export type EvalProgressEvent = z.infer<typeof EvalProgressEvent>;

/** One run of a results file, without its view and request bodies (evalRunDetail compares it). */
export const EvalRunRow = z.object({
  runId: z.string(),
  // The cell as the results line records it (src/shared/eval/results.ts).
  ...CellRef.shape,
  at: z.string(),
  outcome: RunRecord.shape.outcome,
  error: z.string().nullable(),
  mock: z.boolean(),
  failed: z.boolean(),
  fallback: z.boolean(),
  recall: Rate.nullable(),
  staleRejection: Rate.nullable(),
  provenance: Rate.nullable(),
  structuralErrors: Count,
  /** Ids of the facts this run missed (stale facts: asserted as current). */
  missed: z.array(z.string()),
  tokens: z.object({ before: Count, after: Count.nullable() }),
  totals: z.object({ requests: Count, costUsd: z.number().nonnegative().nullable(), latencyMs: Millis, wallMs: Millis }),
});
export type EvalRunRow = z.infer<typeof EvalRunRow>;

export const EvalFact = z.object({ trace: z.string(), id: z.string(), category: z.string(), text: z.string() });
export type EvalFact = z.infer<typeof EvalFact>;

const SpecInfo = z.object({
  file: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  /** The spec sets pass thresholds (misses are then listed; none is a pass). */
  thresholds: z.boolean(),
});

// --- methods --------------------------------------------------------------------------------

export const EVAL_CONTRACT = {
  /** Spec files the host offers, the results files in its data folder, and where that is. */
  listEvalFiles: {
    input: z.object({}),
    output: z.object({
      specs: z.array(EvalSpecFile),
      results: z.array(EvalResultsFile),
      resultsFolder: z.string(),
      problems: z.array(z.string()),
    }),
  },
  /**
   * A results file as the matrix. The spec (for thresholds and facts in words) is the one given,
   * else one the host offers with the results' spec name; `name` picks a spec when the file holds
   * several. With `baseline`, the comparison against that results file.
   */
  openEvalResults: {
    input: z.object({ file: Path, baseline: Path.optional(), spec: Path.optional(), name: z.string().min(1).max(500).optional() }),
    output: z.object({
      file: z.string(),
      /** The spec whose lines are shown; null when the file has none. */
      specName: z.string().nullable(),
      /** Every spec name in the file. */
      specNames: z.array(z.string()),
      spec: SpecInfo.nullable(),
      lines: Count,
      /** Lines skipped, a sentence each (the first 50). */
      problems: z.array(z.string()),
      aggregate: EvalAggregate,
      /** Threshold misses; null when the spec is not known (thresholds unknown). */
      misses: z.array(EvalMiss).nullable(),
      comparison: EvalComparison.nullable(),
      baseline: z.object({ file: z.string(), lines: Count, problems: z.array(z.string()) }).nullable(),
      runs: z.array(EvalRunRow),
      truncated: z.boolean(),
      /** Confirmed facts in words (when the spec is known), for the facts a cell missed. */
      facts: z.array(EvalFact),
      notes: z.array(z.string()),
    }),
  },
  /**
   * Starts `palimpsest eval <spec>` in main. What cannot start (a path not allowed, a spec that does
   * not parse, results already there without `resume`) is an error value here; what fails while
   * preparing (a trace or facts file that cannot be read) is the job's `failed` event.
   */
  startEval: {
    input: z.object({ spec: Path, resume: z.boolean().optional(), shard: EvalShard.optional(), results: Path.optional() }),
    output: EvalJob,
  },
  /** Events after `after` (0 for all kept); waits up to `waitMs` when there is none and the job runs. */
  watchEval: {
    input: z.object({ jobId: JobId, after: Count, waitMs: z.number().int().nonnegative().max(MAX_EVAL_WATCH_MS).optional() }),
    output: z.object({ events: z.array(EvalProgressEvent), next: Count, job: EvalJob }),
  },
  /** Stops scheduling and aborts the cells in flight (not written). false: it had already finished. */
  cancelEval: {
    input: z.object({ jobId: JobId }),
    output: z.object({ cancelled: z.boolean(), job: EvalJob }),
  },
  /** This host's eval jobs, running and recently finished (a reloaded window finds them again). */
  listEvalJobs: {
    input: z.object({}),
    output: z.object({ jobs: z.array(EvalJob) }),
  },
  /**
   * One run of a results file beside the compaction it re-ran (as compareRuns): the original
   * first when the target is a compaction, then the run; plus its score. By runId or cell key.
   */
  evalRunDetail: {
    input: z.object({
      file: Path,
      runId: z.string().min(1).max(100).optional(),
      key: z.string().min(1).max(10_000).optional(),
      spec: Path.optional(),
    }),
    output: z.object({
      file: z.string(),
      branch: z.string(),
      comparison: Comparison,
      stale: z.array(z.string()),
      missing: z.array(z.string()),
      note: z.string().nullable(),
      run: EvalRunRow,
      /** Fact ids per category: ok (recalled; stale: rejected) and missed. */
      facts: z.record(z.string(), z.object({ total: Count, ok: z.array(z.string()), missed: z.array(z.string()) })),
      provenance: z.object({ ok: z.array(z.string()), without: z.array(z.string()) }),
      diagnostics: z.array(Diagnostic),
      /** The trace that was re-run, as the run recorded it. */
      tracePath: z.string(),
    }),
  },
} as const;

export type EvalMethod = keyof typeof EVAL_CONTRACT;
