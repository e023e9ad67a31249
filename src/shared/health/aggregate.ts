import { z } from 'zod';
import { CompactionTrigger } from '../model/event';
import { FAILED_OUTCOMES, type SessionHealth } from './row';

/*
 * The health report's aggregation: session rows grouped by day, project, harness or model, with
 * every bucket keeping the keys of the sessions and compactions behind it, so that each bar or
 * point of a chart drills down to them. Pure: the same rows give the same buckets.
 */

export const HEALTH_GROUPS = ['day', 'project', 'harness', 'model'] as const;
export const HealthGroup = z.enum(HEALTH_GROUPS);
export type HealthGroup = z.infer<typeof HealthGroup>;

/** The outcomes a bucket counts: the log's, and `open` for a bracket with no end. */
export const HEALTH_OUTCOMES = ['committed', 'rejected', 'failed', 'fallback', 'cancelled', 'open'] as const;
const Outcome = z.enum(HEALTH_OUTCOMES);

/** A compaction behind a bucket: its session's key and its id (the session opens at `seq`). */
export const CompactionRef = z.object({ session: z.string(), id: z.string(), seq: z.number().int().nonnegative() });
export type CompactionRef = z.infer<typeof CompactionRef>;

const Severities = z.object({ error: z.number().int(), warning: z.number().int(), info: z.number().int() });

export const HealthBucket = z.object({
  /** The day, project, harness or model; `(unknown)` when a session does not say. */
  key: z.string(),
  sessions: z.number().int().nonnegative(),
  requests: z.number().int().nonnegative(),
  /** Requests whose size and trigger are known, and those of them at or above the trigger. */
  judged: z.number().int().nonnegative(),
  aboveTrigger: z.number().int().nonnegative(),
  compactions: z.number().int().nonnegative(),
  byTrigger: z.record(CompactionTrigger, z.number().int()),
  byOutcome: z.record(Outcome, z.number().int()),
  /** Outcome failed, rejected or fallback. */
  failed: z.number().int().nonnegative(),
  /** Compactions a rule infers failed, plus inferred failures with no compaction in the log. */
  inferredFailed: z.number().int().nonnegative(),
  /** Sums over the compactions that record both sizes (`measured` of them). */
  measured: z.number().int().nonnegative(),
  tokensBefore: z.number().nonnegative(),
  tokensAfter: z.number().nonnegative(),
  /** Largest context any request reported; null when none reported usage. */
  peakContext: z.number().nonnegative().nullable(),
  cacheReadTokens: z.number().nonnegative(),
  cacheBreaks: z.number().int().nonnegative(),
  cacheBreakTokens: z.number().nonnegative(),
  /** Findings by rule, by severity. */
  findings: z.record(z.string(), Severities),
  /** Drill-down: the sessions (keys) and compactions behind the bucket. */
  sessionKeys: z.array(z.string()),
  compactionRefs: z.array(CompactionRef),
  /** Drill-down for the failure bars: the failed and the inferred-failed compactions. */
  failedRefs: z.array(CompactionRef),
  inferredRefs: z.array(CompactionRef),
});
export type HealthBucket = z.infer<typeof HealthBucket>;

export const UNKNOWN_KEY = '(unknown)';

/** The key a session falls under in a grouping. A session is counted once: under its most used model. */
export function groupKey(row: SessionHealth, by: HealthGroup): string {
  const k = by === 'day' ? row.day : by === 'project' ? row.project : by === 'harness' ? row.harness : (row.models[0] ?? null);
  return k === null || k === '' ? UNKNOWN_KEY : k;
}

