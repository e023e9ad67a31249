import type { EvalRunRow } from '../../shared/api/eval-contract';
import { MAX_EVAL_RUN_ROWS } from '../../shared/api/eval-contract';
import { aggregate, type Aggregate } from '../../shared/eval/aggregate';
import { compareToBaseline, type BaselineComparison } from '../../shared/eval/baseline';
import { checkThresholds, type Miss } from '../../shared/eval/thresholds';
import type { EvalLine } from '../../shared/eval/results';
import { readResults } from './results-file';
import type { SpecInfo } from './spec-info';

/*
 * A results file as the app's matrix (docs/eval.md, "In the app"): the lines of one spec
 * aggregated, the spec's threshold misses when the spec is known, the comparison with a baseline
 * results file, and a light row per run for drilling into a cell. The same functions as
 * `palimpsest eval` and its reports (src/shared/eval), so the app and the reports agree.
 */

const MAX_PROBLEMS = 50;

export interface OpenedResults {
  readonly file: string;
  readonly specName: string | null;
  readonly specNames: string[];
  readonly lines: number;
  readonly problems: string[];
  readonly aggregate: Aggregate;
  readonly misses: Miss[] | null;
  readonly comparison: BaselineComparison | null;
  readonly baseline: { readonly file: string; readonly lines: number; readonly problems: string[] } | null;
  readonly runs: EvalRunRow[];
  readonly truncated: boolean;
  readonly notes: string[];
}

export function runRowOf(l: EvalLine): EvalRunRow {
  const s = l.score;
  return {
    runId: l.run.runId,
    key: l.cell.key,
    trace: l.cell.trace,
    target: { ...l.cell.target },
    strategy: l.cell.strategy,
    strategyId: l.cell.strategyId,
    model: l.cell.model,
    fault: l.cell.fault,
    repeat: l.cell.repeat,
    of: l.cell.of,
    at: l.run.at,
    outcome: l.run.outcome,
    error: l.run.error,
    mock: l.run.mock,
    failed: s.failed,
    fallback: s.fallback,
    recall: s.recall.overall,
    staleRejection: s.staleRejection,
    provenance: s.provenance,
    structuralErrors: s.structural.error,
    missed: Object.values(s.facts).flatMap((b) => b.missed),
    tokens: { before: l.run.tokens.before, after: l.run.tokens.after },
    totals: {
      requests: l.run.totals.requests,
      costUsd: l.run.totals.costUsd,
      latencyMs: l.run.totals.latencyMs,
      wallMs: l.run.totals.wallMs,
    },
  };
}

/** Traces whose facts fingerprints differ between the two sides: their recall was defined differently. */
function factsChanged(current: readonly EvalLine[], baseline: readonly EvalLine[]): string[] {
  const prints = (lines: readonly EvalLine[]): Map<string, Set<string>> => {
    const m = new Map<string, Set<string>>();
    for (const l of lines) if (l.facts !== null) m.set(l.cell.trace, (m.get(l.cell.trace) ?? new Set()).add(l.facts));
    return m;
  };
  const a = prints(current);
  const b = prints(baseline);
  return [...a.keys()].filter((t) => {
    const x = b.get(t);
    return x !== undefined && [...(a.get(t) ?? [])].some((p) => !x.has(p));
  });
}

/** The spec name to show: the one asked for, else the spec's, else that of the newest line. */
function chooseName(lines: readonly EvalLine[], name: string | undefined, spec: SpecInfo | null): string | null {
  return name ?? spec?.spec.name ?? lines.at(-1)?.spec ?? null;
}

export interface OpenOptions {
  /** The spec the caller named; null: none. */
  readonly spec: SpecInfo | null;
  /** The spec of a spec name the host knows (for results opened without one). */
  readonly specOf: (name: string) => Promise<SpecInfo | null>;
  readonly name?: string;
  readonly baseline?: string | null;
}

export async function openResults(file: string, opts: OpenOptions): Promise<OpenedResults & { readonly spec: SpecInfo | null }> {
  const all = await readResults(file);
  const specNames = [...new Set(all.lines.map((l) => l.spec))];
  const specName = chooseName(all.lines, opts.name, opts.spec);
  const lines = specName === null ? [] : all.lines.filter((l) => l.spec === specName);
  const agg = aggregate(lines);
  const known = opts.spec ?? (specName === null ? null : await opts.specOf(specName));
  // Thresholds are the spec's: only when the spec shown is the one whose lines these are.
  const spec = known !== null && known.spec.name === specName ? known : null;
  const notes: string[] = [];
  if (!all.exists) notes.push(`${file} does not exist yet: no run has written to it.`);
  if (known !== null && spec === null && specName !== null)
    notes.push(`The spec ${known.file} is "${known.spec.name}", not "${specName}": its thresholds are not applied.`);
  if (spec === null && specName !== null)
    notes.push('The spec of these results is not known here: thresholds cannot be checked. Give its spec file to see misses.');
  if (lines.some((l) => l.run.mock))
    notes.push('Cells marked mock were answered by the mock provider: they test the pipeline and the facts, not a model.');
  notes.push(...(spec?.problems ?? []));
  let comparison: BaselineComparison | null = null;
  let baseline: OpenedResults['baseline'] = null;
  if (opts.baseline) {
    const b = await readResults(opts.baseline, specName ?? undefined);
    if (!b.exists) notes.push(`The baseline ${opts.baseline} does not exist.`);
    else if (b.lines.length === 0) notes.push(`The baseline ${opts.baseline} has no results of "${specName ?? '?'}": nothing to compare.`);
    comparison = compareToBaseline(agg, aggregate(b.lines));
    baseline = { file: opts.baseline, lines: b.lines.length, problems: b.problems.slice(0, MAX_PROBLEMS) };
    for (const t of factsChanged(lines, b.lines))
      notes.push(`The facts of ${t} changed between the results and the baseline: the comparison mixes two definitions of recall.`);
  }
  const rows = lines.map(runRowOf);
  return {
    file,
    specName,
    specNames,
    spec,
    lines: lines.length,
    problems: all.problems.slice(0, MAX_PROBLEMS),
    aggregate: agg,
    misses: spec ? checkThresholds(agg, spec.spec.thresholds) : null,
    comparison,
    baseline,
    runs: rows.slice(-MAX_EVAL_RUN_ROWS),
    truncated: rows.length > MAX_EVAL_RUN_ROWS,
    notes,
  };
}
