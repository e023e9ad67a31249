import type { Item } from '../../model/item';
import { renderItem } from '../common/render';
import { derivedItem } from '../common/result';
import { shortenToolBodies, type CutRule } from '../common/shorten';
import type { SourceItem, TokenCounter } from '../types';

/*
 * DeepSeek Harness's ctx.toolResultPruner: "acts when text blocks exceed 8192 Unicode code points
 * by default, retaining 4096 at the head, a fixed marker, and 1024 at the tail. Non-text blocks keep
 * relative order. Slicing never splits a UTF-16 surrogate pair." The replacement cites the result it
 * shadows; the original stays in the log. The kept text (5,120 code points + marker) is under the
 * threshold, so a later scan does not trim it again.
 */

export const PRUNE_THRESHOLD = 8_192;
export const PRUNE_HEAD = 4_096;
export const PRUNE_TAIL = 1_024;
/** Fixed: the marker does not carry the omitted amount (the derivation does). */
export const PRUNE_MARKER = '\n\n[... tool result pruned: middle omitted ...]\n\n';

export const dshPruneRule = (threshold = PRUNE_THRESHOLD, head = PRUNE_HEAD, tail = PRUNE_TAIL): CutRule => ({
  threshold,
  head,
  tail,
  unit: 'codepoints',
  marker: () => PRUNE_MARKER,
});

export interface Pruned {
  /** The current surface: pruned results replaced by their copies (new ids, seq null). */
  readonly surface: SourceItem[];
  /** The candidate items for pruned positions, by index. */
  readonly derived: ReadonlyMap<number, Item>;
  /** Code points omitted over all pruned bodies. */
  readonly omitted: number;
  /** Text blocks cut (one result may hold several). */
  readonly cuts: number;
}

/** Prune every complete tool result after the system head. */
export function pruneToolResults(
  items: readonly SourceItem[],
  head: number,
  rule: CutRule,
  newId: () => string,
  count: TokenCounter,
): Pruned {
  const surface = [...items];
  const derived = new Map<number, Item>();
  let omitted = 0;
  let cuts = 0;
  for (let i = head; i < items.length; i++) {
    const it = items[i] as SourceItem;
    const cut = shortenToolBodies(it.blocks, rule);
    if (!cut) continue;
    const id = newId();
    // shadowedTokens: the heuristic price of the shadowed node, so metering can subtract it (§2.1).
    const item = derivedItem(id, it, cut.blocks, {
      kind: 'pruned',
      of: it.id,
      head: cut.head,
      tail: cut.tail,
      omitted: cut.omitted,
      unit: 'codepoints',
      shadowedTokens: count(renderItem(it, i)),
    });
    derived.set(i, item);
    surface[i] = { id, role: it.role, blocks: cut.blocks, seq: null, ...(it.meta === undefined ? {} : { meta: it.meta }) };
    omitted += cut.omitted;
    cuts += cut.cuts;
  }
  return { surface, derived, omitted, cuts };
}
