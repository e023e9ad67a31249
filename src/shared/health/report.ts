import { z } from 'zod';
import { aggregateHealth, HealthBucket, HealthGroup, type HealthFilter } from './aggregate';
import { HealthProblem, SessionHealth } from './row';

/** What `palimpsest report --json` prints and the API's health method answers: buckets, the rows behind them, what failed. */
export const HealthReport = z.object({
  by: HealthGroup,
  /** The `--since` day, or null. */
  since: z.string().nullable(),
  total: HealthBucket,
  buckets: z.array(HealthBucket),
  /** The sessions the buckets count (after `since`): the drill-down's rows, by key. */
  sessions: z.array(SessionHealth),
  /** Sessions that could not be read, with why. */
  problems: z.array(HealthProblem),
  /** Rows from the cache, rows built in this run. */
  cached: z.number().int().nonnegative(),
  built: z.number().int().nonnegative(),
  notes: z.array(z.string()),
});
export type HealthReport = z.infer<typeof HealthReport>;

export interface HealthRowsIn {
  readonly rows: readonly SessionHealth[];
  readonly problems: readonly HealthProblem[];
  readonly cached: number;
  readonly built: number;
  readonly notes: readonly string[];
}

/** The report of a source's rows, grouped by `by`. */
export function healthReport(input: HealthRowsIn, by: HealthGroup, filter: HealthFilter = {}): HealthReport {
  const a = aggregateHealth(input.rows, by, filter);
  const keep = new Set(a.total.sessionKeys);
  return {
    by,
    since: filter.since ?? null,
    total: a.total,
    buckets: a.buckets,
    sessions: input.rows.filter((r) => keep.has(r.key)),
    problems: [...input.problems],
    cached: input.cached,
    built: input.built,
    notes: [...input.notes],
  };
}
