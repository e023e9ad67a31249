import { FakeSink, type Emitted } from '../fake-sink';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ClaudeSession } from '../../../../src/main/importers/claude-code/importer';
import type { Diagnostic } from '../../../../src/shared/model/diagnostic';
import type { EventKind, EventOf, LogEvent } from '../../../../src/shared/model/event';
import type { ModelView } from '../../../../src/shared/model/view';
import { defaultBranch, listBranches } from '../../../../src/shared/replay/branches';
import { type ReplayState, replay } from '../../../../src/shared/replay/fold';
import { modelView } from '../../../../src/shared/replay/view';

export const FIXTURES = fileURLToPath(new URL('../../../../fixtures/claude-code/', import.meta.url));
export const BIG = '4d5611e5-241a-462a-8d15-5122611a9569';

export { FakeSink, type Emitted } from '../fake-sink';

type Value = Record<string, unknown>;

export interface Imported {
  readonly events: Emitted[];
  readonly diagnostics: Diagnostic[];
  of<K extends EventKind>(kind: K): (EventOf<K> & { seq: number; line: number; file: number })[];
  rules(): string[];
  diag(rule: string): Diagnostic | undefined;
  /** Replay of a branch (default: the one replay would open). */
  replay(branch?: string): ReplayState;
  view(index: number, branch?: string): ModelView;
  readonly defaultBranch: string;
  branches(): string[];
}

/** Import files (the first is the main file) through one session, as the loader does. */
export function importFiles(files: readonly { path: string; values: readonly Value[] }[]): Imported {
  const sink = new FakeSink();
  const session = new ClaudeSession(sink);
  files.forEach((f, index) => {
    sink.file = index;
    const fi = session.file({ path: f.path, index });
    let offset = 0;
    f.values.forEach((v, i) => {
      const length = Buffer.byteLength(JSON.stringify(v));
      fi.line({ value: v, line: i + 1, offset, length });
      offset += length + 1;
    });
    fi.end();
  });
  session.end();
  const log = sink.events as unknown as LogEvent[];
  const cache = new Map<string, ReplayState>();
  const def = defaultBranch(log);
  const rep = (branch = def): ReplayState => {
    let r = cache.get(branch);
    if (!r) {
      r = replay(log, { branch });
      cache.set(branch, r);
    }
    return r;
  };
  return {
    events: sink.events,
    diagnostics: sink.diagnostics,
    of: <K extends EventKind>(kind: K) =>
      sink.events.filter((e) => e.kind === kind) as (EventOf<K> & { seq: number; line: number; file: number })[],
    rules: () => sink.diagnostics.map((d) => d.rule),
    diag: (rule) => sink.diagnostics.find((d) => d.rule === rule),
    replay: rep,
    view: (index, branch) => {
      const v = modelView(rep(branch), index);
      if (!v) throw new Error(`no request ${index} on ${branch ?? def}`);
      return v;
    },
    defaultBranch: def,
    branches: () => listBranches(log).map((b) => b.name),
  };
}

export function importValues(values: readonly Value[], path = 'session.jsonl'): Imported {
  return importFiles([{ path, values }]);
}

export function readFixture(rel: string): Value[] {
  return readFileSync(FIXTURES + rel, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Value);
}

/** The git-ignored folder `scripts/fetch-corpus.mjs` fetches the sessions of fixtures/corpus/remote.json into. */
export const FETCHED_CORPUS = fileURLToPath(new URL('../../../../.corpus/claude-code/', import.meta.url));

/** Whether every one of these fetched corpus files is here (none is until fetch-corpus has run). */
export function fetched(...rels: string[]): boolean {
  return rels.every((rel) => existsSync(FETCHED_CORPUS + rel));
}

/** A fetched corpus file's records, as importFiles takes them. */
export function readFetched(rel: string): { path: string; values: Value[] } {
  const values = readFileSync(FETCHED_CORPUS + rel, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Value);
  return { path: `/p/${rel}`, values };
}

