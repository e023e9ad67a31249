import { describe, expect, it } from 'vitest';
import { asst, calls, ids, importRind, msg, record, sys, toolMsg, user } from './helpers';

describe('Rind messages: roles, requests, blocks', () => {
  it('maps system, user and assistant messages to items, with a request before each assistant message', () => {
    const r = importRind({
      messages: [sys('m1', 'You are Rind.'), user('m2', 'Hi'), asst('m3', 'Hello.', { reasoning_content: 'greet' })],
    });
    expect(r.of('session')[0]).toMatchObject({ harness: 'rind' });
    // The system prompt is the first system item: no separate envelope prompt; tools are not logged.
    expect(r.of('header')[0]).toMatchObject({ system: [], tools: null });
    expect(
      r.events.filter((e) => e.kind === 'item' || e.kind === 'request').map((e) => (e.kind === 'item' ? e.item.id : 'request')),
    ).toEqual(['m1', 'm2', 'request', 'm3']);
    const a = r.of('item').find((e) => e.item.id === 'm3');
    expect(a?.item).toEqual({
      id: 'm3',
      role: 'assistant',
      blocks: [
        { type: 'reasoning', text: 'greet' },
        { type: 'text', text: 'Hello.' },
      ],
    });
    expect(ids(r.view(0))).toEqual(['m1', 'm2']);
    expect(r.diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);
  });

  it('sends an empty string content as an empty text block (the projector always sends content)', () => {
    const r = importRind({ messages: [user('m1', 'x'), asst('m2', '')] });
    expect(r.of('item')[1]?.item.blocks).toEqual([{ type: 'text', text: '' }]);
  });

  it('marks skill snapshots and catalogs as injected context, keeps the kind as origin', () => {
    const r = importRind({
      messages: [
        user('m1', '/tz-check', { meta: { kind: 'user_prompt', skill_invocations: [] } }),
        user('m2', 'Skill text', { meta: { kind: 'skill_snapshot', name: 'tz-check' } }),
      ],
    });
    expect(r.of('item').map((e) => [e.item.origin, e.item.meta])).toEqual([
      ['user_prompt', undefined],
      ['skill_snapshot', true],
    ]);
  });

  it('builds tool calls from meta.tool_calls with the tool record’s raw_args, content only when truthy', () => {
    const r = importRind({
      tools: [record('c1', 'out', { raw_args: '{"cmd":"pwd"}' })],
      messages: [user('m1', 'go'), calls('m2', [['c1', 'run_shell', '{"cmd":"ls"}']], '', { reasoning_content: 'r' }), toolMsg('m3', 'c1')],
    });
    const a = r.of('item').find((e) => e.item.id === 'm2');
    // The record's raw_args win over the message's (message_projector.py `_build_assistant_tool_calls`).
    expect(a?.item.blocks).toEqual([
      { type: 'reasoning', text: 'r' },
      { type: 'tool_call', id: 'c1', name: 'run_shell', input: '{"cmd":"pwd"}' },
    ]);
  });

  it('keeps a role Rind does not send as an unknown event, counted once per role', () => {
    const r = importRind({ messages: [user('m1', 'x'), msg('m2', 'developer', 'a'), msg('m3', 'developer', 'b'), user('m4', 'y')] });
    expect(r.of('unknown').map((e) => e.type)).toEqual(['message/developer', 'message/developer']);
    const u = r.diagnostics.filter((d) => d.rule === 'UNKNOWN_RECORDS');
    expect(u).toHaveLength(1);
    expect(u[0]?.message).toMatch(/^2 records of kind role "developer"/);
    expect(r.state.items.map((i) => i.id)).toEqual(['m1', 'm4']);
  });

  it('reports a message without role, and non-string content, and reads on', () => {
    const r = importRind({ messages: [{ id: 'm0', ts: 't', content: 'x' }, user('m1', 'x'), msg('m2', 'user', 'y', { content: ['a'] })] });
    expect(r.rules()).toEqual(expect.arrayContaining(['RIND_BAD_RECORD', 'RIND_BAD_CONTENT']));
    expect(r.of('item').map((e) => e.item.blocks[0]?.type)).toEqual(['text', 'opaque']);
  });

  it('gives a duplicate or missing message id a unique item id', () => {
    const r = importRind({ messages: [user('m1', 'a'), user('m1', 'b'), { ts: 't', role: 'user', content: 'c' }] });
    expect(r.of('item').map((e) => e.item.id)).toEqual(['m1', 'm1@2', 'line-3']);
    expect(r.state.diagnostics).toEqual([]);
  });
});
