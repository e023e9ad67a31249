import { z } from 'zod';
import type { Item } from '../../model/item';
import { renderItem } from '../common/render';
import { fmt, headLength, kept, parseOptions, RERUN_COMPACTION_ID, Run, textItem, unusable, watermark } from '../common/result';
import type { SourceItem, StrategyDef, StrategyInput, StrategyResult } from '../types';
import { dshPruneRule, pruneToolResults, PRUNE_HEAD, PRUNE_TAIL, PRUNE_THRESHOLD } from './pruner';
import { selectRange } from './range';
import { checkpointText, dshRequest } from './request';

/*
 * DeepSeek Harness (compaction-basic): price the whole envelope; below 0.8 × window do
 * nothing; under pressure prune tool results first and skip the summary when that is enough; else
 * replace the oldest non-head range (keeping a 0.16 × window tail) by one <compacted-summary>
 * user checkpoint, rejecting a summary that is not smaller than its source.
 */

export const DSH_BASIC_ID = 'dsh-basic';
export const THRESHOLD_RATIO = 0.8;
export const RETAIN_RATIO = 0.16;

const Options = z.strictObject({
  thresholdRatio: z.number().positive().max(1).default(THRESHOLD_RATIO),
  retainRatio: z.number().min(0).max(1).default(RETAIN_RATIO),
  /**
   * A manual compaction: skip the pressure gate and the "safe after pruning" shortcut, so the
   * summary path runs on any source. Off by default: in DeepSeek Harness a below-pressure step
   * never prunes.
   */
  force: z.boolean().default(false),
  /** Run the tool-result pruner (DSH's is optional: ctx.toolResultPruner). */
  prune: z.boolean().default(true),
  pruneThreshold: z.number().int().positive().default(PRUNE_THRESHOLD),
  pruneHead: z.number().int().nonnegative().default(PRUNE_HEAD),
  pruneTail: z.number().int().nonnegative().default(PRUNE_TAIL),
  compactionId: z.string().min(1).default(RERUN_COMPACTION_ID),
});

async function run(input: StrategyInput): Promise<StrategyResult> {
  const r = new Run(DSH_BASIC_ID, input);
  const parsed = parseOptions(Options, input.options);
  if (!parsed.ok) return r.failed(parsed.error);
  const opts = parsed.value;
  const window = input.budget.window;
  const trigger = watermark(opts.thresholdRatio, window);
  const retain = Math.floor(watermark(opts.retainRatio, window));
  const items = input.source.items;
  const head = headLength(items);

  // §1.1: pressure is the priced envelope (system + tools + messages), not messages.length.
  const under = r.before >= trigger;
  r.note(
    `envelope ${fmt(r.before)} tokens; trigger ${fmt(trigger)} (${opts.thresholdRatio} × ${fmt(window)}); ${under ? 'under pressure' : 'below pressure'}`,
  );
  if (!under && !opts.force) return r.failed('below pressure: no compaction');
  if (!under) r.note('force: compacting below pressure (manual compaction)');

  // §2.2: pressure qualified, so the model-free pruner goes first, then remeasure.
  const pruned = opts.prune
    ? pruneToolResults(items, head, dshPruneRule(opts.pruneThreshold, opts.pruneHead, opts.pruneTail), () => r.newId(), input.count)
    : { surface: [...items], derived: new Map<number, Item>(), omitted: 0, cuts: 0 };
  const surfaceItems = (from: number, to: number): Item[] => {
    const out: Item[] = [];
    for (let i = from; i < to; i++) out.push(pruned.derived.get(i) ?? kept(items[i] as SourceItem));
    return out;
  };
  if (pruned.derived.size > 0) {
    const prunedView = r.view(surfaceItems(0, items.length));
    const remeasured = r.measure(prunedView);
    r.note(
      `pruner: ${pruned.derived.size} tool results (${pruned.cuts} text blocks) cut to ${fmt(opts.pruneHead)} head + marker + ${fmt(opts.pruneTail)} tail code points, ${fmt(pruned.omitted)} code points omitted; remeasured ${fmt(remeasured)} tokens`,
    );
    if (remeasured < trigger && !opts.force) {
      r.note('safe after pruning: no summary request');
      return r.finish('committed', prunedView, null);
    }
  } else if (opts.prune) r.note(`pruner: no tool result text over ${fmt(opts.pruneThreshold)} code points`);

  const range = selectRange(pruned.surface, input.count, retain);
  if (!range.ok) return r.failed(range.reason);
  const sourceTokens = range.tokens.slice(range.from, range.to).reduce((a, b) => a + b, 0);
  r.note(
    `range: items #${range.from}-#${range.to - 1} (${range.to - range.from} items, ${fmt(sourceTokens)} tokens); recent tail reserve ${fmt(retain)} tokens (${opts.retainRatio} × window) keeps ${items.length - range.to} items`,
  );

  const summarizer = input.summarizer;
  if (!summarizer) return r.failed('dsh-basic needs a summarizer for the summary step; none was given');
  if (input.signal.aborted) return r.failed('cancelled before the summary request');
  input.onProgress?.({ stage: 'summarize', done: 0, total: 1 });
  const call = await summarizer.summarize(dshRequest(input.source.system, pruned.surface, head, range.from, range.to), input.signal);
  r.calls.push(call);
  input.onProgress?.({ stage: 'summarize', done: 1, total: 1 });
  const pruneKept = pruned.derived.size > 0 ? ' (DSH would keep the pruning already logged)' : '';
  const why = unusable(call);
  if (why !== null) return r.failed(`summary rejected: ${why}${pruneKept}`);
  if (input.signal.aborted) return r.failed('cancelled after the summary returned; nothing committed');

  const summary = (call.text as string).trim();
  // Covers cite the source items, also where the surface held a pruned copy of one.
  const covers = items.slice(range.from, range.to).map((it) => it.id);
  const checkpoint = textItem(r.newId(), 'user', checkpointText(summary), {
    kind: 'checkpoint',
    compactionId: opts.compactionId,
    covers,
    part: 'summary',
  });
  const checkpointTokens = input.count(renderItem(checkpoint, range.from));
  // §3.2: "The basic backend rejects a summary that is not smaller than its source."
  if (checkpointTokens >= sourceTokens)
    return r.failed(
      `summary rejected: the checkpoint (${fmt(checkpointTokens)} tokens) is not smaller than its source (${fmt(sourceTokens)} tokens)${pruneKept}`,
    );

  const view = r.view([...surfaceItems(0, range.from), checkpoint, ...surfaceItems(range.to, items.length)]);
  const after = r.measure(view);
  r.note(
    `one <compacted-summary> checkpoint (${fmt(checkpointTokens)} tokens) replaced ${covers.length} items (${fmt(sourceTokens)} tokens)`,
  );
  if (after >= trigger)
    r.note(`still at or above the trigger (${fmt(after)} tokens): DSH would run another checkpoint compaction under compactionRetries`);
  return r.finish('committed', view, summary);
}

export const dshBasic: StrategyDef = {
  id: DSH_BASIC_ID,
  title: 'DSH compaction-basic (prune, then one checkpoint)',
  source: '004',
  needsModel: true,
  run,
};
