import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dshImporter } from '../../../../src/main/importers/dsh';
import { FakeSink, jsonLine, type Emitted } from '../fake-sink';
import type { Diagnostic } from '../../../../src/shared/model/diagnostic';
import type { EventKind, EventOf } from '../../../../src/shared/model/event';

export const FIXTURES = fileURLToPath(new URL('../../../../fixtures/dsh/', import.meta.url));

/** Every DSH sample, by path relative to fixtures/dsh. */
export const SAMPLES = {
  goal: 'apps/web/tests/snapshots/goal-multi-turn-actions/session.jsonl',
  packed: 'examples/acp-agent/tests/snapshots/packed-chunks/session.jsonl',
  forkChild: 'examples/acp-agent/tests/snapshots/subagent-fork-in-process/session.1.jsonl',
  forkParent: 'examples/acp-agent/tests/snapshots/subagent-fork-in-process/session.jsonl',
  todo: 'examples/acp-agent/tests/snapshots/todo-write/session.jsonl',
  toolchain: 'examples/headless-agent/tests/snapshots/advanced-toolchain/session.jsonl',
  compaction: 'examples/headless-agent/tests/snapshots/compaction-recovery/session.jsonl',
  compactionStream: 'examples/headless-agent/tests/snapshots/compaction-recovery/stream-json.expected.jsonl',
  pty: 'examples/headless-agent/tests/snapshots/pty-tools/session.jsonl',
  ralph: 'examples/headless-agent/tests/snapshots/ralph-loop/session.jsonl',
  ralph1: 'examples/headless-agent/tests/snapshots/ralph-loop/session.1.jsonl',
  ralph2: 'examples/headless-agent/tests/snapshots/ralph-loop/session.2.jsonl',
  ralphStream: 'examples/headless-agent/tests/snapshots/ralph-loop/stream-json.expected.jsonl',
} as const;

export { FakeSink, jsonLine, type Emitted } from '../fake-sink';

export interface Imported {
  readonly events: Emitted[];
  readonly diagnostics: Diagnostic[];
  /** Parsed values of the file's lines, 1-based (index 0 unused). */
  readonly lines: Record<string, unknown>[];
  of<K extends EventKind>(kind: K): (EventOf<K> & { seq: number; line: number; file: number })[];
}

export function importValues(values: readonly Record<string, unknown>[], path = 'session.jsonl'): Imported {
  const sink = new FakeSink();
  const file = dshImporter.open({ path, index: 0 }, sink);
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
