import { z } from 'zod';
import { RunTarget } from '../rerun/record';
import { canonicalJson, hashHex } from './hash';
import { Matcher } from './matchers';
import { fail, issuesText, ok, type Result } from './result';

/*
 * A facts file: human-checked facts about one trace, which a compaction's result is scored against
 * (docs/eval.md, "Facts"). Categories:
 *   constraint  a requirement the agent must keep honouring (user rules, no-gos, acceptance criteria)
 *   decision    a choice made in the session that later work depends on
 *   open_work   what was still to do when the compaction ran
 *   stale       something that was true earlier and was invalidated later: it must NOT come back as current
 *   evidence    an observation (a test result, an error) that must point to where it was seen: `source`
 * A fact is scored only when `confirmed: true` — a person read the trace and checked it. Drafts
 * (draft.ts) are written with `confirmed: false` and are never scored until someone flips it.
 */

export const FACTS_FORMAT = 'palimpsest-facts';
export const FACTS_VERSION = 1;

export const FACT_CATEGORIES = ['constraint', 'decision', 'open_work', 'stale', 'evidence'] as const;
export type FactCategory = (typeof FACT_CATEGORIES)[number];
/** The categories recall is measured on (stale facts are scored by rejection instead). */
export const RECALL_CATEGORIES = ['constraint', 'decision', 'open_work', 'evidence'] as const;
export type RecallCategory = (typeof RECALL_CATEGORIES)[number];

/** Where a fact was seen: source item ids, an inclusive range of event seqs, or both. */
export const FactSource = z
  .strictObject({
    items: z.array(z.string().min(1)).min(1).optional(),
    seqs: z.strictObject({ from: z.number().int().nonnegative(), to: z.number().int().nonnegative() }).optional(),
  })
  .refine((s) => s.items !== undefined || s.seqs !== undefined, 'give items (source item ids) or seqs ({ from, to })')
  .refine((s) => s.seqs === undefined || s.seqs.from <= s.seqs.to, { message: 'seqs.from is after seqs.to', path: ['seqs'] });
export type FactSource = z.infer<typeof FactSource>;

export const Fact = z
  .strictObject({
    id: z.string().min(1),
    category: z.enum(FACT_CATEGORIES),
    /** The fact in a person's words; shown in reports, never matched. */
    text: z.string().min(1),
    match: Matcher,
    /** Required, no default: a fact is scored only when someone says it was checked. */
    confirmed: z.boolean(),
    /** Only for this compaction or request of the trace; absent: every target of the trace. */
    target: RunTarget.optional(),
    source: FactSource.optional(),
    note: z.string().optional(),
  })
  .refine((f) => f.category !== 'evidence' || f.source !== undefined, {
    message: 'an evidence fact needs its source (items or seqs)',
    path: ['source'],
  });
export type Fact = z.infer<typeof Fact>;

export const FactsFile = z.strictObject({
  format: z.literal(FACTS_FORMAT),
  version: z.literal(FACTS_VERSION),
  /** The trace these facts are about, relative to the facts file (informational: the spec links them). */
  trace: z.string().optional(),
  /** Who checked the facts, when, and how; shown in reports. */
  description: z.string().optional(),
  checkedBy: z.string().optional(),
  checkedAt: z.string().optional(),
  facts: z.array(Fact),
});
export type FactsFile = z.infer<typeof FactsFile>;
/**
 * A facts file as written, before defaults: what tests build.
 * @internal
 */
export type FactsFileInput = z.input<typeof FactsFile>;

/**
 * Duplicate ids, found on the raw value so they are reported together with every other problem
 * (a zod refinement would only run once everything else is valid).
 */
function duplicateIds(value: unknown, file: string): string[] {
  const list = value && typeof value === 'object' ? (value as { facts?: unknown }).facts : undefined;
  if (!Array.isArray(list)) return [];
  const seen = new Map<string, number>();
  const out: string[] = [];
  list.forEach((f: unknown, i) => {
    const id = f && typeof f === 'object' ? (f as { id?: unknown }).id : undefined;
    if (typeof id !== 'string') return;
    const first = seen.get(id);
    if (first !== undefined) out.push(`${file}: facts[${i}].id: duplicate fact id "${id}" (also facts[${first}])`);
    else seen.set(id, i);
  });
  return out;
}

/** Validates a parsed facts file (YAML or JSON; reading and parsing the text is the caller's job). */
export function parseFacts(value: unknown, file: string): Result<FactsFile> {
  const r = FactsFile.safeParse(value);
  const problems = [...(r.success ? [] : [issuesText(file, r.error)]), ...duplicateIds(value, file)];
  return r.success && problems.length === 0 ? ok(r.data) : fail(problems.join('\n'));
}

export const targetLabel = (t: RunTarget): string => ('compaction' in t ? `compaction:${t.compaction}` : `request:${t.request}`);

const sameTarget = (a: RunTarget, b: RunTarget): boolean => targetLabel(a) === targetLabel(b);

/** The facts that are scored for one target: confirmed, and for that target or for every target. */
export function scoredFacts(facts: readonly Fact[], target: RunTarget): Fact[] {
  return facts.filter((f) => f.confirmed && (f.target === undefined || sameTarget(f.target, target)));
}

/** Drafts (unconfirmed facts) that would apply to a target: reported so nobody mistakes them for scored. */
export function draftCount(facts: readonly Fact[], target: RunTarget): number {
  return facts.filter((f) => !f.confirmed && (f.target === undefined || sameTarget(f.target, target))).length;
}

/**
 * A fingerprint of what is scored (confirmed facts only): recorded with every result so that a
 * baseline scored against different facts is flagged rather than silently compared.
 */
export function factsFingerprint(facts: readonly Fact[]): string {
  return hashHex(canonicalJson(facts.filter((f) => f.confirmed)));
}
