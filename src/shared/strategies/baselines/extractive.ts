import { z } from 'zod';
import type { Item } from '../../model/item';
import { fmt, kept, openTail, parseOptions, RERUN_COMPACTION_ID, Run, splitByTokens, textItem, watermark } from '../common/result';
import type { SourceItem, StrategyDef, StrategyInput, StrategyResult } from '../types';
import { extractLines, lineText, selectLines } from './extract';

/*
 * Baseline: an extractive summary, no model. The summarised range becomes one checkpoint made of
 * lines copied verbatim from it (user constraints, error strings, paths, identifiers and numbers),
 * followed by the recent tail. Rind names a "deterministic fallback" next to the model summary;
 * this is one such, and the floor a model summary should beat. The line budget defaults to the
 * output a one-shot summary may take (Rind: min(8,192, window/10)), so both get the same room.
 */

export const EXTRACTIVE_ID = 'extractive';
export const DEFAULT_TAIL_RATIO = 0.2;
export const EXTRACT_HEADER = 'Extractive summary of earlier history (lines copied verbatim, selected without a model):';

const Options = z.strictObject({
  tailRatio: z.number().min(0).max(1).default(DEFAULT_TAIL_RATIO),
  tailTokens: z.number().int().nonnegative().optional(),
  /** Token budget of the selected lines; default min(8,192, window/10). */
  maxTokens: z.number().int().positive().optional(),
  compactionId: z.string().min(1).default(RERUN_COMPACTION_ID),
});

async function run(input: StrategyInput): Promise<StrategyResult> {
  const r = new Run(EXTRACTIVE_ID, input);
  const parsed = parseOptions(Options, input.options);
  if (!parsed.ok) return r.failed(parsed.error);
  const opts = parsed.value;
  const items = input.source.items;
  const window = input.budget.window;
  const tailBudget = opts.tailTokens ?? Math.floor(watermark(opts.tailRatio, window));
  const budget = opts.maxTokens ?? Math.min(8_192, Math.floor(window / 10));
  const split = splitByTokens(items, input.count, tailBudget, openTail(items), r.itemTokens);
  if (split.tail <= split.head)
    return r.failed(`nothing to summarise: the history fits the recent tail budget (${fmt(tailBudget)} tokens)`);

  const lines = extractLines(items, split.head, split.tail);
  const chosen = selectLines(lines, budget, input.count);
  const body =
    chosen.length > 0 ? chosen.map(lineText).join('\n') : '(no line matched: no constraint, error, path or identifier in this range)';
  const text = `${EXTRACT_HEADER}\n${body}`;
  const covers = items.slice(split.head, split.tail).map((it) => it.id);
  const out: Item[] = [
    ...items.slice(0, split.head).map(kept),
    textItem(r.newId(), 'user', text, { kind: 'checkpoint', compactionId: opts.compactionId, covers, part: 'summary' }),
    ...items.slice(split.tail).map((it: SourceItem) => kept(it)),
  ];
  const kinds = ['constraint', 'error', 'path', 'identifier'].map((k) => `${chosen.filter((l) => l.kind === k).length} ${k}`).join(', ');
  r.note(
    `extracted ${chosen.length} of ${lines.length} candidate lines (${kinds}) from ${covers.length} items within ${fmt(budget)} tokens; kept the last ${items.length - split.tail} items verbatim`,
  );
  return r.finish('committed', r.view(out), text);
}

export const extractive: StrategyDef = {
  id: EXTRACTIVE_ID,
  title: 'Extractive summary (baseline)',
  source: 'baseline',
  needsModel: false,
  run,
};
