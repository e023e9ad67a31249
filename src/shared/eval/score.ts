import { z } from 'zod';
import type { RunRecord } from '../rerun/record';
import { RECALL_CATEGORIES, scoredFacts, draftCount, type Fact, type RecallCategory } from './facts';
import { evaluate, Haystack } from './matchers';
import { currentClaims, isKept, isNewText, itemText, type ViewItem } from './view-text';

/*
 * Scores one run against confirmed facts (docs/eval.md, "Scoring", gives the formulas):
 *   recall[c]       = matched facts of category c / confirmed facts of c, in the text the agent would see
 *   recall.overall  = matched / total over the four recall categories pooled (each fact weighs the same)
 *   staleRejection  = stale facts NOT asserted as current by the strategy's new text / stale facts
 *   provenance      = matched evidence facts with a site that points back to their source / matched evidence facts
 * Structural checks (the run's diagnostics) are counted beside the scores, never folded into them.
 * A category without confirmed facts scores null, never 1. A failed or cancelled run scores null
 * everywhere — not 0, so that failure and forgetting stay distinguishable — and counts as a failure.
 */

const rate = z.number().min(0).max(1).nullable();
const Ids = z.array(z.string());

export const RunScore = z.object({
  v: z.literal(1),
  /** No candidate to score: outcome failed or cancelled, or no view recorded. */
  failed: z.boolean(),
  outcome: z.string(),
  /** A degraded candidate (a loud truncation fallback): scored, and flagged. */
  fallback: z.boolean(),
  recall: z.object({ overall: rate, constraint: rate, decision: rate, open_work: rate, evidence: rate }),
  staleRejection: rate,
  provenance: rate,
  /**
   * Fact ids per category. `ok`: recalled (for stale facts: rejected); `missed`: not found in the
   * view (for stale facts: asserted as current by the strategy's new text).
   */
  facts: z.record(z.string(), z.object({ total: z.number().int().nonnegative(), ok: Ids, missed: Ids })),
  provenanceOf: z.object({ ok: Ids, without: Ids }),
  structural: z.object({
    error: z.number().int().nonnegative(),
    warning: z.number().int().nonnegative(),
    info: z.number().int().nonnegative(),
    rules: z.record(z.string(), z.number().int().positive()),
  }),
  /** Unconfirmed facts that apply to this target: never scored, counted so nobody mistakes them for scored. */
  drafts: z.number().int().nonnegative(),
  problems: z.array(z.string()),
});
export type RunScore = z.infer<typeof RunScore>;

/** The source the run was made from, as far as scoring needs it: item ids and the seqs they came from. */
export interface ScoringSource {
  readonly items: readonly { readonly id: string; readonly seq: number | null }[];
}

export type ScorableRun = Pick<RunRecord, 'outcome' | 'view' | 'target' | 'diagnostics'>;

function structural(run: ScorableRun): RunScore['structural'] {
  const s = { error: 0, warning: 0, info: 0, rules: {} as Record<string, number> };
  for (const d of run.diagnostics) {
    s[d.severity]++;
    s.rules[d.rule] = (s.rules[d.rule] ?? 0) + 1;
  }
  return s;
}

const ratio = (n: number, d: number): number | null => (d === 0 ? null : n / d);

/** The ids an evidence fact's source resolves to in this source (items listed + items whose seq is in range). */
function sourceRange(f: Fact, source: ScoringSource): Set<string> {
  const out = new Set<string>();
  const known = new Set(source.items.map((i) => i.id));
  for (const id of f.source?.items ?? []) if (known.has(id)) out.add(id);
  const seqs = f.source?.seqs;
  if (seqs) for (const it of source.items) if (it.seq !== null && it.seq >= seqs.from && it.seq <= seqs.to) out.add(it.id);
  return out;
}

/** Does the view item where an evidence fact matched point back to the fact's source range? */
function pointsBack(item: ViewItem, range: ReadonlySet<string>, sourceIds: ReadonlySet<string>, keptIds: ReadonlySet<string>): boolean {
  if (isKept(item, sourceIds)) return range.has(item.id);
  const d = item.derivation;
  if (d?.kind === 'pruned') return range.has(d.of);
  if (d?.kind === 'reinjected') return d.of.some((id) => range.has(id));
  // A checkpoint points back when every item of the range is one it covers or one still kept raw.
  if (d?.kind === 'checkpoint') return [...range].every((id) => d.covers.includes(id) || keptIds.has(id));
  return false;
}

function emptyFacts(facts: readonly Fact[]): RunScore['facts'] {
  const out: RunScore['facts'] = {};
  for (const c of [...RECALL_CATEGORIES, 'stale'] as const)
    out[c] = { total: facts.filter((f) => f.category === c).length, ok: [], missed: [] };
  return out;
}

export function scoreRun(run: ScorableRun, allFacts: readonly Fact[], source: ScoringSource): RunScore {
  const facts = scoredFacts(allFacts, run.target);
  const base = {
    v: 1 as const,
    outcome: run.outcome,
    fallback: run.outcome === 'fallback',
    structural: structural(run),
    drafts: draftCount(allFacts, run.target),
    problems: [] as string[],
    facts: emptyFacts(facts),
  };
  const view = run.view;
  if (run.outcome === 'failed' || run.outcome === 'cancelled' || view === null) {
    const none = { overall: null, constraint: null, decision: null, open_work: null, evidence: null };
    return { ...base, failed: true, recall: none, staleRejection: null, provenance: null, provenanceOf: { ok: [], without: [] } };
  }

  const sourceIds = new Set(source.items.map((i) => i.id));
  const items: readonly ViewItem[] = view.items;
  const hay = new Haystack(items.map(itemText));
  const newHay = new Haystack(items.map((it) => (isNewText(it, sourceIds) ? currentClaims(itemText(it)) : '')));
  const keptIds = new Set(items.filter((it) => isKept(it, sourceIds)).map((it) => it.id));
  const counts = base.facts;
  const provOk: string[] = [];
  const provWithout: string[] = [];

  for (const f of facts) {
    const bucket = counts[f.category] as RunScore['facts'][string];
    if (f.category === 'stale') {
      // "missed" for a stale fact: the strategy's own text asserts it as current.
      (evaluate(f.match, newHay).matched ? bucket.missed : bucket.ok).push(f.id);
      continue;
    }
    const e = evaluate(f.match, hay);
    (e.matched ? bucket.ok : bucket.missed).push(f.id);
    if (f.category !== 'evidence' || !e.matched) continue;
    const range = sourceRange(f, source);
    if (range.size === 0) {
      base.problems.push(`evidence fact "${f.id}": its source resolves to no item of this source; left out of provenance`);
      continue;
    }
    (e.sites.some((i) => pointsBack(items[i] as ViewItem, range, sourceIds, keptIds)) ? provOk : provWithout).push(f.id);
  }

  const recall = {} as Record<RecallCategory, number | null>;
  let matched = 0;
  let total = 0;
  for (const c of RECALL_CATEGORIES) {
    const b = counts[c] as RunScore['facts'][string];
    recall[c] = ratio(b.ok.length, b.total);
    matched += b.ok.length;
    total += b.total;
  }
  const stale = counts.stale as RunScore['facts'][string];
  return {
    ...base,
    failed: false,
    recall: { overall: ratio(matched, total), ...recall },
    staleRejection: ratio(stale.ok.length, stale.total),
    provenance: ratio(provOk.length, provOk.length + provWithout.length),
    provenanceOf: { ok: provOk, without: provWithout },
  };
}
