import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { diagnose } from '../../../../src/shared/diagnostics';
import type { LogEvent } from '../../../../src/shared/model/event';
import { assistant, boundary, fetched, importValues, readFetched, summary, text, user } from './helpers';

/*
 * Findings Claude Code's real logs must not raise on a healthy session: each case reads a log the
 * real client wrote (the fidelity runs under fixtures/fidelity/logs, the public sessions under
 * fixtures/claude-code).
 */

const LOGS = fileURLToPath(new URL('../../../../fixtures/fidelity/logs/', import.meta.url));

type Value = Record<string, unknown>;

function fidelityLog(scenario: string, version = '2.1.332'): { path: string; values: Value[] } {
  const dir = `${LOGS}claude-code-${version}/${scenario}/projects/`;
  const project = readdirSync(dir)[0] as string;
  const name = readdirSync(dir + project).find((n) => n.endsWith('.jsonl')) as string;
  const path = `${dir}${project}/${name}`;
  const values = readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Value);
  return { path, values };
}

describe('claude-code on real logs: record types and fields it knows', () => {
  it('promptId (on every record of a turn) is known, not an unknown field', () => {
    const { path, values } = fidelityLog('auto-compact');
    expect(values.some((v) => 'promptId' in v)).toBe(true);
    const r = importValues(values, path);
    expect(r.diag('UNKNOWN_FIELDS')?.message ?? '').not.toContain('"promptId"');
  });

  it.each(['2.1.97', '2.1.197'])('%s: promptId and permissionMode on the records, and mode records, are known', (version) => {
    for (const scenario of ['auto-compact', 'manual-compact']) {
      const { path, values } = fidelityLog(scenario, version);
      expect(values.some((v) => 'promptId' in v && 'permissionMode' in v)).toBe(true);
      const r = importValues(values, path);
      const unknown = r.diag('UNKNOWN_FIELDS')?.message ?? '';
      expect(unknown).not.toContain('"promptId"');
      expect(unknown).not.toContain('"permissionMode"');
      expect(r.rules()).not.toContain('UNKNOWN_RECORDS');
      if (values.some((v) => v.type === 'mode')) expect(r.of('record').map((e) => e.type)).toContain('mode');
    }
  });

  it('permission-mode records are records of the mode, and turn_duration reads messageCount', () => {
    // The two lines as Claude Code 2.1.123 writes them (a public session; the shapes only).
    const r = importValues([
      user('u1', null, 'hi'),
      { type: 'permission-mode', permissionMode: 'bypassPermissions', sessionId: 's1' },
      {
        parentUuid: 'u1',
        isSidechain: false,
        type: 'system',
        subtype: 'turn_duration',
        durationMs: 10000,
        messageCount: 10,
        timestamp: '2026-05-01T02:36:52.926Z',
        uuid: 't1',
        isMeta: false,
      },
    ]);
    expect(r.rules().filter((x) => x.startsWith('UNKNOWN'))).toEqual([]);
    const records = r.of('record').map((e) => [e.type, e.summary]);
    expect(records).toContainEqual(['permission-mode', 'bypassPermissions']);
    expect(records).toContainEqual(['system/turn_duration', '10000 ms, 10 messages']);
  });

  // The same on a real session (Claude Code 2.1.92–2.1.96, Xu-Wentao/dotfile, fetched: see
  // fixtures/corpus/remote.json): five permission-mode lines, seven turn_duration lines.
  const REAL = 'xu-wentao-dotfile/7ef4b236-d946-48a6-a856-e45b02af7be7.jsonl';
  it.skipIf(!fetched(REAL))('a real session: its permission-mode records and messageCount are known', () => {
    const { path, values } = readFetched(REAL);
    const r = importValues(values, path);
    expect(r.rules().filter((x) => x.startsWith('UNKNOWN'))).toEqual([]);
    const records = r.of('record').map((e) => [e.type, e.summary]);
    expect(records.filter(([t]) => t === 'permission-mode').map(([, s]) => s)).toEqual([
      'default',
      'default',
      'default',
      'default',
      'acceptEdits',
    ]);
    expect(records).toContainEqual(['system/turn_duration', '118040 ms, 75 messages']);
  });
});

