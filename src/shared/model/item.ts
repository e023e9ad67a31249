import { z } from 'zod';
import { Block } from './content';

export const ItemId = z.string().min(1);
export type ItemId = z.infer<typeof ItemId>;

export const Role = z.enum(['system', 'user', 'assistant', 'tool']);
export type Role = z.infer<typeof Role>;

/**
 * How an item was derived from other items, when it was. A derived item stands in the surface in
 * place of the items it cites; their fate at later requests follows from it.
 */
export const Derivation = z.discriminatedUnion('kind', [
  /** Tool-result pruning: head + marker + tail of one result (DeepSeek Harness's pruner, Rind's shortening). */
  z.object({
    kind: z.literal('pruned'),
    of: ItemId,
    head: z.number().int().nonnegative(),
    tail: z.number().int().nonnegative(),
    omitted: z.number().int().nonnegative(),
    unit: z.enum(['chars', 'codepoints', 'tokens', 'lines']).default('chars'),
    /** The harness's price of what was taken out, in tokens (DSH's shadowed token count). */
    shadowedTokens: z.number().int().nonnegative().optional(),
  }),
  /** A checkpoint / handoff that summarises the items it covers. */
  z.object({
    kind: z.literal('checkpoint'),
    compactionId: z.string(),
    /** Items the checkpoint covers (its source range), in order. */
    covers: z.array(ItemId),
    /** Part of a handoff pair, e.g. Rind's continuation user message + assistant handoff. */
    part: z.enum(['summary', 'continuation', 'handoff']).default('summary'),
  }),
  /** A copy of earlier items put back into the view (preserved messages, re-read files, restored context). */
  z.object({ kind: z.literal('reinjected'), of: z.array(ItemId) }),
  /** A visible marker written in place of dropped items (a loud truncation fallback). */
  z.object({ kind: z.literal('marker'), of: z.array(ItemId), fallback: z.string().optional() }),
]);
export type Derivation = z.infer<typeof Derivation>;

/** A unit of conversation: one node of the surface the model sees. */
export const Item = z.object({
  id: ItemId,
  role: Role,
  blocks: z.array(Block),
  /** Injected by the harness rather than typed by the user (system reminders, re-read files). */
  meta: z.boolean().optional(),
  derivation: Derivation.optional(),
  /** The harness's own name of what produced the item ("plugin:compact", "isCompactSummary"…). */
  origin: z.string().optional(),
});
export type Item = z.infer<typeof Item>;

/**
 * An item that knows its tool call ids without reading its blocks. A compact log keeps a plain
 * item's blocks as the bytes of its line and reads them when asked; the questions asked of every
 * item of a session (which calls it issues, which it answers) are answered from what the log noted
 * when it read the line.
 */
export interface IndexedItem extends Item {
  readonly callIds: readonly string[];
  readonly answerIds: readonly string[];
}

function isIndexed(item: object): item is IndexedItem {
  return 'callIds' in item && 'answerIds' in item;
}

/** Tool call ids an item issues. */
export function itemCalls(item: { readonly blocks: readonly Block[] }): string[] {
  if (isIndexed(item)) return [...item.callIds];
  const ids: string[] = [];
  for (const b of item.blocks) if (b.type === 'tool_call') ids.push(b.id);
  return ids;
}

/** Tool call ids an item answers. */
export function itemAnswers(item: { readonly blocks: readonly Block[] }): string[] {
  if (isIndexed(item)) return [...item.answerIds];
  const ids: string[] = [];
  for (const b of item.blocks) if (b.type === 'tool_result') ids.push(b.callId);
  return ids;
}

/**
 * The kind of an item for display and accounting, in the project's words (docs/architecture.md):
 * system, user, assistant text, tool call, tool result, reasoning, checkpoint.
 */
export type ItemKind = 'system' | 'user' | 'assistant' | 'tool_call' | 'tool_result' | 'reasoning' | 'checkpoint' | 'pruned' | 'marker';

export function itemKind(item: Pick<Item, 'role' | 'blocks' | 'derivation'>): ItemKind {
  if (item.derivation?.kind === 'checkpoint') return 'checkpoint';
  if (item.derivation?.kind === 'pruned') return 'pruned';
  if (item.derivation?.kind === 'marker') return 'marker';
  if (item.role === 'system') return 'system';
  if (item.blocks.some((b) => b.type === 'tool_result')) return 'tool_result';
  if (item.role === 'tool') return 'tool_result';
  if (item.role === 'assistant') {
    if (item.blocks.some((b) => b.type === 'tool_call')) return 'tool_call';
    if (item.blocks.length > 0 && item.blocks.every((b) => b.type === 'reasoning')) return 'reasoning';
    return 'assistant';
  }
  return 'user';
}
