import { z } from 'zod';
import { blockChars, type Block } from '../../model/content';
import type { Item } from '../../model/item';
import { renderItem } from '../common/render';
import { derivedItem, fmt, headLength, kept, parseOptions, Run } from '../common/result';
import type { SourceItem, StrategyDef, StrategyInput, StrategyResult } from '../types';

/*
 * Baseline: tool-result clearing, no model (the Conversation Compaction article's "surgical
 * tool-result deletion, system prompt and assistant turns preserved"; Anthropic's clear_tool_uses,
 * Claude Code's micro-compact). The last N results stay verbatim; older ones become a short
 * placeholder naming the call. Each cleared item keeps its place, role and call id, so call/result
 * pairing stays valid; it is recorded as `pruned` (head 0, tail 0, everything omitted) rather than
 * `marker`, because a marker stands for dropped items while here the item survives with its body
 * taken out.
 */

export const CLEAR_TOOLS_ID = 'clear-tools';
export const DEFAULT_KEEP_LAST = 3;

export const clearedPlaceholder = (name: string, callId: string, chars: number): string =>
  `[tool result cleared: ${name} (call ${callId}), ${fmt(chars)} characters]`;

const Options = z.strictObject({
  /** Most recent tool results kept verbatim. */
  keepLast: z.number().int().nonnegative().default(DEFAULT_KEEP_LAST),
});

async function run(input: StrategyInput): Promise<StrategyResult> {
  const r = new Run(CLEAR_TOOLS_ID, input);
  const parsed = parseOptions(Options, input.options);
  if (!parsed.ok) return r.failed(parsed.error);
  const { keepLast } = parsed.value;
  const items = input.source.items;
  const head = headLength(items);

  const names = new Map<string, string>();
  const results: { item: number; block: number }[] = [];
  items.forEach((it, i) => {
    it.blocks.forEach((b, k) => {
      if (b.type === 'tool_call') names.set(b.id, b.name);
      else if (b.type === 'tool_result' && i >= head) results.push({ item: i, block: k });
    });
  });
  const clear = results.slice(0, Math.max(0, results.length - keepLast));
  if (clear.length === 0) return r.failed(`nothing to clear: ${results.length} tool results, the last ${keepLast} are kept`);

  const byItem = new Map<number, Set<number>>();
  for (const c of clear) byItem.set(c.item, (byItem.get(c.item) ?? new Set()).add(c.block));
  let omitted = 0;
  const out: Item[] = items.map((it, i) => {
    const blocks = byItem.get(i);
    if (!blocks) return kept(it);
    let chars = 0;
    const next = it.blocks.map((b, k): Block => {
      if (b.type !== 'tool_result' || !blocks.has(k)) return b;
      const n = blockChars(b);
      chars += n;
      return { ...b, content: [{ type: 'text', text: clearedPlaceholder(names.get(b.callId) ?? 'unknown tool', b.callId, n) }] };
    });
    omitted += chars;
    return derivedItem(r.newId(), it as SourceItem, next, {
      kind: 'pruned',
      of: it.id,
      head: 0,
      tail: 0,
      omitted: chars,
      unit: 'chars',
      shadowedTokens: input.count(renderItem(it, i)),
    });
  });
  r.note(
    `cleared ${clear.length} of ${results.length} tool results (${fmt(omitted)} characters); kept the last ${Math.min(keepLast, results.length)} verbatim`,
  );
  return r.finish('committed', r.view(out), null);
}

export const clearTools: StrategyDef = {
  id: CLEAR_TOOLS_ID,
  title: 'Tool-result clearing (baseline)',
  source: 'baseline',
  needsModel: false,
  run,
};