describe('claude-code 2.1.12x–2.1.16x: the records and fields newer clients write', () => {
  // The shapes as Claude Code 2.1.128–2.1.167 writes them (public sessions; the shapes only).
  it('ai-title and system/away_summary are records, and the attribution, origin, promptSource and pr-link fields are known', () => {
    const r = importValues([
      user('u1', null, 'hi'),
      { type: 'ai-title', aiTitle: 'Debug recruitment portal magic link expiration', sessionId: 's1' },
      assistant('a1', 'u1', 'msg_1', [text('hello')], undefined, { attributionAgent: 'Explore', attributionSkill: 'code-review' }),
      user('u2', 'a1', '<task-notification>done</task-notification>', { origin: { kind: 'task-notification' } }),
      {
        parentUuid: 'u2',
        isSidechain: false,
        type: 'system',
        subtype: 'away_summary',
        content: 'We upgraded the module. Next action: test the link. (disable recaps in /config)',
        timestamp: '2026-05-07T22:33:17.564Z',
        uuid: 'w1',
        isMeta: false,
      },
      user('u3', 'w1', 'go on', { promptSource: 'typed' }),
      {
        type: 'pr-link',
        sessionId: 's1',
        prNumber: 231,
        prUrl: 'https://example.com/pull/231',
        prRepository: 'o/r',
        timestamp: '2026-04-13T17:05:41.238Z',
      },
    ]);
    expect(r.rules().filter((x) => x.startsWith('UNKNOWN'))).toEqual([]);
    const records = r.of('record').map((e) => [e.type, e.summary]);
    expect(records).toContainEqual(['ai-title', 'Debug recruitment portal magic link expiration']);
    expect(records).toContainEqual([
      'system/away_summary',
      'We upgraded the module. Next action: test the link. (disable recaps in /config)',
    ]);
  });

  // The same on a real session (Claude Code 2.1.132, Eduardodmb/ClaudeHome; fetched: see
  // fixtures/corpus/remote.json).
  const REAL = 'eduardodmb-claudehome/2558ae24-e069-42bd-b71c-d77f4ad91ef0.jsonl';
  it.skipIf(!fetched(REAL))('a real 2.1.132 session: 45 ai-title and 6 away_summary records, nothing unknown', () => {
    const { path, values } = readFetched(REAL);
    const r = importValues(values, path);
    expect(r.rules().filter((x) => x.startsWith('UNKNOWN'))).toEqual([]);
    const types = r.of('record').map((e) => e.type);
    expect(types.filter((t) => t === 'ai-title')).toHaveLength(45);
    expect(types.filter((t) => t === 'system/away_summary')).toHaveLength(6);
  });
});

describe('claude-code: attachment content', () => {
  it('a todo_reminder lists the plan, not content blocks: kept opaque under its own type', () => {
    // The shape Claude Code writes: `content` holds the plan's entries, `itemCount` their number.
    const r = importValues([
      user('u1', null, 'hi'),
      {
        type: 'attachment',
        uuid: 'at1',
        parentUuid: 'u1',
        sessionId: 's1',
        attachment: {
          type: 'todo_reminder',
          content: [{ content: 'Write the test', status: 'in_progress', activeForm: 'Writing the test' }],
          itemCount: 1,
        },
      },
    ]);
    expect(r.diag('UNKNOWN_FIELDS')).toBeUndefined();
    const item = r.of('item').find((e) => e.item.id === 'at1');
    expect(item?.item.origin).toBe('attachment:todo_reminder');
    expect(item?.item.blocks).toEqual([expect.objectContaining({ type: 'opaque', label: 'claude-code:attachment:todo_reminder' })]);
  });
});

describe('claude-code: synthetic API-error records', () => {
  // "Prompt is too long" as Claude Code writes it: a `<synthetic>` assistant record whose usage is
  // zeros the client filled in; the user then runs /compact and the conversation goes on smaller.
  const tooLong = (uuid: string, parent: string): Record<string, unknown> => {
    const v = assistant(
      uuid,
      parent,
      `syn-${uuid}`,
      [text('Prompt is too long')],
      { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      { isApiErrorMessage: true, error: 'invalid_request' },
    );
    (v.message as Record<string, unknown>).model = '<synthetic>';
    return v;
  };
  const values = [
    user('u1', null, 'Read the whole dump.'),
    assistant('a1', 'u1', 'msg_1', [text('Read.')], {
      input_tokens: 6,
      cache_read_input_tokens: 180_000,
      cache_creation_input_tokens: 9_000,
      output_tokens: 20,
    }),
    user('u2', 'a1', 'And the other one.'),
    tooLong('e1', 'u2'),
    boundary('cb', 'e1', { trigger: 'manual', preTokens: 189_006 }),
    summary('cs', 'cb'),
    user('u3', 'cs', 'Go on.'),
    assistant('a2', 'u3', 'msg_2', [text('Going on.')], {
      input_tokens: 6,
      cache_read_input_tokens: 20_000,
      cache_creation_input_tokens: 1_000,
      output_tokens: 20,
    }),
  ];

  it('is a failed request with an error and no usage: its zeros are not a report', () => {
    const r = importValues(values);
    const failed = r.of('response').find((e) => e.request === 'syn-e1');
    expect(failed).toMatchObject({ error: { code: 'invalid_request', message: 'Prompt is too long' } });
    expect(failed?.usage).toBeUndefined();
  });

  it('the compaction after it is compared with the last request that reported its size', () => {
    const r = importValues(values);
    const findings = diagnose({ events: r.events as unknown as LogEvent[], state: r.replay(), format: 'claude-code', estimate: null });
    expect(findings.filter((d) => d.rule === 'COMPACTION_GREW_CONTEXT')).toEqual([]);
  });
});
