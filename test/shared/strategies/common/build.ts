import type { Block } from '../../../../src/shared/model/content';
import { charCounter } from './char-counter';
import type { SourceItem, SourceView, StrategyInput, Summarizer } from '../../../../src/shared/strategies/types';

/** Small builders for strategy tests: items, a view, an input with the char counter (ceil(chars / 4)). */

let seq = 0;
const item = (id: string, role: SourceItem['role'], blocks: Block[]): SourceItem => ({ id, role, blocks, seq: seq++ });

export const sys = (id: string, text: string): SourceItem => item(id, 'system', [{ type: 'text', text }]);
export const user = (id: string, text: string): SourceItem => item(id, 'user', [{ type: 'text', text }]);
export const assistant = (id: string, text: string): SourceItem => item(id, 'assistant', [{ type: 'text', text }]);
export const call = (id: string, callId: string, name = 'read_file', input = '{"path":"src/a.ts"}'): SourceItem =>
  item(id, 'assistant', [{ type: 'tool_call', id: callId, name, input }]);
export const result = (id: string, callId: string, text: string): SourceItem =>
  item(id, 'tool', [{ type: 'tool_result', callId, content: [{ type: 'text', text }] }]);

export function view(items: SourceItem[], system: string | null = 'You are a coding agent.'): SourceView {
  return { system: system === null ? null : [{ type: 'text', text: system }], tools: null, items, route: null, reportedInputTokens: null };
}

export interface InputOptions {
  readonly window?: number;
  readonly summarizer?: Summarizer | null;
  readonly options?: Record<string, unknown>;
  readonly signal?: AbortSignal;
}

export function input(source: SourceView, o: InputOptions = {}): StrategyInput {
  return {
    source,
    budget: { window: o.window ?? 100_000, maxOutput: null },
    count: charCounter,
    summarizer: o.summarizer ?? null,
    signal: o.signal ?? new AbortController().signal,
    options: o.options,
  };
}

/** `n` characters of filler text, ASCII. */
export const chars = (n: number, c = 'x'): string => c.repeat(n);

/** True when the string holds a lone (split) surrogate. */
export const hasLoneSurrogate = (s: string): boolean => /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);

/** Text of an item's first text leaf (direct or inside a tool result). */
export function textOf(it: { readonly blocks: readonly Block[] } | undefined): string {
  const b = it?.blocks[0];
  if (!b) return '';
  if (b.type === 'text') return b.text;
  if (b.type === 'tool_result') return b.content[0]?.type === 'text' ? b.content[0].text : '';
  return '';
}
