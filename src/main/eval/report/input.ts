import type { Aggregate, MatrixCell } from '../../../shared/eval/aggregate';
import type { BaselineComparison, Delta } from '../../../shared/eval/baseline';
import type { FactCategory } from '../../../shared/eval/facts';
import type { Miss } from '../../../shared/eval/thresholds';

/*
 * What every report is made from. The runner fills it after aggregating; the three renderers
 * (json.ts, markdown.ts, html.ts) only present it, so the JSON, the pull-request summary and the
 * page always say the same thing.
 */

export interface ReportFact {
  readonly trace: string;
  readonly id: string;
  readonly category: FactCategory;
  readonly text: string;
}

export interface ReportFactsFile {
  readonly trace: string;
  readonly file: string;
  /** Who checked the facts and how (the facts file's description / checkedBy). */
  readonly description: string | null;
  readonly confirmed: number;
  readonly drafts: number;
}

export interface ReportInput {
  readonly spec: { readonly name: string; readonly file: string; readonly description?: string | null };
  readonly generatedAt: string;
  readonly aggregate: Aggregate;
  readonly misses: readonly Miss[];
  /** null: no --baseline. */
  readonly comparison: BaselineComparison | null;
  readonly baselineFile?: string | null;
  /** Set when a spending limit (or a cancel) stopped scheduling: the words the runner printed. */
  readonly stopped?: string | null;
  readonly shard?: { readonly k: number; readonly n: number } | null;
  /** Warnings and anything else the runner wants shown (spec warnings, facts fingerprint changes). */
  readonly notes?: readonly string[];
  readonly facts?: readonly ReportFact[];
  readonly factsFiles?: readonly ReportFactsFile[];
}

export const overallCells = (a: Aggregate): MatrixCell[] => a.cells.filter((c) => c.trace === null);
export const traceCells = (a: Aggregate, trace: string): MatrixCell[] => a.cells.filter((c) => c.trace === trace);

export const missesOf = (input: ReportInput, c: MatrixCell): Miss[] =>
  c.trace === null ? input.misses.filter((m) => m.strategy === c.strategy && m.model === c.model) : [];

export const regressionsOf = (input: ReportInput, c: MatrixCell): Delta[] =>
  input.comparison?.regressions.filter((d) => d.strategy === c.strategy && d.model === c.model && d.trace === c.trace) ?? [];

/** One line a person reads first: passed, or how many misses and regressions. */
export function verdict(input: ReportInput): { readonly ok: boolean; readonly text: string } {
  const misses = input.misses.length;
  const regressions = input.comparison?.regressions.filter((d) => d.trace === null).length ?? 0;
  const parts: string[] = [];
  if (misses > 0) parts.push(`${misses} threshold miss${misses === 1 ? '' : 'es'}`);
  if (regressions > 0) parts.push(`${regressions} regression${regressions === 1 ? '' : 's'} against the baseline`);
  if (input.stopped) parts.push('stopped early');
  return parts.length === 0 ? { ok: true, text: 'all thresholds met' } : { ok: misses === 0 && regressions === 0, text: parts.join(', ') };
}

/** Facts in reports by key (factKey), with their text and category. */
export function factIndex(input: ReportInput): Map<string, ReportFact> {
  return new Map((input.facts ?? []).map((f) => [`${f.trace}::${f.id}`, f]));
}

export const NOT_PROVEN = [
  'Recall here is deterministic: a fact counts as kept when its matcher finds its words in what the agent would see. A summary can keep every anchor and still mislead; it can also say the right thing in words no matcher expects.',
  "A model's own PASS (an audit, a judge) is never ground truth. The judge column is shown apart and never enters these scores.",
  'Mock-provider runs (marked mock) test transport, budgets and recovery with scripted replies; their scores say nothing about any model.',
  'Facts were checked by a person for the traces listed; scores on other traces, or with other facts, are not comparable.',
  'Latencies of mock runs are local timings, not provider latency.',
] as const;
