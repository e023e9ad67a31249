import { z } from 'zod';
import type { Item } from '../../model/item';
import { itemAnswers } from '../../model/item';
import { fmt, kept, openTail, parseOptions, Run, splitByTokens, textItem, watermark } from '../common/result';
import { units } from '../common/units';
import type { SourceItem, StrategyDef, StrategyInput, StrategyResult } from '../types';

/*
 * Baseline: head/tail truncation, no model. The Conversation Compaction article's last-resort
 * eviction ("keep the system prompt, keep the most recent K turns, drop everything in the middle"),
 * made loud with a marker item. The tail is a token budget cut at unit boundaries, the same 20 % of
 * the window the one-shot and extractive strategies keep, so that comparing them measures what the
 * summary adds. The first user message is kept by default: in agent sessions it usually states the
 * task, and losing it is the commonest way truncation derails a session.
 */

export const TRUNCATE_ID = 'truncate';
export const DEFAULT_TAIL_RATIO = 0.2;
export const truncationMarker = (n: number): string => `[${fmt(n)} earlier ${n === 1 ? 'item' : 'items'} truncated; no summary]`;

const Options = z.strictObject({
  tailRatio: z.number().min(0).max(1).default(DEFAULT_TAIL_RATIO),
  tailTokens: z.number().int().nonnegative().optional(),
  keepFirstUser: z.boolean().default(true),
});

/** Index of the first typed user message (not a harness-injected meta item) in [from, to) that is a unit on its own, or -1. */
function firstUser(items: readonly SourceItem[], from: number, to: number): number {
  const single = new Set(
    units(items)
      .filter((u) => u.from === u.to)
      .map((u) => u.from),
  );
  for (let i = from; i < to; i++) {
    const it = items[i] as SourceItem;
    if (it.role === 'user' && !it.meta && itemAnswers(it).length === 0 && single.has(i)) return i;
  }
  return -1;
}

async function run(input: StrategyInput): Promise<StrategyResult> {
  const r = new Run(TRUNCATE_ID, input);
  const parsed = parseOptions(Options, input.options);
  if (!parsed.ok) return r.failed(parsed.error);
  const opts = parsed.value;
  const items = input.source.items;
  const tailBudget = opts.tailTokens ?? Math.floor(watermark(opts.tailRatio, input.budget.window));
  const split = splitByTokens(items, input.count, tailBudget, openTail(items), r.itemTokens);
  const keepAt = opts.keepFirstUser ? firstUser(items, split.head, split.tail) : -1;
  // One marker per contiguous dropped run, so each stands exactly where its items were.
  const before = keepAt >= 0 ? items.slice(split.head, keepAt) : [];
  const after = items.slice(keepAt >= 0 ? keepAt + 1 : split.head, split.tail);
  const dropped = before.length + after.length;
  if (dropped === 0) return r.failed(`nothing to truncate: the history fits the recent tail budget (${fmt(tailBudget)} tokens)`);

  const marker = (run: readonly SourceItem[]): Item[] =>
    run.length === 0
      ? []
      : [textItem(r.newId(), 'user', truncationMarker(run.length), { kind: 'marker', of: run.map((it) => it.id), fallback: 'truncation' })];
  const out: Item[] = items.slice(0, split.head).map(kept);
  out.push(...marker(before));
  if (keepAt >= 0) out.push(kept(items[keepAt] as SourceItem));
  out.push(...marker(after));
  out.push(...items.slice(split.tail).map((it: SourceItem) => kept(it)));
  r.note(
    `dropped ${dropped} items behind a truncation marker; kept ${keepAt >= 0 ? 'the first user message, ' : ''}the last ${items.length - split.tail} items (tail budget ${fmt(tailBudget)} tokens)`,
  );
  // Outcome 'fallback': the candidate is a loud truncation, what StrategyOutcome calls a fallback;
  // there is no summary to commit, and the eval record's fallback marker check applies to it.
  return r.finish('fallback', r.view(out), null);
}

export const truncate: StrategyDef = {
  id: TRUNCATE_ID,
  title: 'Head/tail truncation (baseline)',
  source: 'baseline',
  needsModel: false,
  run,
};
