import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importValues } from './helpers';

/*
 * Claude Code 2.1.9's print mode logs neither the microcompact nor the todo reminder it sends
 * (src/main/importers/claude-code/unlogged.ts). On its saved run (fixtures/fidelity/logs/
 * claude-code-2.1.9/microcompact) the wire shows the four oldest Bash results cleared at the tenth
 * call, and, after `--resume`, the results whole again and a todo reminder before the prompt.
 */

const DIR = 'fixtures/fidelity/logs/claude-code-2.1.9/microcompact';
const run = JSON.parse(readFileSync(join(DIR, 'run.json'), 'utf8')) as { mainLog: string };
const values = readFileSync(join(DIR, run.mainLog), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as Record<string, unknown>);
const resultItem = (n: number): string => {
  const v = values.filter((x) => x.type === 'user' && JSON.stringify(x).includes('"tool_result"'))[n - 1];
  return String(v?.uuid);
};
const callOf = (n: number): string => {
  const v = values.filter((x) => x.type === 'user' && JSON.stringify(x).includes('"tool_result"'))[n - 1] as {
    message: { content: { tool_use_id: string }[] };
  };
  return v.message.content[0]?.tool_use_id ?? '';
};

describe('claude-code 2.1.9 headless: microcompact and todo reminder by rule', () => {
  const r = importValues(values);

  it('masks the four oldest results before the tenth call, as the wire had them, and lifts the mask after the resume', () => {
    const masks = r.of('mask');
    const reqs = r.of('request');
    expect(masks).toHaveLength(2);
    expect(masks[0]).toMatchObject({ masked: true, by: 'harness', items: [1, 2, 3, 4].map(resultItem) });
    expect(masks[0]?.seq).toBe((reqs[9]?.seq ?? 0) - 1);
    // Not certain either way after a prompt: the view shows them whole and names them (below).
    expect(masks[1]).toMatchObject({ masked: false, by: 'harness', items: [1, 2, 3, 4].map(resultItem) });
    expect(masks[1]?.seq).toBe((reqs[10]?.seq ?? 0) - 1);
    expect(masks[0]?.reference).toBeUndefined();
    const v = r.view(9);
    expect(v.items.filter((i) => i.rendition === 'masked').map((i) => i.id)).toEqual([1, 2, 3, 4].map(resultItem));
    expect(v.unknowns.some((u) => u.includes('cleared 4 tool results before this request (microcompact'))).toBe(true);
  });

  it('names nothing on the nine calls before it: the last reply was far under the threshold', () => {
    for (let i = 0; i < 9; i++) {
      const v = r.view(i);
      expect(v.items.every((it) => it.rendition === 'verbatim')).toBe(true);
      expect(v.unknowns.filter((u) => u.includes('microcompact') || u.includes('todo reminder'))).toEqual([]);
    }
  });

  it('after the resume, names the four as maybe cleared (not masked) and the todo reminder before the prompt', () => {
    const v = r.view(10);
    expect(v.items.every((it) => it.rendition === 'verbatim')).toBe(true);
    const mc = v.unknowns.find((u) => u.includes('may have cleared these tool results'));
    expect(mc).toContain(`(calls: ${[1, 2, 3, 4].map(callOf).join(', ')})`);
    const prompt = values.find((x) => x.type === 'user' && JSON.stringify(x).includes('What did the first dump print?'));
    const reminder = v.unknowns.find((u) => u.includes('todo reminder'));
    expect(reminder).toContain('adds a todo reminder');
    expect(reminder).toContain(`(in the user message of item ${String(prompt?.uuid)})`);
  });

  it('an interactive session (a record print mode never writes) logs its microcompact, not its reminder: only the reminder is named', () => {
    // Typed into a terminal, 2.1.9 writes microcompact_boundary but still no todo_reminder
    // attachment (fidelity run microcompact-interactive): nothing is masked by rule, and the
    // reminder stays named until the log records one.
    const snapshot = { type: 'file-history-snapshot', messageId: 'x', snapshot: {}, isSnapshotUpdate: false };
    const i = importValues([snapshot, ...values]);
    expect(i.of('mask')).toEqual([]);
    const named = i.of('request').flatMap((q) => q.unlogged ?? []);
    expect(named.length).toBeGreaterThan(0);
    expect(named.every((u) => u.calls === undefined && u.item !== undefined)).toBe(true);
  });

  it('a log that has recorded a todo reminder is trusted for them: nothing is named', () => {
    const snapshot = { type: 'file-history-snapshot', messageId: 'x', snapshot: {}, isSnapshotUpdate: false };
    const reminder = {
      type: 'attachment',
      attachment: { type: 'todo_reminder', content: [], itemCount: 0 },
      uuid: 'rem-0',
      parentUuid: null,
      version: '2.1.9',
    };
    const i = importValues([snapshot, reminder, ...values]);
    expect(i.of('mask')).toEqual([]);
    expect(i.of('request').filter((q) => q.unlogged !== undefined)).toEqual([]);
  });

  it('the same run with the record an interactive session writes keeps the exact reading of the record', () => {
    // Built from the run: the microcompact_boundary 2.1.9 writes interactively, before the tenth call.
    const tenth = values.findIndex((v) => v.type === 'assistant' && (v.message as { id?: string }).id === 'msg_mock_0021');
    const record = {
      parentUuid: values[tenth - 1]?.uuid,
      isSidechain: false,
      type: 'system',
      subtype: 'microcompact_boundary',
      content: 'Context microcompacted',
      uuid: 'mc-1',
      version: '2.1.9',
      level: 'info',
      microcompactMetadata: { trigger: 'auto', preTokens: 141_001, tokensSaved: 28_012, compactedToolIds: [1, 2, 3, 4].map(callOf) },
    };
    const withRecord = [...values.slice(0, tenth), record, ...values.slice(tenth)];
    const i = importValues(withRecord);
    expect(i.of('mask')).toEqual([expect.objectContaining({ masked: true, by: 'harness', items: [1, 2, 3, 4].map(resultItem) })]);
    // No result is named as maybe cleared: the record says which were.
    expect(
      i
        .of('request')
        .flatMap((q) => q.unlogged ?? [])
        .filter((u) => u.calls !== undefined),
    ).toEqual([]);
    expect(i.view(10).items.filter((it) => it.rendition === 'masked')).toHaveLength(4);
  });

  it('a version without the rules (2.1.97) gets neither', () => {
    const later = importValues(values.map((v) => (v.version === undefined ? v : { ...v, version: '2.1.97' })));
    expect(later.of('mask')).toEqual([]);
    expect(later.of('request').filter((q) => q.unlogged !== undefined)).toEqual([]);
  });
});
