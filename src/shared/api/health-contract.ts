import { z } from 'zod';
import { HealthGroup } from '../health/aggregate';
import { HealthReport } from '../health/report';
import { Count } from './scalars';

/**
 * Compaction health across the library's sessions (docs/health.md): the same report as
 * `palimpsest report --json`, built in main from each session's row (src/main/health) and kept
 * there, so that the renderer only asks for buckets and never loads a session. Spread into
 * CONTRACT by ./contract.ts; the method names are in ./methods.ts.
 */
export const HEALTH_CONTRACT = {
  /**
   * The report of the library's sessions grouped by `by`. The rows are read once (the machine's
   * sessions from the session index, brought up to date; a session it holds unchanged is not read
   * again) and kept; `refresh` lists and reads again. The first answer may be what the index held
   * before the update, marked `updating`; `settled` waits for the update's rows.
   */
  healthReport: {
    input: z.object({
      by: HealthGroup,
      since: z
        .string()
        .regex(/^\d{4}-\d{2}-\d{2}$/)
        .optional(),
      refresh: z.boolean().optional(),
      settled: z.boolean().optional(),
    }),
    output: HealthReport.extend({
      /** The rows are those held before the update now running: ask again with `settled` for the rest. */
      updating: z.boolean(),
    }),
  },
  /** How far the rows being built have got, for a progress bar while healthReport runs. */
  healthProgress: {
    input: z.object({}),
    output: z.object({ running: z.boolean(), done: Count, total: Count, cached: Count }),
  },
} as const;

export type HealthMethod = keyof typeof HEALTH_CONTRACT;
