import { verdict, type ReportInput } from './input';

/*
 * The machine-readable report: everything the other reports show, versioned. Stats are plain
 * numbers; null means "not measured", never zero.
 */

export const REPORT_FORMAT = 'palimpsest-eval-report';
export const REPORT_VERSION = 1;

export interface JsonReport {
  readonly format: typeof REPORT_FORMAT;
  readonly v: typeof REPORT_VERSION;
  readonly spec: ReportInput['spec'];
  readonly generatedAt: string;
  /** No threshold missed and no regression against the baseline. */
  readonly passed: boolean;
  readonly verdict: string;
  readonly shard: ReportInput['shard'] | null;
  readonly stopped: string | null;
  readonly notes: readonly string[];
  readonly matrix: ReportInput['aggregate'];
  readonly misses: ReportInput['misses'];
  readonly baseline: { readonly file: string | null; readonly comparison: NonNullable<ReportInput['comparison']> } | null;
  readonly facts: NonNullable<ReportInput['facts']>;
  readonly factsFiles: NonNullable<ReportInput['factsFiles']>;
}

export function reportJson(input: ReportInput): JsonReport {
  const v = verdict(input);
  return {
    format: REPORT_FORMAT,
    v: REPORT_VERSION,
    spec: input.spec,
    generatedAt: input.generatedAt,
    passed: v.ok,
    verdict: v.text,
    shard: input.shard ?? null,
    stopped: input.stopped ?? null,
    notes: input.notes ?? [],
    matrix: input.aggregate,
    misses: input.misses,
    baseline: input.comparison ? { file: input.baselineFile ?? null, comparison: input.comparison } : null,
    facts: input.facts ?? [],
    factsFiles: input.factsFiles ?? [],
  };
}
