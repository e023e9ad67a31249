import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { codexImporter } from '../../../../src/main/importers/codex';
import { FakeSink, jsonLine, type Emitted } from '../fake-sink';
import type { Diagnostic } from '../../../../src/shared/model/diagnostic';
import type { EventKind, EventOf, LogEvent } from '../../../../src/shared/model/event';
import type { ModelView } from '../../../../src/shared/model/view';
import { type ReplayState, replay } from '../../../../src/shared/replay/fold';
import { modelView } from '../../../../src/shared/replay/view';

export const FIXTURES = fileURLToPath(new URL('../../../../fixtures/codex/', import.meta.url));

/** The real rollouts (Codex 0.104.0-alpha.1, redacted). */
export const SAMPLES = {
  remote: 'rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl',
  short: 'rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl',
  tools: 'rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl',
} as const;

export { FakeSink, type Emitted } from '../fake-sink';

export interface Imported {
  readonly events: Emitted[];
  readonly diagnostics: Diagnostic[];
  /** Parsed values of the file's lines, 1-based (index 0 unused). */
  readonly lines: Record<string, unknown>[];
  of<K extends EventKind>(kind: K): (EventOf<K> & { seq: number; line: number; file: number })[];
}

export function importValues(
  values: readonly Record<string, unknown>[],
  path = 'rollout-2026-01-01T00-00-00-00000000-0000-0000-0000-000000000001.jsonl',
): Imported {
  const sink = new FakeSink();
  const file = codexImporter.open({ path, index: 0 }, sink);
  let offset = 0;
  values.forEach((v, i) => {
    const length = Buffer.byteLength(JSON.stringify(v));
    file.line(jsonLine(v, i + 1, offset, length));
    offset += length + 1;
  });
  file.end();
  return {
    events: sink.events,
    diagnostics: sink.diagnostics,
    lines: [{}, ...values],
    of: <K extends EventKind>(kind: K) =>
      sink.events.filter((e) => e.kind === kind) as (EventOf<K> & { seq: number; line: number; file: number })[],
  };
}

export function readFixture(rel: string): Record<string, unknown>[] {
  const text = readFileSync(FIXTURES + rel, 'utf8');
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

export function importFixture(rel: string): Imported {
  return importValues(readFixture(rel), rel);
}

export function errors(ds: readonly Diagnostic[]): Diagnostic[] {
  return ds.filter((d) => d.severity === 'error');
}

// ---------------------------------------------------------------------------------------------
// Rollout line builders (the shapes of Codex 0.104 rollouts).

let clock = Date.parse('2026-02-23T12:00:00.000Z');
const ts = (): string => new Date((clock += 1000)).toISOString();

export const line = (type: string, payload: unknown): Record<string, unknown> => ({ timestamp: ts(), type, payload });

export const meta = (extra: Record<string, unknown> = {}): Record<string, unknown> =>
  line('session_meta', {
    id: 'sess-1',
    timestamp: '2026-02-23T12:00:00.000Z',
    cwd: '/work',
    originator: 'codex_cli_rs',
    cli_version: '0.104.0',
    source: 'cli',
    model_provider: 'openai',
    base_instructions: { text: 'You are Codex.' },
    ...extra,
  });

export const item = (payload: Record<string, unknown>): Record<string, unknown> => line('response_item', payload);
export const ev = (payload: Record<string, unknown>): Record<string, unknown> => line('event_msg', payload);

export const msg = (role: string, ...texts: string[]): Record<string, unknown> =>
  item({ type: 'message', role, content: texts.map((text) => ({ type: role === 'assistant' ? 'output_text' : 'input_text', text })) });
export const user = (text: string): Record<string, unknown> => msg('user', text);
export const dev = (text: string): Record<string, unknown> => msg('developer', text);
export const say = (text: string, phase = 'final_answer'): Record<string, unknown> =>
  item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }], phase });
export const think = (summary = 'Thinking'): Record<string, unknown> =>
  item({ type: 'reasoning', summary: [{ type: 'summary_text', text: summary }], content: null, encrypted_content: 'gAAAA-secret' });
export const call = (id: string, name = 'exec_command', args = '{"cmd":"ls"}'): Record<string, unknown> =>
  item({ type: 'function_call', name, arguments: args, call_id: id });
export const out = (id: string, output: unknown = 'ok'): Record<string, unknown> =>
  item({ type: 'function_call_output', call_id: id, output });
export const turnContext = (model = 'gpt-5.3-codex', effort = 'high'): Record<string, unknown> =>
  line('turn_context', { turn_id: 't', cwd: '/work', approval_policy: 'on-request', model, effort, summary: 'auto' });
export const started = (window = 258_400): Record<string, unknown> =>
  ev({ type: 'task_started', turn_id: 't', model_context_window: window });
export const complete = (): Record<string, unknown> => ev({ type: 'task_complete', turn_id: 't', last_agent_message: null });

export interface Counts {
  readonly input: number;
  readonly cached?: number;
  readonly output?: number;
  readonly reasoning?: number;
}

/** A token_count whose `last_token_usage` is `last`; `total` is the running total (pass the same value again for a repeat). */
export function tokens(last: Counts, total: number, window = 258_400): Record<string, unknown> {
  const u = (c: Counts, t: number) => ({
    input_tokens: c.input,
    cached_input_tokens: c.cached ?? 0,
    output_tokens: c.output ?? 0,
    reasoning_output_tokens: c.reasoning ?? 0,
    total_tokens: t,
  });
  return ev({
    type: 'token_count',
    info: {
      total_token_usage: u({ input: total, output: 0 }, total),
      last_token_usage: u(last, last.input + (last.output ?? 0)),
      model_context_window: window,
    },
    rate_limits: null,
  });
}

/** Codex's own re-estimate after a compaction: every count 0 but total_tokens. */
export function estimate(total: number, runningTotal: number, window = 258_400): Record<string, unknown> {
  const zero = { input_tokens: 0, cached_input_tokens: 0, output_tokens: 0, reasoning_output_tokens: 0 };
  return ev({
    type: 'token_count',
    info: {
      total_token_usage: { ...zero, input_tokens: runningTotal, total_tokens: runningTotal },
      last_token_usage: { ...zero, total_tokens: total },
      model_context_window: window,
    },
    rate_limits: null,
  });
}

export const compacted = (message: string, replacement_history?: unknown[]): Record<string, unknown> =>
  line('compacted', replacement_history === undefined ? { message } : { message, replacement_history });

/** The payload of a line built above (for replacement histories). */
export const payload = (l: Record<string, unknown>): Record<string, unknown> => l.payload as Record<string, unknown>;

/** The events as a log the replay can fold (what the loader would hold, without elision). */
export function asLog(events: readonly Emitted[]): LogEvent[] {
  return events.map((e) => {
    const { line: _line, ...body } = e;
    return body as LogEvent;
  });
}

/** Replay of the imported events, with its model views. */
export function views(r: Imported): { state: ReplayState; view: (i: number) => ModelView } {
  const state = replay(asLog(r.events));
  return {
    state,
    view: (i: number) => {
      const v = modelView(state, i);
      if (!v) throw new Error(`no request ${i}`);
      return v;
    },
  };
}
