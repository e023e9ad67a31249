import { fmt, headLength, openTail, splitByTokens } from '../common/result';
import type { SourceItem, TokenCounter } from '../types';

/*
 * DeepSeek Harness: "Range selection starts at the oldest non-system-head nodes, reserves a recent
 * tail, and uses the tool-pairing boundary helpers so no unanswered call crosses a cut. A
 * system/message at surface position 0 never enters the compacted range ... An open indivisible
 * tail instead makes compaction decline until it closes." The tail reserve is retainRatio × window
 * tokens ("16% of that window, not 16% of message count").
 */

export type RangeChoice =
  | { readonly ok: true; readonly from: number; readonly to: number; readonly tokens: readonly number[] }
  | { readonly ok: false; readonly reason: string };

/** The range [from, to) to summarise on the current surface, or why compaction declines. */
export function selectRange(surface: readonly SourceItem[], count: TokenCounter, retainTokens: number): RangeChoice {
  if (openTail(surface))
    return {
      ok: false,
      reason: 'declined: the tail ends in an unanswered tool call (an open indivisible unit); compaction waits until it closes',
    };
  const split = splitByTokens(surface, count, retainTokens);
  if (split.tail <= headLength(surface)) {
    return {
      ok: false,
      reason: `nothing to compact: the recent tail reserve (${fmt(retainTokens)} tokens) holds all history after the system head`,
    };
  }
  return { ok: true, from: split.head, to: split.tail, tokens: split.tokens };
}
