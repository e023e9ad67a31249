import type { Block } from '../model/content';
import { blockIsElided } from '../model/content';
import type { LogEvent } from '../model/event';
import type { Item } from '../model/item';
import { kindAt, shallowAt, type EventLog } from '../model/event-log';
import type { ReplayState } from '../replay/fold';

/** Events whose full text rules read, at most. Summaries and checkpoints are few in any session. */
export const MAX_RULE_TEXTS = 2_000;

/**
 * Seqs of the events whose whole text rules read (EMPTY_SUMMARY checks the structure of a
 * summary), when their text is elided in memory: compaction summaries, checkpoint items, and user
 * messages.
 */
export function ruleTextSeqs(events: EventLog, state: ReplayState): number[] {
  const out: number[] = [];
  // Long user messages too (CONSTRAINT_LOST reads a prompt's constraints whole), counted apart so
  // that they never crowd out a summary.
  const prompts: number[] = [];
  for (const seq of state.seqs) {
    // Only summaries and items can qualify: other events are not built (a compact log answers kinds from a column).
    const kind = kindAt(events, seq);
    if (kind !== 'compaction/summary' && kind !== 'item') continue;
    const e = shallowAt(events, seq);
    if (!e) continue;
    if (e.kind === 'compaction/summary' && e.summary.some(blockIsElided)) out.push(seq);
    else if (e.kind === 'item' && e.item.derivation?.kind === 'checkpoint' && e.item.blocks.some(blockIsElided)) out.push(seq);
    else if (e.kind === 'item' && isLongUserText(e.item) && prompts.length < MAX_RULE_TEXTS) prompts.push(seq);
    if (out.length >= MAX_RULE_TEXTS) break;
  }
  return prompts.length === 0 ? out : [...out, ...prompts].sort((a, b) => a - b);
}

/** A user message typed as text (not a tool result, not derived) whose text is elided in memory. */
function isLongUserText(item: Item): boolean {
  if (item.role !== 'user' || item.derivation || item.meta) return false;
  return item.blocks.some((b) => b.type === 'text' && blockIsElided(b)) && !item.blocks.some((b) => b.type === 'tool_result');
}

/**
 * Re-read those events whole through `hydrateMany` (the session's re-reader, which reads lines close
 * together at once) and return their blocks by seq, for `RuleInput.fullBlocks`. Events that cannot be
 * re-read are left out: rules then judge only what they can see, never guess.
 */
export async function loadRuleTexts(
  events: EventLog,
  state: ReplayState,
  hydrateMany: (seqs: readonly number[]) => Promise<readonly LogEvent[]>,
): Promise<Map<number, readonly Block[]>> {
  const out = new Map<number, readonly Block[]>();
  const seqs = ruleTextSeqs(events, state);
  if (seqs.length === 0) return out;
  let whole: readonly LogEvent[];
  try {
    whole = await hydrateMany(seqs);
  } catch {
    // The file changed or cannot be read: keep the previews.
    return out;
  }
  seqs.forEach((seq, i) => {
    const e = whole[i];
    if (e?.kind === 'compaction/summary') out.set(seq, e.summary);
    else if (e?.kind === 'item') out.set(seq, e.item.blocks);
  });
  return out;
}
