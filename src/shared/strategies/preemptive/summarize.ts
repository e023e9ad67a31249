import { renderItem, renderItems } from '../common/render';
import { unusable } from '../common/result';
import { units } from '../common/units';
import type { SourceItem, SummaryCall, SummaryStage, Summarizer } from '../types';
import { pyDumps } from './pyjson';
import { checkSummary, summaryPrompt, type SummaryJson } from './summary';

/*
 * The Conversation Compaction article's _run_summarizer() and the wedged-buffer escape hatch
 * _chunked_and_merge(): "split the buffer in half, summarize each half independently, then
 * summarize the summaries". The halves are cut at the conversation-unit boundary nearest the
 * middle, so a tool call and its result land in the same half (the reference cuts at len // 2
 * whatever it splits; it does so only when the range is a single unit).
 */

export type Attempt =
  { readonly ok: true; readonly summary: SummaryJson } | { readonly ok: false; readonly error: string; readonly cancelled: boolean };

export interface SummarizeContext {
  readonly summarizer: Summarizer;
  readonly maxOutput: number;
  readonly signal: AbortSignal;
  /** Every call made is appended here (usage is kept even for rejected answers). */
  readonly calls: SummaryCall[];
}

async function ask(ctx: SummarizeContext, stage: SummaryStage, label: string, body: string, messageCount: number): Promise<Attempt> {
  const call = await ctx.summarizer.summarize(
    { stage, label, system: null, messages: [{ role: 'user', text: summaryPrompt(body) }], maxOutput: ctx.maxOutput },
    ctx.signal,
  );
  ctx.calls.push(call);
  const why = unusable(call);
  if (why !== null) return { ok: false, error: `${label}: ${why}`, cancelled: call.error?.kind === 'cancelled' };
  const checked = checkSummary(call.text as string, messageCount);
  return checked.ok ? { ok: true, summary: checked.value } : { ok: false, error: `${label}: ${checked.error}`, cancelled: false };
}

/** One summary of items [from, to). */
export function summarizeRange(ctx: SummarizeContext, items: readonly SourceItem[], from: number, to: number): Promise<Attempt> {
  return ask(ctx, 'one-shot', 'summary', renderItems(items, from, to - 1), to - from);
}

/** The split point of [from, to): the unit boundary nearest the middle, else the middle itself. */
export function halfPoint(items: readonly SourceItem[], from: number, to: number): number {
  const mid = from + Math.floor((to - from) / 2);
  let best = mid;
  let bestDistance = Infinity;
  for (const u of units(items.slice(from, to))) {
    const b = from + u.from;
    if (b === from) continue;
    if (Math.abs(b - mid) < bestDistance) {
      best = b;
      bestDistance = Math.abs(b - mid);
    }
  }
  return best;
}

export async function chunkedAndMerge(ctx: SummarizeContext, items: readonly SourceItem[], from: number, to: number): Promise<Attempt> {
  const mid = halfPoint(items, from, to);
  const left = await ask(ctx, 'chunk', 'chunk 1/2', renderItems(items, from, mid - 1), mid - from);
  if (!left.ok) return left;
  const right = await ask(ctx, 'chunk', 'chunk 2/2', renderItems(items, mid, to - 1), to - mid);
  if (!right.ok) return right;
  const merged = [
    renderItem({ role: 'user', blocks: [{ type: 'text', text: `PARTIAL SUMMARY (first half):\n${pyDumps(left.summary)}` }] }, 0),
    renderItem({ role: 'user', blocks: [{ type: 'text', text: `PARTIAL SUMMARY (second half):\n${pyDumps(right.summary)}` }] }, 1),
  ].join('\n\n');
  return ask(ctx, 'merge', 'merge', merged, 2);
}
