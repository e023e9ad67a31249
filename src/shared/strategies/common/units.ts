import { itemAnswers, itemCalls } from '../../model/item';
import type { SourceItem } from '../types';

/**
 * Conversation units: the smallest runs of items a cut may not split. An assistant item that issues
 * tool calls forms one unit with the items that answer those calls (Rind: "the split unit must
 * not break apart an assistant tool_calls and its corresponding tool results"; cosh: "preserving
 * native tool-call/result pairs"; DeepSeek Harness: "no unanswered call crosses a cut").
 */
export interface Unit {
  /** Index of the first item of the unit in the source items. */
  readonly from: number;
  /** Index of the last item, inclusive. */
  readonly to: number;
  /** Calls issued in the unit that no item of the unit answers (an open, indivisible tail). */
  readonly open: readonly string[];
}

export function units(items: readonly SourceItem[]): Unit[] {
  const out: Unit[] = [];
  let i = 0;
  while (i < items.length) {
    const from = i;
    const pending = new Set(itemCalls(items[i] as SourceItem));
    i++;
    // Extend over the answers to the calls still pending (answers may be spread over several items).
    while (pending.size > 0 && i < items.length) {
      const it = items[i] as SourceItem;
      const answers = itemAnswers(it);
      if (answers.length === 0 || !answers.some((a) => pending.has(a))) break;
      for (const a of answers) pending.delete(a);
      for (const c of itemCalls(it)) pending.add(c);
      i++;
    }
    out.push({ from, to: i - 1, open: [...pending] });
  }
  return out;
}

/**
 * The index of the first item of a recent tail that holds at most `budget` tokens, cut at a unit
 * boundary (so call/result pairs stay together). Returns items.length when not even the last unit
 * fits and `keepLastUnit` is false; with `keepLastUnit` the last unit is kept whatever its size.
 */
export function tailStart(items: readonly SourceItem[], itemTokens: readonly number[], budget: number, keepLastUnit = false): number {
  const us = units(items);
  let used = 0;
  let start = items.length;
  for (let u = us.length - 1; u >= 0; u--) {
    const unit = us[u] as Unit;
    let t = 0;
    for (let k = unit.from; k <= unit.to; k++) t += itemTokens[k] ?? 0;
    if (used + t > budget && !(keepLastUnit && u === us.length - 1)) break;
    used += t;
    start = unit.from;
  }
  return start;
}
