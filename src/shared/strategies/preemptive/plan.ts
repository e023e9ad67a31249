import { renderItem } from '../common/render';
import { headLength, watermark } from '../common/result';
import { units } from '../common/units';
import type { SourceItem, TokenCounter } from '../types';

/*
 * The Conversation Compaction article's trigger and cut. project_next_turn(): "the current buffer
 * size plus a conservative max_tokens bound on output plus the expected tool-result size from the
 * most recent tool_use block", gated on the projection, not the current size. The tail is tail_keep
 * = 10 messages.
 */

export const SOFT_WATERMARK = 0.7;
export const HARD_WATERMARK = 0.95;
export const OUTPUT_HEADROOM = 4_096;
export const TAIL_KEEP = 10;
/** The reference's summarizer_max_tokens, sent as the output ceiling of every summary call. */
export const SUMMARIZER_MAX_TOKENS = 1_024;

/** Tokens of the most recent tool result in the view, as the expected size of the next one; 0 when none. */
export function latestToolResultTokens(items: readonly SourceItem[], count: TokenCounter): number {
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i] as SourceItem;
    if (it.blocks.some((b) => b.type === 'tool_result')) return count(renderItem(it, i));
  }
  return 0;
}

export type Trigger = 'none' | 'preemptive' | 'reactive';

/**
 * Which watermark the projection crosses. The reference code reads only the soft watermark; the
 * hard one (the Conversation Compaction article: "reactive as a backstop at ~95%") labels a
 * compaction that had no headroom left to retry in.
 */
export function triggerOf(projected: number, limit: number, soft: number, hard: number): Trigger {
  if (projected >= watermark(hard, limit)) return 'reactive';
  if (projected >= watermark(soft, limit)) return 'preemptive';
  return 'none';
}

/**
 * Where the kept tail starts: the last `tailKeep` messages after the system head, moved back to the
 * start of the conversation unit it falls in. The reference slices messages[-10:] whatever that
 * splits; a tail opening on a tool result whose call was summarised away is not a valid request,
 * so the tail here may hold a few more than ten messages.
 */
export function tailStartByCount(items: readonly SourceItem[], tailKeep: number): number {
  const head = headLength(items);
  const start = Math.max(head, items.length - tailKeep);
  for (const u of units(items.slice(head))) if (head + u.from <= start && start <= head + u.to) return head + u.from;
  return start;
}
