import type { Fault, Reply, ReplyBlock, ScriptUsage } from '../script';
import type { RenderContext } from './types';

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** Splits a text into at most `parts` deltas (at least one, possibly empty) so clients must join them. */
export function deltas(text: string, parts = 3): string[] {
  if (text.length === 0) return [''];
  const size = Math.max(1, Math.ceil(text.length / parts));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

export function toolInput(b: Extract<ReplyBlock, { type: 'tool_call' }>): string {
  return typeof b.input === 'string' ? b.input : JSON.stringify(b.input);
}

/** Usage with defaults: input ≈ a quarter of the body bytes, output ≈ a quarter of the reply's characters. */
export function usageOf(
  reply: Reply,
  ctx: RenderContext,
): Required<Pick<ScriptUsage, 'input' | 'output' | 'cacheRead' | 'cacheWrite' | 'reasoning'>> {
  const u = reply.usage ?? {};
  let chars = 0;
  for (const b of reply.content) chars += b.type === 'tool_call' ? b.name.length + toolInput(b).length : b.text.length;
  return {
    input: u.input ?? Math.max(1, Math.ceil(ctx.bodyBytes / 4)),
    output: u.output ?? Math.max(1, Math.ceil(chars / 4)),
    cacheRead: u.cacheRead ?? 0,
    cacheWrite: u.cacheWrite ?? 0,
    reasoning: u.reasoning ?? 0,
  };
}

export function stopOf(reply: Reply): NonNullable<Reply['stop']> {
  return reply.stop ?? (reply.content.some((b) => b.type === 'tool_call') ? 'tool' : 'end');
}

/** The prompt size an overflow fault reports: as scripted, else the larger of window + 1 and the body estimate. */
export function overflowTokens(f: Extract<Fault, { kind: 'context_overflow' }>, ctx: RenderContext): number {
  return f.promptTokens ?? Math.max(f.window + 1, Math.ceil(ctx.bodyBytes / 4));
}

/** A positive integer field of a request body, or null. */
export function positiveInt(v: unknown): number | null {
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : null;
}
