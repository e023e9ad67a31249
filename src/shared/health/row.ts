import { z } from 'zod';
import { CompactionOutcome, CompactionTrigger } from '../model/event';

/*
 * One session's compaction health: what the health report (palimpsest report, the library's Health
 * tab) aggregates. A row is pure data, built once per session file and cached by its path, size and
 * modification time; anything that can list sessions and give these rows can feed the report
 * (src/main/health/source.ts). Numbers the log does not give are null, never 0.
 */

/** The version of the row's shape: rows cached by another version are built again. */
export const HEALTH_ROW_VERSION = 1;

/** A compaction as the report counts it. */
export const CompactionHealth = z.object({
  id: z.string(),
  /** Its first event: where the session opens to show it. */
  seq: z.number().int().nonnegative(),
  trigger: CompactionTrigger,
  /** null: an open bracket (a start with no end and nothing committed). */
  outcome: CompactionOutcome.nullable(),
  /**
   * The log does not call it failed, but a rule that infers a failed compaction from the log cites
   * it (INFERRED_FAILURE_RULES).
   */
  inferredFailed: z.boolean(),
  /** Context tokens before and after, as the log records them; null when it does not. */
  preTokens: z.number().nonnegative().nullable(),
  postTokens: z.number().nonnegative().nullable(),
});
export type CompactionHealth = z.infer<typeof CompactionHealth>;

/** A finding that infers a failed compaction the log has no record of. */
export const InferredFailure = z.object({ rule: z.string(), seq: z.number().int().nonnegative().nullable() });
export type InferredFailure = z.infer<typeof InferredFailure>;

export const FindingCount = z.object({
  rule: z.string(),
  severity: z.enum(['error', 'warning', 'info']),
  count: z.number().int().positive(),
});
export type FindingCount = z.infer<typeof FindingCount>;

export const SessionHealth = z.object({
  /** Unique in a report: the path, and for a database of many sessions, `path#id`. */
  key: z.string(),
  path: z.string(),
  sessionId: z.string().nullable(),
  harness: z.string(),
  project: z.string().nullable(),
  clientVersion: z.string().nullable(),
  /** Models of the agent requests, the most used first. */
  models: z.array(z.string()),
  /** UTC day (YYYY-MM-DD) of the first request with a time; null when the log has none. */
  day: z.string().nullable(),
  /** Agent requests of the default branch. */
  requests: z.number().int().nonnegative(),
  /** Agent requests whose size the provider reported and whose trigger is known: the share's denominator. */
  judged: z.number().int().nonnegative(),
  /** Of those, the ones at or above the trigger (the one TRIGGER_MISSED uses). */
  aboveTrigger: z.number().int().nonnegative(),
  /** The largest context a request reported (input + cache reads + cache writes); null without usage. */
  peakContext: z.number().nonnegative().nullable(),
  /** Prompt-cache reads the provider reported, summed; null when no request reported any. */
  cacheReadTokens: z.number().nonnegative().nullable(),
  /** Prompt-cache breaks (src/shared/tokens/cache-break.ts): count and tokens not read. */
  cacheBreaks: z.number().int().nonnegative(),
  cacheBreakTokens: z.number().nonnegative(),
  compactions: z.array(CompactionHealth),
  inferredFailures: z.array(InferredFailure),
  findings: z.array(FindingCount),
});
export type SessionHealth = z.infer<typeof SessionHealth>;

/** A session that could not be read: listed with its error, and the report goes on. */
export const HealthProblem = z.object({ path: z.string(), error: z.string() });
export type HealthProblem = z.infer<typeof HealthProblem>;

/**
 * Rules whose findings infer a failed compaction that the log does not record as failed (titles
 * marked "inferred" in docs/diagnostics.md, and Claude Code's own failure notice, which the log
 * keeps as text and not as a compaction).
 */
export const INFERRED_FAILURE_RULES: ReadonlySet<string> = new Set([
  'PROMPT_UNANSWERED_INFERRED',
  'API_ERROR_NEAR_COMPACTION',
  'COMPACTION_FAILURE_NOTICE',
  'SUMMARY_SECTIONS_MISSING',
  'TURN_FAILED_BEFORE_RESPONSE_INFERRED',
]);

/** Outcomes the report counts as a failed compaction. A cancelled one was stopped, not failed; an open one is unknown. */
export const FAILED_OUTCOMES: ReadonlySet<string> = new Set(['failed', 'rejected', 'fallback']);
