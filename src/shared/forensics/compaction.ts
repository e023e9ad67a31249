import type { Block } from '../model/content';
import type { CompactionFacts, Facts } from '../diagnostics/facts';
import { isPromptIn } from '../diagnostics/rules/inferred';
import { blocksText } from '../strategies/common/render';
import { anchorsOfItems, type ForensicItem } from './anchors';
import type { Anchor } from './categories';
import { survivalOf, type SurvivalResult } from './survival';

/*
 * Survival per compaction: the anchors of the items a compaction took off the view, looked for in
 * what the agent saw after it — the summary (its checkpoint items, else the summary the log
 * recorded) and the items the compaction left on the view (the kept tail, earlier checkpoints
 * included). A compaction that replaced nothing (failed, rejected, still open) has nothing to measure.
 */

export interface CompactionSurvival extends SurvivalResult {
  readonly id: string;
  /** The event that changed the view. */
  readonly commitSeq: number;
  /** Items the compaction replaced, and items it kept on the view. */
  readonly replaced: number;
  readonly kept: number;
  /** Characters of the summary (0 when it replaced items with nothing: a truncation). */
  readonly summaryChars: number;
  /** Part of the summary could not be read (encrypted): what it preserved is not counted. */
  readonly opaque: boolean;
  /** Every anchor of the replaced items, lost or not (the rule and `facts draft` read these). */
  readonly anchors: readonly Anchor[];
}

/** The parts of a compaction the measure reads, as text; null when it replaced nothing. */
export interface CompactionParts {
  readonly replaced: readonly ForensicItem[];
  readonly summary: string;
  /** The summary is (partly) opaque to us: an encrypted compaction item (Codex's remote compaction) is measured on what it kept only. */
  readonly opaque: boolean;
  readonly keptText: string;
  readonly kept: number;
}

function forensicItem(facts: Facts, rec: CompactionFacts['shadowed'][number]): ForensicItem {
  return { seq: rec.seq, role: rec.item.role, blocks: facts.blocksOf(rec), prompt: isPromptIn(facts, rec) };
}

/** The first seq after a compaction changed the view and closed its bracket. */
export function afterOf(c: CompactionFacts): number {
  return Math.max(c.settledSeq, c.lastSeq) + 1;
}

export function compactionParts(facts: Facts, c: CompactionFacts): CompactionParts | null {
  if (c.commitSeq === null || c.shadowed.length === 0) return null;
  const replaced = c.shadowed.map((rec) => forensicItem(facts, rec));
  let summaryBlocks: readonly Block[] = c.checkpoints.flatMap((k) => facts.blocksOf(k));
  if (summaryBlocks.length === 0 && c.committedSummary) summaryBlocks = facts.summaryBlocks(c.committedSummary);
  const gone = new Set(c.shadowed.map((r) => r.seq));
  const own = new Set(c.checkpoints.map((r) => r.seq));
  // After the bracket: a harness that rebuilds the history (Codex's replacement history) inserts the kept items inside it.
  const kept = facts.surfaceAt(afterOf(c)).items.filter((rec) => !gone.has(rec.seq) && !own.has(rec.seq));
  return {
    replaced,
    summary: blocksText(summaryBlocks.filter((b) => b.type !== 'opaque')),
    opaque: summaryBlocks.some((b) => b.type === 'opaque'),
    keptText: kept.map((rec) => blocksText(facts.blocksOf(rec))).join('\n\n'),
    kept: kept.length,
  };
}

export function compactionSurvival(facts: Facts, c: CompactionFacts): CompactionSurvival | null {
  const parts = compactionParts(facts, c);
  if (!parts || c.commitSeq === null) return null;
  const anchors = anchorsOfItems(parts.replaced);
  return {
    id: c.id,
    commitSeq: c.commitSeq,
    replaced: parts.replaced.length,
    kept: parts.kept,
    summaryChars: parts.summary.length,
    opaque: parts.opaque,
    anchors,
    ...survivalOf(anchors, `${parts.summary}\n\n${parts.keptText}`),
  };
}

/** Every compaction of the branch that replaced items, in log order. */
export function sessionSurvival(facts: Facts): CompactionSurvival[] {
  return facts.compactions.flatMap((c) => compactionSurvival(facts, c) ?? []);
}
