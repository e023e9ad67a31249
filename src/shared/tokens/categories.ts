import type { Block, LeafBlock, ToolSchema } from '../model/content';
import type { Derivation, Role } from '../model/item';

/**
 * What a model view's tokens are spent on. Every countable text of a view falls in exactly one
 * category, so the categories of a view sum to its total (docs/tokens.md's list, plus `framing`: the
 * per-message overhead of the chat format, which the log does not contain and which is estimated).
 */
export const TOKEN_CATEGORIES = [
  'system',
  'tools',
  'user',
  'assistant',
  'reasoning',
  'tool_call',
  'tool_result',
  'checkpoint',
  'todo',
  'masked',
  'pruned',
  'framing',
] as const;
export type TokenCategory = (typeof TOKEN_CATEGORIES)[number];

export const CATEGORY_COUNT = TOKEN_CATEGORIES.length;

export const CATEGORY_INDEX: Readonly<Record<TokenCategory, number>> = Object.fromEntries(TOKEN_CATEGORIES.map((c, i) => [c, i])) as Record<
  TokenCategory,
  number
>;

export const CATEGORY_LABEL: Readonly<Record<TokenCategory, string>> = {
  system: 'system prompt',
  tools: 'tool schemas',
  user: 'user',
  assistant: 'assistant text',
  reasoning: 'reasoning',
  tool_call: 'tool calls',
  tool_result: 'tool results',
  checkpoint: 'checkpoint / handoff',
  todo: 'todo block',
  masked: 'masked references',
  pruned: 'pruned results and markers',
  framing: 'message framing (estimated)',
};

/**
 * Tokens a chat format adds per message (role markers, separators) and once per request (reply
 * priming). OpenAI's cookbook counts 3 + 3 for its chat models; other providers are similar but
 * undocumented. Always an estimate: it is not text of the log.
 */
export const FRAMING_PER_MESSAGE = 3;
export const FRAMING_PER_REQUEST = 3;

/** One countable text of a view. `text` may be a preview: `chars` is the length of the full text. */
export interface TextPart {
  readonly category: TokenCategory;
  readonly text: string;
  readonly chars: number;
  /** false: `text` is only a preview (the rest is elided in memory and must be re-read to count it). */
  readonly complete: boolean;
}

/** Content a view carries that no local tokenizer can count. */
export interface Uncountable {
  images: number;
  /** Encrypted or otherwise unreadable blocks (a remote compaction's summary). */
  opaque: number;
  /** Redacted reasoning. */
  redacted: number;
}

export const noUncountable = (): Uncountable => ({ images: 0, opaque: 0, redacted: 0 });

export function addUncountable(into: Uncountable, from: Readonly<Uncountable>): void {
  into.images += from.images;
  into.opaque += from.opaque;
  into.redacted += from.redacted;
}

/** The item-level facts that decide the category of a block. */
export interface ItemContext {
  readonly role: Role;
  readonly derivation?: Derivation | null;
}

function part(category: TokenCategory, text: string, elided: number | undefined): TextPart {
  const e = elided ?? 0;
  return { category, text, chars: text.length + e, complete: e === 0 };
}

/** The category every text of a derived item goes to, or null when its blocks decide. */
function derivedCategory(item: ItemContext): TokenCategory | null {
  switch (item.derivation?.kind) {
    case 'checkpoint':
      return 'checkpoint';
    case 'pruned':
    case 'marker':
      return 'pruned';
    default:
      return null;
  }
}

function textCategory(role: Role): TokenCategory {
  switch (role) {
    case 'system':
      return 'system';
    case 'assistant':
      return 'assistant';
    case 'tool':
      return 'tool_result';
    case 'user':
      return 'user';
  }
}

function leafParts(b: LeafBlock, category: TokenCategory, out: TextPart[], unc: Uncountable): void {
  switch (b.type) {
    case 'text':
      if (b.text.length > 0 || (b.elided ?? 0) > 0) out.push(part(category, b.text, b.elided));
      return;
    case 'reasoning':
      if (b.redacted) unc.redacted++;
      else if (b.text.length > 0 || (b.elided ?? 0) > 0) out.push(part(category, b.text, b.elided));
      return;
    case 'image':
      unc.images++;
      return;
    case 'opaque':
      unc.opaque++;
      return;
  }
}

/**
 * The countable texts of blocks that belong to an item: reasoning, tool calls (name and arguments)
 * and tool results go to their own categories; plain text goes by the item's role; every text of a
 * checkpoint, a pruned result or a fallback marker goes to that derived category.
 */
export function itemBlockParts(item: ItemContext, blocks: readonly Block[], out: TextPart[], unc: Uncountable): void {
  const forced = derivedCategory(item);
  for (const b of blocks) {
    switch (b.type) {
      case 'text':
        leafParts(b, forced ?? textCategory(item.role), out, unc);
        break;
      case 'reasoning':
        leafParts(b, forced ?? 'reasoning', out, unc);
        break;
      case 'image':
      case 'opaque':
        leafParts(b, 'user', out, unc);
        break;
      case 'tool_call':
        out.push(part(forced ?? 'tool_call', `${b.name} ${b.input}`, b.elided));
        break;
      case 'tool_result':
        for (const c of b.content) leafParts(c, forced ?? 'tool_result', out, unc);
        break;
    }
  }
}

/** Every text of `blocks` in one category (a mask reference, the system prompt). */
export function forcedParts(blocks: readonly Block[], category: TokenCategory, out: TextPart[], unc: Uncountable): void {
  for (const b of blocks) {
    switch (b.type) {
      case 'text':
      case 'reasoning':
      case 'image':
      case 'opaque':
        leafParts(b, category, out, unc);
        break;
      case 'tool_call':
        out.push(part(category, `${b.name} ${b.input}`, b.elided));
        break;
      case 'tool_result':
        for (const c of b.content) leafParts(c, category, out, unc);
        break;
    }
  }
}

/** What the model sees in place of a masked item (the recorded reference). */
export function maskParts(reference: readonly Block[], out: TextPart[], unc: Uncountable): void {
  forcedParts(reference, 'masked', out, unc);
}

export function systemParts(blocks: readonly Block[], out: TextPart[], unc: Uncountable): void {
  forcedParts(blocks, 'system', out, unc);
}

/** Tool schemas as the text of their JSON (providers render them in their own ways; an estimate either way). */
export function toolsText(tools: readonly ToolSchema[]): string {
  return tools.length === 0 ? '' : JSON.stringify(tools);
}

export function toolsParts(tools: readonly ToolSchema[], out: TextPart[]): void {
  const text = toolsText(tools);
  if (text.length > 0) out.push({ category: 'tools', text, chars: text.length, complete: true });
}

export function todoText(todos: readonly { readonly content: string; readonly status: string }[]): string {
  return todos.map((t) => `[${t.status}] ${t.content}`).join('\n');
}

export function todoParts(todos: readonly { readonly content: string; readonly status: string }[], out: TextPart[]): void {
  const text = todoText(todos);
  if (text.length > 0) out.push({ category: 'todo', text, chars: text.length, complete: true });
}
