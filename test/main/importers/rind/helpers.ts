import { FakeSink, type Emitted } from '../fake-sink';
import { RindSession } from '../../../../src/main/importers/rind/session';
import type { Diagnostic } from '../../../../src/shared/model/diagnostic';
import type { EventKind, EventOf, LogEvent } from '../../../../src/shared/model/event';
import type { ModelView } from '../../../../src/shared/model/view';
import { replay, type ReplayState } from '../../../../src/shared/replay/fold';
import { fatesAt, modelView, type RawItemFate } from '../../../../src/shared/replay/view';

export { FakeSink, type Emitted } from '../fake-sink';

export interface RindInput {
  readonly compactions?: readonly Record<string, unknown>[];
  readonly tools?: readonly Record<string, unknown>[];
  readonly messages?: readonly Record<string, unknown>[];
  /** meta.json; default none (null). */
  readonly meta?: Record<string, unknown> | null;
  /** Leave out the tool_calls.jsonl file entirely (a lone messages.jsonl). */
  readonly noToolFile?: boolean;
  readonly noCompactionFile?: boolean;
}

export interface Imported {
  readonly events: Emitted[];
  readonly diagnostics: Diagnostic[];
  of<K extends EventKind>(kind: K): (EventOf<K> & { seq: number; line: number; file: number })[];
  rules(): string[];
  /** Replay of the main branch and the view at each request. */
  readonly state: ReplayState;
  view(i: number): ModelView;
  fates(i: number): RawItemFate[];
}

export function asLog(events: readonly Emitted[]): LogEvent[] {
  // Their file and line ride along as extra fields: replay reads neither.
  return events as readonly LogEvent[] as LogEvent[];
}

export function importRind(input: RindInput): Imported {
  const sink = new FakeSink();
  const session = new RindSession(sink, { meta: input.meta ?? null });
  const files: [string, readonly Record<string, unknown>[]][] = [];
  if (!input.noCompactionFile) files.push(['/s/20260101_000000_feedface/compactions.jsonl', input.compactions ?? []]);
  if (!input.noToolFile) files.push(['/s/20260101_000000_feedface/tool_calls.jsonl', input.tools ?? []]);
  files.push(['/s/20260101_000000_feedface/messages.jsonl', input.messages ?? []]);
  files.forEach(([path, rows], index) => {
    sink.file = index;
    const f = session.file({ path, index });
    let offset = 0;
    rows.forEach((value, i) => {
      const length = Buffer.byteLength(JSON.stringify(value));
      f.line({ value, line: i + 1, offset, length });
      offset += length + 1;
    });
    f.end();
  });
  session.end();
  const state = replay(asLog(sink.events));
  return {
    events: sink.events,
    diagnostics: sink.diagnostics,
    of: <K extends EventKind>(kind: K) =>
      sink.events.filter((e) => e.kind === kind) as (EventOf<K> & { seq: number; line: number; file: number })[],
    rules: () => sink.diagnostics.map((d) => d.rule),
    state,
    view: (i: number) => {
      const v = modelView(state, i);
      if (!v) throw new Error(`no request ${i}`);
      return v;
    },
    fates: (i: number) => fatesAt(state, i),
  };
}

let n = 0;
const ts = (): string => `2026-01-01T00:00:${String(10 + (n++ % 50)).padStart(2, '0')}.000000+00:00`;

export const msg = (id: string, role: string, content: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  id,
  ts: ts(),
  role,
  content,
  ...extra,
});
export const sys = (id: string, content: string): Record<string, unknown> => msg(id, 'system', content);
export const user = (id: string, content: string, extra: Record<string, unknown> = {}): Record<string, unknown> =>
  msg(id, 'user', content, extra);
export const asst = (id: string, content: string, extra: Record<string, unknown> = {}): Record<string, unknown> =>
  msg(id, 'assistant', content, extra);
export const calls = (
  id: string,
  cs: [string, string, string][],
  content = '',
  extra: Record<string, unknown> = {},
): Record<string, unknown> =>
  asst(id, content, { meta: { tool_calls: cs.map(([cid, name, raw_args]) => ({ id: cid, name, raw_args })) }, ...extra });
export const toolMsg = (id: string, callId: string): Record<string, unknown> =>
  msg(id, 'tool', '', { tool_call_id: callId, tool_name: 'run_shell' });
export const record = (id: string, modelContent: string | null, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  id,
  name: 'run_shell',
  raw_args: '{"cmd":"ls"}',
  ...(modelContent === null ? {} : { model_content: modelContent }),
  ok: true,
  ...extra,
});
export const marker = (id: string, compactId: unknown): Record<string, unknown> =>
  asst(id, '', { meta: { kind: 'compact_boundary', compact_id: compactId } });
export const compaction = (
  id: string,
  strategy: string,
  handoff: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> => ({
  id,
  created_at: '2026-01-01T00:01:00.000000+00:00',
  strategy,
  reason: 'auto',
  phase: 'mid_turn',
  policy_version: 'compact_boundary_v3',
  source: { tool_call_ids: [], history_digest: 'x' },
  continuation_user_message: {
    role: 'user',
    content: 'Continue from the compacted conversation state. Use the compact handoff below as the source of prior context.',
  },
  handoff_message: { role: 'assistant', content: handoff },
  usage: {},
  ...extra,
});

/** Ids of the items of a view, in order. */
export const ids = (v: ModelView): string[] => v.items.map((i) => i.id);
