import type { Role } from '../../../../src/shared/model/item';
import { charCounter } from '../common/char-counter';
import type { SourceItem, StrategyInput, StrategyProgress, SummaryRequest, Summarizer } from '../../../../src/shared/strategies/types';
import { byStage, type FakeRule } from '../fake-summarizer';

/** An item whose rendering `[#index role]\n…` is exactly `tokens` tokens under charCounter (ceil(chars / 4)). */
export function sized(index: number, role: Role, tokens: number, tag = ''): SourceItem {
  const header = `[#${index} ${role}]\n`;
  const body = tag.padEnd(tokens * 4 - header.length, '.');
  return { id: `i${index}`, role, blocks: [{ type: 'text', text: body }], seq: index };
}

export function text(index: number, role: Role, t: string): SourceItem {
  return { id: `i${index}`, role, blocks: [{ type: 'text', text: t }], seq: index };
}

export function call(index: number, callId: string, name: string, input: unknown): SourceItem {
  return {
    id: `i${index}`,
    role: 'assistant',
    blocks: [{ type: 'tool_call', id: callId, name, input: JSON.stringify(input) }],
    seq: index,
  };
}

export function result(index: number, callId: string, t: string): SourceItem {
  return { id: `i${index}`, role: 'tool', blocks: [{ type: 'tool_result', callId, content: [{ type: 'text', text: t }] }], seq: index };
}

/** `n` items alternating user/assistant (ending on assistant when n is even), each `tokens` tokens. */
export function history(n: number, tokens = 100): SourceItem[] {
  return Array.from({ length: n }, (_, i) => sized(i, i % 2 === 0 ? 'user' : 'assistant', tokens, `item-${i}`));
}

export interface InputOptions {
  readonly window?: number;
  readonly maxOutput?: number | null;
  readonly options?: Record<string, unknown>;
  readonly signal?: AbortSignal;
  readonly onProgress?: (p: StrategyProgress) => void;
}

export function input(items: readonly SourceItem[], summarizer: Summarizer | null, o: InputOptions = {}): StrategyInput {
  return {
    source: { system: [{ type: 'text', text: 'You are a coding agent.' }], tools: null, items, route: null, reportedInputTokens: null },
    budget: { window: o.window ?? 2_500, maxOutput: o.maxOutput ?? null },
    count: charCounter,
    summarizer,
    signal: o.signal ?? new AbortController().signal,
    ...(o.options ? { options: o.options } : {}),
    ...(o.onProgress ? { onProgress: o.onProgress } : {}),
  };
}

/** Every audit passes (tests that are not about the audit). */
export const passAudit: FakeRule = byStage('audit', { text: 'PASS' });

/** The item indices a map request covers, from its `[#n role]` labels. */
export function itemsIn(req: SummaryRequest): number[] {
  const text = req.messages.map((m) => m.text).join('\n');
  return [...text.matchAll(/^\[#(\d+) \w+\]$/gm)].map((m) => Number(m[1]));
}

export const mapsOf = (reqs: readonly SummaryRequest[]) => reqs.filter((r) => r.stage === 'map');
export const ofStage = (reqs: readonly SummaryRequest[], stage: SummaryRequest['stage']) => reqs.filter((r) => r.stage === stage);
