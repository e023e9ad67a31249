import { z } from 'zod';
import type { Item } from '../../model/item';
import { renderItems } from '../common/render';
import { fmt, headLength, kept, parseOptions, RERUN_COMPACTION_ID, Run, textItem, watermark } from '../common/result';
import type { SourceItem, StrategyDef, StrategyInput, StrategyResult } from '../types';
import { CircuitBreaker, COOLDOWN_TURNS, MAX_FAILURES } from './breaker';
import {
  HARD_WATERMARK,
  latestToolResultTokens,
  OUTPUT_HEADROOM,
  SOFT_WATERMARK,
  SUMMARIZER_MAX_TOKENS,
  TAIL_KEEP,
  tailStartByCount,
  triggerOf,
} from './plan';
import { pyDumps } from './pyjson';
import { chunkedAndMerge, summarizeRange, type Attempt } from './summarize';
import { SUMMARY_BLOCK_HEADER, summaryPrompt, TRUNCATION_MARKER } from './summary';

/*
 * The Conversation Compaction article's preemptive compactor (Compactor.maybe_compact): gate on the
 * projected next turn, snapshot, summarise into a validated JSON object (chunk-and-merge when the
 * summarizer cannot hold the buffer), and on any failure fall back loudly to head/tail truncation.
 * The source is never mutated, so the snapshot-and-rollback is implicit: a failure simply builds
 * from the source.
 */

export const PREEMPTIVE_ID = 'preemptive';

const Breaker = z.strictObject({
  turn: z.number().int().nonnegative(),
  consecutiveFailures: z.number().int().nonnegative(),
  trippedAtTurn: z.number().int().nonnegative().nullable(),
});

const Options = z.strictObject({
  softWatermark: z.number().positive().max(1).default(SOFT_WATERMARK),
  hardWatermark: z.number().positive().max(1).default(HARD_WATERMARK),
  tailKeep: z.number().int().nonnegative().default(TAIL_KEEP),
  outputHeadroom: z.number().int().nonnegative().default(OUTPUT_HEADROOM),
  summarizerMaxTokens: z.number().int().positive().default(SUMMARIZER_MAX_TOKENS),
  /** Expected size of the next tool result, in tokens; default: the latest tool result's size. */
  pendingToolResult: z.number().int().nonnegative().optional(),
  maxFailures: z.number().int().positive().default(MAX_FAILURES),
  cooldownTurns: z.number().int().positive().default(COOLDOWN_TURNS),
  /** Breaker state carried in from earlier runs (default: closed, turn 0). */
  breaker: Breaker.optional(),
  /** Compact even below the soft watermark. */
  force: z.boolean().default(false),
  compactionId: z.string().min(1).default(RERUN_COMPACTION_ID),
});

async function run(input: StrategyInput): Promise<StrategyResult> {
  const r = new Run(PREEMPTIVE_ID, input);
  const parsed = parseOptions(Options, input.options);
  if (!parsed.ok) return r.failed(parsed.error);
  const opts = parsed.value;
  const items = input.source.items;
  const limit = input.budget.window;
  const breaker = new CircuitBreaker(opts.maxFailures, opts.cooldownTurns, opts.breaker);
  if (breaker.beginTurn()) r.note(`circuit breaker reset after ${opts.cooldownTurns} turns of cool-down`);

  const pending = opts.pendingToolResult ?? latestToolResultTokens(items, input.count);
  const projected = r.before + opts.outputHeadroom + pending;
  const trigger = triggerOf(projected, limit, opts.softWatermark, opts.hardWatermark);
  r.note(
    `projected next turn ${fmt(projected)} = buffer ${fmt(r.before)} + output headroom ${fmt(opts.outputHeadroom)} + expected tool result ${fmt(pending)}; soft ${fmt(watermark(opts.softWatermark, limit))}, hard ${fmt(watermark(opts.hardWatermark, limit))} of ${fmt(limit)}`,
  );
  if (trigger === 'none' && !opts.force) return r.failed('below the soft watermark: no compaction');
  r.note(trigger === 'none' ? 'force: compacting below the soft watermark' : `${trigger} trigger`);

  const head = headLength(items);
  const tail = tailStartByCount(items, opts.tailKeep);
  if (tail <= head) return r.failed(`nothing to summarise: ${items.length - head} messages, tail_keep ${opts.tailKeep}`);
  const covers = items.slice(head, tail).map((it) => it.id);
  const build = (middle: Item): Item[] => [
    ...items.slice(0, head).map(kept),
    middle,
    ...items.slice(tail).map((it: SourceItem) => kept(it)),
  ];
  const truncate = (why: string): StrategyResult => {
    r.note(
      `loud fallback: head/tail truncation dropped ${covers.length} items; kept the system head and the last ${items.length - tail} messages`,
    );
    r.note(breaker.describe());
    const marker = textItem(r.newId(), 'user', TRUNCATION_MARKER, { kind: 'marker', of: covers, fallback: 'truncation' });
    return r.finish('fallback', r.view(build(marker)), null, why);
  };

  if (breaker.open) return truncate('circuit breaker open: compaction not attempted');
  const summarizer = input.summarizer;
  let attempt: Attempt;
  if (!summarizer) attempt = { ok: false, error: 'summarizer unavailable', cancelled: false };
  else if (input.signal.aborted) return r.failed('cancelled before the summary request');
  else {
    const ctx = { summarizer, maxOutput: opts.summarizerMaxTokens, signal: input.signal, calls: r.calls };
    // Wedged buffer: the summary request (plus its output) does not fit the summarizer's window.
    const window = summarizer.window ?? limit;
    const requestTokens = input.count(summaryPrompt(renderItems(items, head, tail - 1))) + opts.summarizerMaxTokens;
    const wedged = requestTokens > window;
    r.note(
      `summarising ${covers.length} items: request ${fmt(requestTokens)} tokens with output, summarizer window ${fmt(window)}${wedged ? ': wedged, chunk-and-merge' : ''}`,
    );
    input.onProgress?.({ stage: wedged ? 'chunk-and-merge' : 'summarize', done: 0, total: wedged ? 3 : 1 });
    attempt = wedged ? await chunkedAndMerge(ctx, items, head, tail) : await summarizeRange(ctx, items, head, tail);
    input.onProgress?.({ stage: wedged ? 'chunk-and-merge' : 'summarize', done: r.calls.length, total: wedged ? 3 : 1 });
  }
  if (input.signal.aborted || (!attempt.ok && attempt.cancelled)) return r.failed('cancelled; nothing committed');
  if (!attempt.ok) {
    if (breaker.recordFailure()) r.note(`circuit breaker tripped at turn ${breaker.state.turn}`);
    return truncate(attempt.error);
  }

  breaker.recordSuccess();
  r.note(breaker.describe());
  const text = `${SUMMARY_BLOCK_HEADER}\n${pyDumps(attempt.summary, 2)}`;
  const block = textItem(r.newId(), 'user', text, { kind: 'checkpoint', compactionId: opts.compactionId, covers, part: 'summary' });
  r.note(`summary block (${fmt(input.count(text))} tokens) replaced ${covers.length} items; kept ${items.length - tail} recent messages`);
  return r.finish('committed', r.view(build(block)), text);
}

export const preemptive: StrategyDef = {
  id: PREEMPTIVE_ID,
  title: 'Preemptive compactor with breaker and truncation fallback',
  source: '002',
  needsModel: true,
  run,
};