function empty(key: string): HealthBucket {
  return {
    key,
    sessions: 0,
    requests: 0,
    judged: 0,
    aboveTrigger: 0,
    compactions: 0,
    byTrigger: { auto: 0, manual: 0, overflow: 0, preemptive: 0, reactive: 0, unknown: 0 },
    byOutcome: { committed: 0, rejected: 0, failed: 0, fallback: 0, cancelled: 0, open: 0 },
    failed: 0,
    inferredFailed: 0,
    measured: 0,
    tokensBefore: 0,
    tokensAfter: 0,
    peakContext: null,
    cacheReadTokens: 0,
    cacheBreaks: 0,
    cacheBreakTokens: 0,
    findings: {},
    sessionKeys: [],
    compactionRefs: [],
    failedRefs: [],
    inferredRefs: [],
  };
}

/** Adds one session to a bucket (mutates the bucket, which `aggregateHealth` owns). */
function add(b: HealthBucket, row: SessionHealth): void {
  b.sessions++;
  b.requests += row.requests;
  b.judged += row.judged;
  b.aboveTrigger += row.aboveTrigger;
  b.sessionKeys.push(row.key);
  for (const c of row.compactions) {
    const ref = { session: row.key, id: c.id, seq: c.seq };
    b.compactions++;
    b.byTrigger[c.trigger] = (b.byTrigger[c.trigger] ?? 0) + 1;
    const o = c.outcome ?? 'open';
    b.byOutcome[o] = (b.byOutcome[o] ?? 0) + 1;
    b.compactionRefs.push(ref);
    if (c.outcome !== null && FAILED_OUTCOMES.has(c.outcome)) {
      b.failed++;
      b.failedRefs.push(ref);
    }
    if (c.inferredFailed) {
      b.inferredFailed++;
      b.inferredRefs.push(ref);
    }
    if (c.preTokens !== null && c.postTokens !== null) {
      b.measured++;
      b.tokensBefore += c.preTokens;
      b.tokensAfter += c.postTokens;
    }
  }
  b.inferredFailed += row.inferredFailures.length;
  if (row.peakContext !== null) b.peakContext = Math.max(b.peakContext ?? 0, row.peakContext);
  b.cacheReadTokens += row.cacheReadTokens ?? 0;
  b.cacheBreaks += row.cacheBreaks;
  b.cacheBreakTokens += row.cacheBreakTokens;
  for (const f of row.findings) {
    const s = (b.findings[f.rule] ??= { error: 0, warning: 0, info: 0 });
    s[f.severity] += f.count;
  }
}

export interface HealthFilter {
  /** Only sessions whose first request is on or after this UTC day (YYYY-MM-DD); sessions with no day are left out. */
  readonly since?: string;
}

/** The rows a filter keeps. */
export function filterRows(rows: readonly SessionHealth[], filter: HealthFilter = {}): SessionHealth[] {
  const since = filter.since;
  return since === undefined ? [...rows] : rows.filter((r) => r.day !== null && r.day >= since);
}

export interface HealthAggregate {
  readonly by: HealthGroup;
  /** Days in order; other groupings by sessions, most first, then by key. `(unknown)` last. */
  readonly buckets: HealthBucket[];
  readonly total: HealthBucket;
}

/** Groups session rows into buckets by `by`, after `filter`. */
export function aggregateHealth(rows: readonly SessionHealth[], by: HealthGroup, filter: HealthFilter = {}): HealthAggregate {
  const map = new Map<string, HealthBucket>();
  const total = empty('total');
  for (const row of filterRows(rows, filter)) {
    const key = groupKey(row, by);
    let b = map.get(key);
    if (!b) map.set(key, (b = empty(key)));
    add(b, row);
    add(total, row);
  }
  const buckets = [...map.values()].sort((a, b) => {
    if ((a.key === UNKNOWN_KEY) !== (b.key === UNKNOWN_KEY)) return a.key === UNKNOWN_KEY ? 1 : -1;
    if (by !== 'day' && a.sessions !== b.sessions) return b.sessions - a.sessions;
    return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
  });
  return { by, buckets, total };
}

/** The share of judged requests at or above the trigger, or null when none was judged. */
export function aboveShare(b: Pick<HealthBucket, 'judged' | 'aboveTrigger'>): number | null {
  return b.judged === 0 ? null : b.aboveTrigger / b.judged;
}
