import { tailStart, units } from '../common/units';
import type { SourceItem } from '../types';
import { TAIL_RATIO } from './options';

/**
 * Where the checkpoint cut falls. cosh: "Reserve a recent raw window (20% of the effective
 * context budget), preserving native tool-call/result pairs. Automatic checkpointing covers the
 * older prefix". The budget is the receiving agent's ("Source coverage, the recent raw tail, and the
 * checkpoint commit budget belong to the receiving agent"), never the summarizer's.
 */
export interface CutPlan {
  /** Items [0, headEnd) are leading system items: kept verbatim before the checkpoint. */
  readonly headEnd: number;
  /** The covered prefix, source indices inclusive; empty when to < from. */
  readonly from: number;
  readonly to: number;
  /** First index of the raw tail (= to + 1). */
  readonly tailFrom: number;
  /** Token budget of the raw tail (20 % of the agent's window). */
  readonly tailBudget: number;
  readonly notes: readonly string[];
}

/** A user message that is not a tool result: what a person typed (or queued). */
function isPlainUser(item: SourceItem): boolean {
  return item.role === 'user' && !item.blocks.some((b) => b.type === 'tool_result');
}

/**
 * Index of the first unanswered/queued user message at the end, or items.length. cosh:
 * "Unanswered or queued user messages remain verbatim when prior responded work exists" — so the
 * rule applies only when some assistant item precedes them.
 */
function pendingUserFrom(items: readonly SourceItem[]): number {
  let i = items.length;
  while (i > 0 && isPlainUser(items[i - 1] as SourceItem)) i--;
  const responded = items.slice(0, i).some((it) => it.role === 'assistant');
  return responded ? i : items.length;
}

export function planCut(items: readonly SourceItem[], itemTokens: readonly number[], agentWindow: number): CutPlan {
  const notes: string[] = [];
  let headEnd = 0;
  while (headEnd < items.length && (items[headEnd] as SourceItem).role === 'system') headEnd++;

  const tailBudget = Math.floor(agentWindow * TAIL_RATIO);
  let start = Math.max(headEnd, tailStart(items, itemTokens, tailBudget));
  if (start === items.length && items.length > headEnd) {
    // cosh: "An oversized indivisible source item/tool chain may require folding the whole
    // eligible source into a checkpoint."
    notes.push(
      `the newest unit does not fit the raw tail (${tailBudget} tokens = 20 % of the agent window ${agentWindow}); the whole eligible source is folded into the checkpoint`,
    );
  }

  const pending = pendingUserFrom(items);
  if (pending < start) {
    notes.push(`kept ${start - pending} unanswered user message(s) verbatim beyond the 20 % tail`);
    start = pending;
  }
  // A unit whose calls are still unanswered cannot be summarised away: its results would arrive
  // orphaned. It stays raw (the same rule keeps call/result pairs together in the tail).
  const last = units(items).at(-1);
  if (last && last.open.length > 0 && last.from < start) {
    notes.push(`kept the open tool call unit #${last.from}–#${last.to} verbatim`);
    start = Math.max(headEnd, last.from);
  }
  start = Math.max(start, headEnd);
  return { headEnd, from: headEnd, to: start - 1, tailFrom: start, tailBudget, notes };
}
