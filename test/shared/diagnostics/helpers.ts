import type { Diagnostic } from '../../../src/shared/model/diagnostic';
import type { CanonicalEventInput, LogEvent } from '../../../src/shared/model/event';
import { CanonicalEvent } from '../../../src/shared/model/event';
import { replay } from '../../../src/shared/replay/fold';
import { diagnose } from '../../../src/shared/diagnostics';
import { type RunOptions } from '../../../src/shared/diagnostics/runner';
import { type TokenEstimator } from '../../../src/shared/diagnostics/measure';

/** A validated in-memory log, as an importer would build it: seq = position, line = seq + 1. */
export function log(bodies: readonly CanonicalEventInput[]): LogEvent[] {
  return bodies.map((b, seq) => {
    const parsed = CanonicalEvent.parse(b);
    return { ...parsed, seq } as LogEvent;
  });
}

export const text = (t: string) => [{ type: 'text' as const, text: t }];
export const user = (id: string, t = `user says ${id}`): CanonicalEventInput => ({
  kind: 'item',
  item: { id, role: 'user', blocks: text(t) },
});
export const assistant = (id: string, t = `assistant says ${id}`): CanonicalEventInput => ({
  kind: 'item',
  item: { id, role: 'assistant', blocks: text(t) },
});
export const call = (id: string, callId: string): CanonicalEventInput => ({
  kind: 'item',
  item: { id, role: 'assistant', blocks: [{ type: 'tool_call', id: callId, name: 'bash', input: '{"command":"ls"}' }] },
});
export const result = (id: string, callId: string, out = 'ok'): CanonicalEventInput => ({
  kind: 'item',
  item: { id, role: 'tool', blocks: [{ type: 'tool_result', callId, content: text(out) }] },
});
export const checkpoint = (
  id: string,
  compactionId: string,
  covers: string[],
  op: Extract<CanonicalEventInput, { kind: 'item' }>['op'],
  sources?: number[],
  t = 'summary',
): CanonicalEventInput => ({
  kind: 'item',
  item: { id, role: 'user', blocks: text(t), derivation: { kind: 'checkpoint', compactionId, covers } },
  op,
  ...(sources ? { sources } : {}),
});

export interface Run {
  readonly events: LogEvent[];
  readonly findings: Diagnostic[];
  of(rule: string): Diagnostic[];
}

/** Replay `bodies` on main and run the catalog (or some rules). */
export function run(
  bodies: readonly CanonicalEventInput[],
  opts: RunOptions & { format?: string; estimate?: TokenEstimator; branch?: string } = {},
): Run {
  const events = log(bodies);
  const state = replay(events, opts.branch ? { branch: opts.branch } : {});
  const findings = diagnose({ events, state, format: opts.format ?? 'palimpsest', estimate: opts.estimate ?? null }, opts);
  return { events, findings, of: (rule) => findings.filter((d) => d.rule === rule) };
}

/** A chars/4 estimator, for the token-based paths rules take when one is plugged in. */
export const quarterChars: TokenEstimator = (blocks) => {
  let n = 0;
  for (const b of blocks) {
    if (b.type === 'text' || b.type === 'reasoning') n += b.text.length;
    else if (b.type === 'tool_call') n += b.input.length;
    else if (b.type === 'tool_result') for (const c of b.content) if (c.type === 'text') n += c.text.length;
  }
  return Math.ceil(n / 4);
};
