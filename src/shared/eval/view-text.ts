import type { Item } from '../model/item';
import { blocksText } from '../strategies/common/render';

/*
 * What a candidate view says, as the scores read it. Three notions (docs/eval.md, "Scoring"):
 * - the text the agent would see: every item of the candidate view, rendered with blocksText (the
 *   rendering the strategies price), system prompt and tool schemas excluded (a compaction does
 *   not change them);
 * - kept items: source items carried over unchanged (same id, no derivation);
 * - new text: what the strategy wrote — checkpoints, handoffs, markers, any item with a new id —
 *   excluding pruned and reinjected items, whose text is copied from the source. Stale facts are
 *   only held against new text: a stale fact quoted in a kept raw item is history the agent is
 *   shown as history, not the summary asserting it.
 */

export type ViewItem = Pick<Item, 'id' | 'blocks' | 'derivation'>;

export const itemText = (item: ViewItem): string => blocksText(item.blocks);

export function isKept(item: ViewItem, sourceIds: ReadonlySet<string>): boolean {
  return item.derivation === undefined && sourceIds.has(item.id);
}

export function isNewText(item: ViewItem, sourceIds: ReadonlySet<string>): boolean {
  if (isKept(item, sourceIds)) return false;
  const kind = item.derivation?.kind;
  return kind !== 'pruned' && kind !== 'reinjected';
}

/**
 * Words that mark a statement as past or invalidated. A line of new text that has one of them does
 * not assert a stale fact as current ("Removed the 5-line cap", "load_transcript was renamed"), and
 * neither does anything under a heading that has one ("## Invalidations", "Stale observations:").
 * A heuristic, and a deterministic one: a summary can defeat it, and it says so in docs/eval.md.
 */
export const STALE_MARKERS =
  /\b(?:stale|outdated|out of date|superseded|obsolete|no longer|not anymore|invalidated|invalidations?|previously|formerly|used to|replaced|removed|deleted|renamed|renaming|deprecated|reverted|changed since)\b/i;

const HEADING = /^\s{0,3}(?:#{1,6}\s+.+|\*\*[^*]+\*\*:?\s*|[A-Z][A-Za-z &/-]{2,40}:)\s*$/;

/** The text with every stale-marked line, and every section under a stale-marked heading, removed. */
export function currentClaims(text: string): string {
  const out: string[] = [];
  let underStaleHeading = false;
  for (const line of text.split('\n')) {
    if (HEADING.test(line)) {
      underStaleHeading = STALE_MARKERS.test(line);
      continue;
    }
    if (underStaleHeading || STALE_MARKERS.test(line)) continue;
    out.push(line);
  }
  return out.join('\n');
}
