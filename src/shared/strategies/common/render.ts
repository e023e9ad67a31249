import type { Block, LeafBlock } from '../../model/content';
import type { Item } from '../../model/item';
import type { CandidateView, SourceItem, SourceView, TokenCounter } from '../types';

/*
 * How items are written into a summary prompt, and how a view is priced. One rendering for every
 * strategy, so their token figures are comparable. The rendering names roles and tool calls
 * explicitly because the summarizer sees the history as a document, not as a conversation it is in.
 */

function leafText(b: LeafBlock): string {
  switch (b.type) {
    case 'text':
      return b.text;
    case 'reasoning':
      return b.redacted ? '[reasoning: redacted]' : b.text;
    case 'image':
      return `[image${b.mediaType ? ` ${b.mediaType}` : ''}]`;
    case 'opaque':
      return `[${b.label}${b.chars !== undefined ? `: ${b.chars} chars, unreadable` : ''}]`;
  }
}

export function blockText(b: Block): string {
  switch (b.type) {
    case 'tool_call':
      return `[tool call ${b.name} id=${b.id}] ${b.input}`;
    case 'tool_result':
      return `[tool result id=${b.callId}${b.isError ? ' error' : ''}] ${b.content.map(leafText).join('\n')}`;
    default:
      return leafText(b);
  }
}

export function blocksText(blocks: readonly Block[]): string {
  return blocks.map(blockText).join('\n');
}

/** One item as a summary prompt shows it: `[#index role] text`. */
export function renderItem(item: Pick<SourceItem, 'role' | 'blocks'>, index: number): string {
  return `[#${index} ${item.role}]\n${blocksText(item.blocks)}`;
}

export function renderItems(items: readonly SourceItem[], from = 0, to = items.length - 1): string {
  const parts: string[] = [];
  for (let i = from; i <= to; i++) parts.push(renderItem(items[i] as SourceItem, i));
  return parts.join('\n\n');
}

/** Tokens of each item as rendered for a prompt (per-item framing included). */
export function itemTokens(items: readonly SourceItem[], count: TokenCounter): number[] {
  return items.map((it, i) => count(renderItem(it, i)));
}

function toolsText(view: Pick<SourceView, 'tools'>): string {
  return view.tools ? view.tools.map((t) => `${t.name} ${t.description ?? ''} ${JSON.stringify(t.inputSchema ?? null)}`).join('\n') : '';
}

/** Estimated tokens of a view's head: system + tool schemas. Unknown system/tools count 0. */
export function headTokens(view: Pick<SourceView, 'system' | 'tools'>, count: TokenCounter): number {
  return (view.system ? count(blocksText(view.system)) : 0) + (view.tools ? count(toolsText(view)) : 0);
}

/** Estimated tokens of a whole view: system + tool schemas + items. Unknown system/tools count 0. */
export function viewTokens(view: SourceView | CandidateView, count: TokenCounter): number {
  let n = headTokens(view, count);
  const items = view.items as readonly (SourceItem | Item)[];
  for (let i = 0; i < items.length; i++) n += count(renderItem(items[i] as SourceItem, i));
  return n;
}
