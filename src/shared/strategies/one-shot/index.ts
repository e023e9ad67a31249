import { z } from 'zod';
import type { Item } from '../../model/item';
import {
  fmt,
  kept,
  openTail,
  parseOptions,
  RERUN_COMPACTION_ID,
  Run,
  splitByTokens,
  textItem,
  unusable,
  watermark,
} from '../common/result';
import type { SourceItem, StrategyDef, StrategyInput, StrategyResult } from '../types';
import { summaryBudget } from './budget';
import { precheck } from './precheck';
import { CONTINUATION_TEXT } from './request';

/*
 * Rind: one model summary turns the old history into a handoff pair, the recent stretch
 * stays as-is. View = system + user continuation message + assistant handoff + recent tail.
 */

export const ONE_SHOT_ID = 'one-shot';

/**
 * Rind names no tail size. The default is 20 % of the agent's window, cosh's "recent raw
 * window (20% of the effective context budget)", the only raw-tail figure among the systems we
 * follow that is a share of the window; the tail belongs to the receiving agent (cosh), so it is
 * sized on the agent's window, never the summarizer's.
 */
export const DEFAULT_TAIL_RATIO = 0.2;

const Options = z.strictObject({
  /** Recent tail budget as a share of the agent's window. */
  tailRatio: z.number().min(0).max(1).default(DEFAULT_TAIL_RATIO),
  /** Recent tail budget in tokens; overrides tailRatio. */
  tailTokens: z.number().int().nonnegative().optional(),
  /** The compaction id the handoff pair cites. */
  compactionId: z.string().min(1).default(RERUN_COMPACTION_ID),
});

async function run(input: StrategyInput): Promise<StrategyResult> {
  const r = new Run(ONE_SHOT_ID, input);
  const parsed = parseOptions(Options, input.options);
  if (!parsed.ok) return r.failed(parsed.error);
  const opts = parsed.value;
  const summarizer = input.summarizer;
  if (!summarizer) return r.failed('one-shot needs a summarizer; none was given');

  const items = input.source.items;
  const tailBudget = opts.tailTokens ?? Math.floor(watermark(opts.tailRatio, input.budget.window));
  // Cut by conversation unit; an unanswered call at the end stays with the tail whatever its size.
  const split = splitByTokens(items, input.count, tailBudget, openTail(items), r.itemTokens);
  if (split.tail <= split.head)
    return r.failed(`nothing to summarise: the whole history fits the recent tail budget (${fmt(tailBudget)} tokens)`);
  const tailTokens = split.tokens.slice(split.tail).reduce((a, b) => a + b, 0);
  r.note(
    `history: ${split.tail - split.head} items to summarise; recent tail: ${items.length - split.tail} items (${fmt(tailTokens)} of ${fmt(tailBudget)} tokens) kept verbatim`,
  );

  const budget = summaryBudget(summarizer.window, input.budget.window);
  r.note(
    `summary window ${fmt(budget.window)} (${budget.windowOf}'s): output reserve ${fmt(budget.reserve)} = min(8,192, window/10), headroom ${fmt(budget.headroom)} = 5 %, request budget ${fmt(budget.input)}`,
  );
  const pre = precheck(items, { from: split.head, tail: split.tail }, budget, input.count);
  const shortened = pre.shortenedHistory + pre.shortenedTail;
  if (shortened > 0)
    r.note(
      `precheck shortened ${shortened} tool bodies to first 2,000 + last 2,000 characters (${pre.shortenedHistory} in the history, ${pre.shortenedTail} in the reference copy of the tail; ${fmt(pre.omitted)} characters omitted)`,
    );
  if (!pre.fits) {
    return r.failed(
      `cannot cut user requirements: the summary request needs ${fmt(pre.tokens)} tokens, ${fmt(budget.input)} fit (window ${fmt(budget.window)} − reserve ${fmt(budget.reserve)} − headroom ${fmt(budget.headroom)}) after shortening every over-long tool body; no request was sent`,
    );
  }
  r.note(`summary request: ${fmt(pre.tokens)} tokens estimated`);
  if (input.signal.aborted) return r.failed('cancelled before the summary request');

  input.onProgress?.({ stage: 'summarize', done: 0, total: 1 });
  const call = await summarizer.summarize(pre.request, input.signal);
  r.calls.push(call);
  input.onProgress?.({ stage: 'summarize', done: 1, total: 1 });
  const why = unusable(call);
  if (why !== null) return r.failed(`not a handoff: ${why}`);
  // Rind: "Cancellation is also rechecked after the model returns but before the commit."
  if (input.signal.aborted) return r.failed('cancelled after the summary returned; nothing committed');

  const handoff = (call.text as string).trim();
  const covers = items.slice(split.head, split.tail).map((it) => it.id);
  const out: Item[] = [
    ...items.slice(0, split.head).map(kept),
    textItem(r.newId(), 'user', CONTINUATION_TEXT, { kind: 'checkpoint', compactionId: opts.compactionId, covers, part: 'continuation' }),
    textItem(r.newId(), 'assistant', handoff, { kind: 'checkpoint', compactionId: opts.compactionId, covers, part: 'handoff' }),
    ...items.slice(split.tail).map((it: SourceItem) => kept(it)),
  ];
  const view = r.view(out);
  const after = r.measure(view);
  // cosh: the commit budget is the agent's; a handoff view that does not fit it is rejected.
  if (after > input.budget.window)
    return r.failed(`the handoff view (${fmt(after)} tokens) does not fit the agent's window (${fmt(input.budget.window)})`);
  r.note(`strategy: one-shot handoff (${fmt(input.count(handoff))} tokens) replaced ${covers.length} items`);
  return r.finish('committed', view, handoff);
}

export const oneShot: StrategyDef = {
  id: ONE_SHOT_ID,
  title: 'One-shot handoff (Rind)',
  source: '000',
  needsModel: true,
  run,
};
