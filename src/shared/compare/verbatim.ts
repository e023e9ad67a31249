import { anchorsOfItems, type ForensicItem } from '../forensics/anchors';
import { CATEGORIES, type Category } from '../forensics/categories';
import { errorsIn } from '../forensics/extract/errors';
import { identifiersIn } from '../forensics/extract/identifiers';
import { numbersIn } from '../forensics/extract/numbers';
import { pathsIn } from '../forensics/extract/paths';
import { matchAnchor, Target } from '../forensics/match';
import type { SourceItem } from '../strategies/types';

/*
 * The anchors of a compaction's source, by the categories of compaction forensics
 * (src/shared/forensics: paths, commands, identifiers, URLs, errors, numbers, the user's
 * constraints, open tasks, decisions), and which of them survive in a candidate — verbatim or
 * normalised. The Conversation Compaction article's prompt says why these matter ("Never paraphrase
 * file paths, error codes, function names, or version numbers — copy them verbatim"): a summary that
 * keeps them lets the agent act without re-reading. A deterministic recall measure, the same for
 * the harness's own summary and every re-run — not a quality judgement (a summary can keep every
 * anchor and still be wrong).
 */

export const ANCHOR_KINDS = CATEGORIES;
export type AnchorKind = Category;

export type Anchors = Readonly<Record<AnchorKind, readonly string[]>>;

/** The source's items as forensics reads them: a user message that is not a tool result is a prompt. */
function forensicItems(items: readonly SourceItem[]): ForensicItem[] {
  return items.map((it, i) => ({
    seq: it.seq ?? -1 - i,
    role: it.role,
    blocks: it.blocks,
    prompt: it.role === 'user' && !it.meta && !it.blocks.some((b) => b.type === 'tool_result'),
  }));
}

/** The anchors of a source, each list in the order said, without duplicates. */
export function sourceAnchors(items: readonly SourceItem[]): Anchors {
  const out = Object.fromEntries(CATEGORIES.map((c) => [c, [] as string[]])) as Record<AnchorKind, string[]>;
  for (const a of anchorsOfItems(forensicItems(items))) out[a.category].push(a.text);
  return out;
}

/** The path, identifier, number and error anchors of one text, each list sorted and without duplicates (at most `max` per kind). */
export function textAnchors(text: string, max = 2_000): Pick<Anchors, 'paths' | 'identifiers' | 'numbers' | 'errors'> {
  const cap = (xs: readonly string[]) => [...new Set(xs)].slice(0, max).sort();
  const paths = pathsIn(text);
  return { paths: cap(paths), identifiers: cap(identifiersIn(text, paths)), numbers: cap(numbersIn(text)), errors: cap(errorsIn(text)) };
}

export interface Survival {
  readonly kind: AnchorKind;
  readonly total: number;
  /** Survived verbatim or normalised. */
  readonly kept: number;
  /** kept / total, or null when the source has none of this kind. */
  readonly recall: number | null;
  /** Up to 50 anchors that did not survive, for display. */
  readonly lost: readonly string[];
}

/** Which of the source's anchors survive in the candidate, verbatim or normalised (src/shared/forensics/match.ts). */
export function survival(source: Anchors, candidate: string): Survival[] {
  const t = new Target(candidate);
  return ANCHOR_KINDS.map((kind) => {
    const list = source[kind];
    const lost: string[] = [];
    let kept = 0;
    for (const text of list) {
      if (matchAnchor({ category: kind, text, seq: 0 }, t) !== 'lost') kept++;
      else if (lost.length < 50) lost.push(text);
    }
    return { kind, total: list.length, kept, recall: list.length === 0 ? null : kept / list.length, lost };
  });
}

/** One number for a table: all kinds pooled (null when the source has no anchors at all). */
export function pooledRecall(s: readonly Survival[]): number | null {
  const total = s.reduce((n, x) => n + x.total, 0);
  return total === 0 ? null : s.reduce((n, x) => n + x.kept, 0) / total;
}
