import { CoshFileImport } from '../../../../src/main/importers/cosh/file';
import type { Diagnostic } from '../../../../src/shared/model/diagnostic';
import type { EventKind, EventOf } from '../../../../src/shared/model/event';
import type { ModelView } from '../../../../src/shared/model/view';
import { replay, type ReplayState } from '../../../../src/shared/replay/fold';
import { fatesAt, modelView, type RawItemFate } from '../../../../src/shared/replay/view';
import { type Emitted, FakeSink, asLog } from '../rind/helpers';

type Json = Record<string, unknown>;

/** A cosh history under construction: `HistoryEvent`s with increasing ids. */
export class Log {
  readonly lines: Json[] = [];
  next = 1;

  ev(branch: string, delta: Json): number {
    const id = this.next++;
    this.lines.push({ schema_version: 1, event_id: id, branch_id: branch, delta });
    return id;
  }

  ctx(branch: string, change: Json): number {
    return this.ev(branch, { type: 'context', change });
  }

  item(branch: string, item: Json): number {
    return this.ctx(branch, { field: 'item_upsert', item });
  }

  genesis(branch: string): number {
    return this.ev(branch, { type: 'genesis', metadata: meta(branch) });
  }

  init(branch: string, extra: Json = {}): number {
    return this.ctx(branch, {
      field: 'initialize',
      next_id: 1,
      max_tokens: 10000,
      overflow_model: null,
      split: null,
      map_reduce: null,
      visible_from: null,
      hidden: [],
      masked: [],
      todo: null,
      todo_after_item_id: null,
      last_tool_set: null,
      ...extra,
    });
  }

  message(branch: string, id: string, ids: number[]): number {
    return this.ev(branch, {
      type: 'message',
      change: {
        operation: 'upsert',
        message: { id, role: 'user', parts: [], created_at: 1, agent: null, model: null },
        context_item_ids: ids,
      },
    });
  }
}

export const meta = (session_id: string): Json => ({
  session_id,
  title: session_id,
  title_generated: false,
  created_at: 1,
  cwd: '/w',
  provider: 'p',
  model: 'm',
  reasoning: null,
});
export const U = (id: number, original: string): Json => ({ User: { id, original } });
export const A = (id: number, original: string, closable = false): Json => ({ Assistant: { id, original, closable } });
export const TC = (id: number, call_id: string, name = 'fs_read', args = '{}'): Json => ({
  ToolCall: { id, call_id, name, arguments: args, thought_signature: '', thinking_blocks: [] },
});
export const TR = (id: number, call_id: string, content: string, useless = false): Json => ({
  ToolResult: { id, call_id, content, useless },
});
export const CP = (id: number, summary: string, covered: [number, number][]): Json => ({
  Compaction: { id, summary, covered_ranges: covered.map(([start_id, end_id]) => ({ start_id, end_id })) },
});
export const at = (branch: string, event: number): Json => ({ branch_id: branch, event_id: event, selection: { kind: 'at_event' } });
export const plan = (...tasks: [string, string][]): Json => ({
  groups: [
    {
      title: 'G',
      items: tasks.map(([description, status], i) => ({ id: `t${i}`, description, status, depends_on: [] })),
      tests_verified: false,
    },
  ],
});

export interface CoshImported {
  readonly events: Emitted[];
  readonly diagnostics: Diagnostic[];
  of<K extends EventKind>(kind: K): (EventOf<K> & { seq: number; line: number })[];
  rules(): string[];
  state(branch: string, untilSeq?: number): ReplayState;
  view(branch: string, i: number, untilSeq?: number): ModelView;
  views(branch: string): string[][];
  fates(branch: string, i: number): RawItemFate[];
}

export function importCosh(lines: readonly Json[], path = '/d/session-root.jsonl'): CoshImported {
  const sink = new FakeSink();
  const f = new CoshFileImport(sink, path);
  let offset = 0;
  lines.forEach((value, i) => {
    const length = Buffer.byteLength(JSON.stringify(value));
    f.line({ value, line: i + 1, offset, length });
    offset += length + 1;
  });
  f.end();
  const log = asLog(sink.events);
  const state = (branch: string, untilSeq?: number): ReplayState => replay(log, untilSeq === undefined ? { branch } : { branch, untilSeq });
  const view = (branch: string, i: number, untilSeq?: number): ModelView => {
    const v = modelView(state(branch, untilSeq), i);
    if (!v) throw new Error(`no request ${i} on ${branch}`);
    return v;
  };
  return {
    events: sink.events,
    diagnostics: sink.diagnostics,
    of: <K extends EventKind>(kind: K) =>
      sink.events.filter((e) => e.kind === kind) as unknown as (EventOf<K> & { seq: number; line: number })[],
    rules: () => sink.diagnostics.map((d) => d.rule),
    state,
    view,
    views: (branch: string) =>
      state(branch).requests.map((r) =>
        (modelView(state(branch), r.index)?.items ?? []).map((it) => `${it.id}${it.rendition === 'masked' ? '*' : ''}`),
      ),
    fates: (branch: string, i: number) => fatesAt(state(branch), i),
  };
}

/** Diagnostics other than the standing note about what cosh does not log. */
export const findings = (r: CoshImported): Diagnostic[] => r.diagnostics.filter((d) => d.rule !== 'COSH_UNLOGGED_CONTEXT');
