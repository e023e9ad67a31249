import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GeminiFileImport } from '../../../../src/main/importers/gemini-cli/file';
import type { Diagnostic } from '../../../../src/shared/model/diagnostic';
import type { EventKind, EventOf, LogEvent } from '../../../../src/shared/model/event';
import type { ModelView } from '../../../../src/shared/model/view';
import { replay, type ReplayState } from '../../../../src/shared/replay/fold';
import { modelView } from '../../../../src/shared/replay/view';
import { FakeSink, type Emitted } from '../fake-sink';

export const FIXTURES = join(__dirname, '../../../../fixtures/gemini-cli');

/** The real legacy sessions (whole `.json`, CC0, see fixtures/README.md) and the written JSONL one. */
export const REAL = [
  'session-2025-12-30T01-16-3f9ce747.json',
  'session-2025-12-30T06-53-7bc58f7d.json',
  'session-2025-12-30T07-24-a1c91f1a.json',
  'session-2025-12-30T07-44-a1c91f1a.json',
];
export const WRITTEN = 'written/session-2026-07-14T09-00-5d0c2a9e.jsonl';

/** Chats the real client wrote against the mock (fixtures/fidelity/logs/gemini-cli-<version>/<scenario>/), by version. */
export const RUNS = {
  json: 'real-0.38.2/tools-resume/session-2026-12-02T20-59-766bfc5a.json',
  jsonl: 'real-0.41.2/tools-resume/session-2026-12-02T20-59-6d594ecf.jsonl',
  resume: 'real-0.61.0/tools-resume/session-2026-12-02T21-00-a630fd7b.jsonl',
  compress: 'real-0.61.0/auto-compact/session-2026-12-02T21-08-9e3b6f8c.jsonl',
  emptySummary: 'real-0.61.0/compact-empty-summary/session-2026-12-02T21-24-07179651.jsonl',
} as const;

export interface Imported {
  readonly events: Emitted[];
  readonly diagnostics: Diagnostic[];
  /** The parsed records by line number (1-based); undefined for a line that does not parse. */
  readonly lines: (Record<string, unknown> | undefined)[];
  of<K extends EventKind>(kind: K): (EventOf<K> & { seq: number; line: number; file: number })[];
  readonly state: ReplayState;
  view(i: number): ModelView;
}

/** Lines of a JSONL file, or the whole document of a `.json` as line 1 (as the reader hands them on). */
export function readRecords(rel: string): (Record<string, unknown> | undefined)[] {
  const text = readFileSync(join(FIXTURES, rel), 'utf8');
  if (rel.endsWith('.json')) return [undefined, JSON.parse(text) as Record<string, unknown>];
  const out: (Record<string, unknown> | undefined)[] = [undefined];
  for (const line of text.split('\n')) {
    try {
      out.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      out.push(undefined);
    }
  }
  return out;
}

export function importRecords(
  lines: readonly (Record<string, unknown> | undefined)[],
  path = '/h/.gemini/tmp/p/chats/session-x.jsonl',
): Imported {
  const sink = new FakeSink();
  const f = new GeminiFileImport(sink, path);
  let offset = 0;
  lines.forEach((value, i) => {
    if (i === 0 || value === undefined) return;
    const length = Buffer.byteLength(JSON.stringify(value));
    f.line({ value, line: i, offset, length });
    offset += length + 1;
  });
  f.end();
  const state = replay(sink.events as readonly LogEvent[] as LogEvent[]);
  return {
    events: sink.events,
    diagnostics: sink.diagnostics,
    lines: [...lines],
    of: <K extends EventKind>(kind: K) =>
      sink.events.filter((e) => e.kind === kind) as (EventOf<K> & { seq: number; line: number; file: number })[],
    state,
    view: (i: number) => {
      const v = modelView(state, i);
      if (!v) throw new Error(`no request ${i}`);
      return v;
    },
  };
}

/** Records given in order, numbered from line 1. */
export function importValues(values: readonly Record<string, unknown>[], path?: string): Imported {
  return importRecords([undefined, ...values], path);
}

export function importFixture(rel: string): Imported {
  return importRecords(readRecords(rel), join(FIXTURES, rel));
}

/** The item ids of a view, in order. */
export function ids(v: ModelView): string[] {
  return v.items.map((x) => x.id);
}