export function errors(ds: readonly Diagnostic[]): Diagnostic[] {
  return ds.filter((d) => d.severity === 'error');
}

/** Text of a view item's blocks, joined (tool calls as name(input), results as their text). */
export function textOf(blocks: readonly unknown[] | null): string {
  if (!blocks) return '';
  return blocks
    .map((b) => {
      const x = b as Record<string, unknown>;
      if (x.type === 'text' || x.type === 'reasoning') return String(x.text);
      if (x.type === 'tool_call') return `${String(x.name)}(${String(x.input)})`;
      if (x.type === 'tool_result') return textOf(x.content as unknown[]);
      return `[${String(x.type)}]`;
    })
    .join('');
}

// ---------------------------------------------------------------------------------------------
// Record builders: the envelope of Claude Code 2.1.39, trimmed to what the importer reads.

const ENV = { isSidechain: false, userType: 'external', cwd: '/tmp/p', sessionId: 's1', version: '2.1.39', gitBranch: 'main' };
let clock = Date.parse('2026-02-12T10:00:00.000Z');
const ts = (): string => new Date((clock += 1000)).toISOString();

export function user(uuid: string, parentUuid: string | null, content: unknown, extra: Value = {}): Value {
  return { parentUuid, ...ENV, type: 'user', message: { role: 'user', content }, uuid, timestamp: ts(), ...extra };
}

export function toolResult(uuid: string, parentUuid: string, callId: string, text: string, extra: Value = {}): Value {
  return user(uuid, parentUuid, [{ type: 'tool_result', tool_use_id: callId, content: text }], {
    sourceToolAssistantUUID: parentUuid,
    toolUseResult: { stdout: text },
    ...extra,
  });
}

export interface Usage {
  input_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
  output_tokens?: number;
}

export function assistant(
  uuid: string,
  parentUuid: string | null,
  msgId: string,
  content: unknown[],
  usage: Usage = { input_tokens: 10, output_tokens: 1 },
  extra: Value = {},
): Value {
  return {
    parentUuid,
    ...ENV,
    type: 'assistant',
    requestId: `req_${msgId}`,
    uuid,
    timestamp: ts(),
    message: {
      model: 'claude-opus-4-6',
      id: msgId,
      type: 'message',
      role: 'assistant',
      content,
      stop_reason: null,
      stop_sequence: null,
      usage,
    },
    ...extra,
  };
}

export const text = (t: string): Value => ({ type: 'text', text: t });
export const toolUse = (id: string, name = 'Bash', input: Value = { command: 'ls' }): Value => ({ type: 'tool_use', id, name, input });

export function progress(uuid: string, parentUuid: string | null, extra: Value = {}): Value {
  return {
    parentUuid,
    ...ENV,
    type: 'progress',
    data: { type: 'hook_progress', hookEvent: 'PostToolUse', hookName: 'PostToolUse:Bash', command: 'x' },
    parentToolUseID: 't',
    toolUseID: 't',
    timestamp: ts(),
    uuid,
    ...extra,
  };
}

export function boundary(uuid: string, logicalParentUuid: string | undefined, meta: Value = { trigger: 'auto', preTokens: 1000 }): Value {
  const v: Value = {
    parentUuid: null,
    ...ENV,
    type: 'system',
    subtype: 'compact_boundary',
    content: 'Conversation compacted',
    isMeta: false,
    timestamp: ts(),
    uuid,
    level: 'info',
    compactMetadata: meta,
  };
  if (logicalParentUuid !== undefined) v.logicalParentUuid = logicalParentUuid;
  return v;
}

export function summary(
  uuid: string,
  parentUuid: string,
  t = 'This session is being continued from a previous conversation. Summary: …',
): Value {
  return user(uuid, parentUuid, t, { isCompactSummary: true, isVisibleInTranscriptOnly: true });
}
