import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importValues, user } from './helpers';

/*
 * Findings Claude Code's real logs must not raise on a healthy session: each case reads a log the
 * real client wrote (the fidelity runs under fixtures/fidelity/logs, the public sessions under
 * fixtures/claude-code).
 */

const FIDELITY = fileURLToPath(new URL('../../../../fixtures/fidelity/logs/claude-code-2.1.332/', import.meta.url));

type Value = Record<string, unknown>;

function fidelityLog(scenario: string): { path: string; values: Value[] } {
  const dir = `${FIDELITY}${scenario}/projects/`;
  const project = readdirSync(dir)[0] as string;
  const name = readdirSync(dir + project).find((n) => n.endsWith('.jsonl')) as string;
  const path = `${dir}${project}/${name}`;
  const values = readFileSync(path, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Value);
  return { path, values };
}

describe('claude-code on real logs: record types and fields it knows', () => {
  it('promptId (on every record of a turn) is known, not an unknown field', () => {
    const { path, values } = fidelityLog('auto-compact');
    expect(values.some((v) => 'promptId' in v)).toBe(true);
    const r = importValues(values, path);
    expect(r.diag('UNKNOWN_FIELDS')?.message ?? '').not.toContain('"promptId"');
  });

  it('permission-mode records are records of the mode, and turn_duration reads messageCount', () => {
    // The two lines as Claude Code 2.1.123 writes them (a public session; the shapes only).
    const r = importValues([
      user('u1', null, 'hi'),
      { type: 'permission-mode', permissionMode: 'bypassPermissions', sessionId: 's1' },
      { parentUuid: 'u1', isSidechain: false, type: 'system', subtype: 'turn_duration', durationMs: 10000, messageCount: 10, timestamp: '2026-05-01T02:36:52.926Z', uuid: 't1', isMeta: false },
    ]);
    expect(r.rules().filter((x) => x.startsWith('UNKNOWN'))).toEqual([]);
    const records = r.of('record').map((e) => [e.type, e.summary]);
    expect(records).toContainEqual(['permission-mode', 'bypassPermissions']);
    expect(records).toContainEqual(['system/turn_duration', '10000 ms, 10 messages']);
  });
});

describe('claude-code: attachment content', () => {
  it('a todo_reminder lists the plan, not content blocks: kept opaque under its own type', () => {
    // The shape Claude Code writes: `content` holds the plan's entries, `itemCount` their number.
    const r = importValues([
      user('u1', null, 'hi'),
      {
        type: 'attachment', uuid: 'at1', parentUuid: 'u1', sessionId: 's1',
        attachment: { type: 'todo_reminder', content: [{ content: 'Write the test', status: 'in_progress', activeForm: 'Writing the test' }], itemCount: 1 },
      },
    ]);
    expect(r.diag('UNKNOWN_FIELDS')).toBeUndefined();
    const item = r.of('item').find((e) => e.item.id === 'at1');
    expect(item?.item.origin).toBe('attachment:todo_reminder');
    expect(item?.item.blocks).toEqual([expect.objectContaining({ type: 'opaque', label: 'claude-code:attachment:todo_reminder' })]);
  });
});
