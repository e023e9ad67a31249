import { describe, expect, it } from 'vitest';
import { calls, ids, importRind, record, toolMsg, user } from './helpers';

const two = calls('m2', [
  ['c1', 'read_file', '{"path":"a"}'],
  ['c2', 'run_shell', '{"cmd":"ls"}'],
]);

describe('Rind tool results joined from tool_calls.jsonl', () => {
  it('places results right after their call, in meta.tool_calls order, whatever order their messages have', () => {
    const r = importRind({
      tools: [record('c1', 'file a'), record('c2', 'a b')],
      messages: [user('m1', 'go'), two, toolMsg('m3', 'c2'), toolMsg('m4', 'c1'), user('m5', 'next'), calls('m6', [['c3', 'x', '{}']])],
    });
    // c2's message came first: c1's result is placed before it, at its call; c1's own message is
    // then already placed and is not sent again (message_projector.py).
    expect(ids(r.view(1))).toEqual(['m1', 'm2', 'result-c1', 'm3', 'm5']);
    const results = r.of('item').filter((e) => e.item.role === 'tool');
    // Each result is located at its record in tool_calls.jsonl (file 1), where its text is.
    expect(results.map((e) => [e.item.id, e.file, e.line])).toEqual([
      ['result-c1', 1, 1],
      ['m3', 1, 2],
    ]);
    expect(results[0]?.item.blocks).toEqual([{ type: 'tool_result', callId: 'c1', content: [{ type: 'text', text: 'file a' }] }]);
    // Each result cites its tool record.
    const recs = r.of('record').filter((e) => e.type === 'tool_call');
    expect(results.map((e) => e.sources)).toEqual([[recs[0]?.seq], [recs[1]?.seq]]);
    expect(r.of('record').find((e) => e.type === 'tool')?.summary).toMatch(/c1: already placed/);
  });

  it('places a result whose message is missing when its record exists, and warns about calls with neither', () => {
    const r = importRind({
      tools: [record('c1', 'file a')],
      messages: [user('m1', 'go'), two, user('m3', 'hello?'), calls('m4', [['c9', 'x', '{}']])],
    });
    expect(ids(r.view(1))).toEqual(['m1', 'm2', 'result-c1', 'm3']);
    expect(r.rules()).toContain('RIND_UNANSWERED_CALL');
    expect(r.diagnostics.find((d) => d.rule === 'RIND_UNANSWERED_CALL')?.message).toMatch(/c2, c9/);
  });

  it('shows a result whose record is missing or empty as not recorded, with an error (Rind refuses such a session)', () => {
    const r = importRind({ tools: [record('c1', null)], messages: [user('m1', 'go'), two, toolMsg('m3', 'c1'), toolMsg('m4', 'c2')] });
    const items = r.of('item').filter((e) => e.item.role === 'tool');
    const res = items.map((e) => e.item.blocks[0]);
    // No text to re-read: they stay at their own message line.
    expect(items.map((e) => [e.file, e.line])).toEqual([
      [2, 3],
      [2, 4],
    ]);
    expect(res).toEqual([
      {
        type: 'tool_result',
        callId: 'c1',
        content: [{ type: 'opaque', label: 'tool result not recorded (its tool record has no model_content)' }],
      },
      {
        type: 'tool_result',
        callId: 'c2',
        content: [{ type: 'opaque', label: 'tool result not recorded (no tool record has this call id)' }],
      },
    ]);
    expect(r.rules().filter((x) => x === 'RIND_MISSING_TOOL_RESULT')).toHaveLength(2);
  });

  it('warns about a result no call issued, and sends it where it stands', () => {
    const r = importRind({
      tools: [record('c7', 'stray')],
      messages: [user('m1', 'go'), toolMsg('m2', 'c7'), calls('m3', [['c8', 'x', '{}']])],
    });
    expect(ids(r.view(0))).toEqual(['m1', 'm2']);
    expect(r.rules()).toContain('RIND_ORPHAN_TOOL_RESULT');
  });

  it('leaves out calls without arguments; a message left with nothing is never sent', () => {
    const r = importRind({
      tools: [record('c1', 'x', { raw_args: null })],
      messages: [
        user('m1', 'go'),
        { ...calls('m2', [['c1', 'a', '{}']]), meta: { tool_calls: [{ id: 'c1', name: 'a' }] } },
        user('m3', 'again'),
        calls('m4', [['c2', 'b', '{}']]),
      ],
    });
    expect(r.rules()).toEqual(expect.arrayContaining(['RIND_CALL_WITHOUT_ARGS', 'RIND_EMPTY_ASSISTANT']));
    expect(r.of('item').find((e) => e.item.id === 'm2')?.op).toEqual({ op: 'log' });
    expect(ids(r.view(1))).toEqual(['m1', 'm3']);
  });

  it('a tool call without id is reported and left out', () => {
    const r = importRind({ messages: [user('m1', 'go'), { ...calls('m2', []), meta: { tool_calls: [{ name: 'a', raw_args: '{}' }] } }] });
    expect(r.rules()).toContain('RIND_BAD_RECORD');
  });

  it('without tool_calls.jsonl (a lone messages.jsonl), results are unknown and reported once', () => {
    const r = importRind({ noToolFile: true, messages: [user('m1', 'go'), two, toolMsg('m3', 'c1'), toolMsg('m4', 'c2')] });
    const errs = r.diagnostics.filter((d) => d.rule === 'RIND_MISSING_TOOL_RESULT');
    expect(errs).toHaveLength(1);
    expect(errs[0]?.message).toMatch(/2 tool results .* tool_calls\.jsonl was not read/);
  });

  it('a second record for the same call wins, as in the projector', () => {
    const r = importRind({
      tools: [record('c1', 'first'), record('c1', 'second')],
      messages: [user('m1', 'go'), calls('m2', [['c1', 'a', '{}']]), toolMsg('m3', 'c1')],
    });
    expect(r.rules()).toContain('RIND_DUPLICATE_TOOL_RECORD');
    expect(r.of('item').find((e) => e.item.id === 'm3')?.item.blocks).toEqual([
      { type: 'tool_result', callId: 'c1', content: [{ type: 'text', text: 'second' }] },
    ]);
  });
});
