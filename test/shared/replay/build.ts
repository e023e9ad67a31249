import type { CanonicalEventInput, LogEvent } from '../../../src/shared/model/event';
import { CanonicalEvent } from '../../../src/shared/model/event';

/** Build a validated in-memory log from event bodies, as an importer would: seq = position, line = seq + 1. */
export function log(bodies: readonly CanonicalEventInput[]): LogEvent[] {
  return bodies.map((b, seq) => {
    const parsed = CanonicalEvent.parse(b);
    return { ...parsed, seq } as LogEvent;
  });
}

export const text = (t: string) => [{ type: 'text' as const, text: t }];
export const user = (id: string, t = id) => ({ kind: 'item' as const, item: { id, role: 'user' as const, blocks: text(t) } });
export const assistant = (id: string, t = id) => ({ kind: 'item' as const, item: { id, role: 'assistant' as const, blocks: text(t) } });
export const call = (id: string, callId: string) => ({
  kind: 'item' as const,
  item: { id, role: 'assistant' as const, blocks: [{ type: 'tool_call' as const, id: callId, name: 'bash', input: '{"command":"ls"}' }] },
});
export const result = (id: string, callId: string, out = 'ok') => ({
  kind: 'item' as const,
  item: { id, role: 'tool' as const, blocks: [{ type: 'tool_result' as const, callId, content: text(out) }] },
});
export const request = (id: string) => ({ kind: 'request' as const, id });
