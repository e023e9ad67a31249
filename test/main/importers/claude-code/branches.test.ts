import { describe, expect, it } from 'vitest';
import { assistant, errors, importValues, progress, readFixture, text, toolResult, toolUse, user } from './helpers';

describe('claude-code: the uuid/parentUuid DAG', () => {
  it('a rewind (a prompt whose parent is an earlier record) starts a branch forked at that record', () => {
    const r = importValues([
      user('u1', null, 'Start'),
      assistant('a1', 'u1', 'msg_a1', [text('Ready')], { input_tokens: 10, output_tokens: 5 }),
      user('b1u', 'a1', 'First attempt'),
      assistant('b1a', 'b1u', 'msg_b1a', [text('First answer')]),
      user('b2u', 'a1', 'Second attempt'),
      assistant('b2a', 'b2u', 'msg_b2a', [text('Second answer')]),
    ]);
    expect(r.branches()).toEqual(['main', 'rewind-1']);
    const fork = r.of('fork')[0];
    // The fork inherits main up to the event of the parent record (a1's item), by reference.
    const a1 = r.of('item').find((e) => e.item.id === 'msg_a1');
    expect(fork).toMatchObject({ branch: 'rewind-1', parent: { seq: a1?.seq } });
    expect(fork?.parent.branch).toBeUndefined();
    expect(fork?.label).toMatch(/rewind to line 2/);
    // The branch with the newest leaf opens by default.
    expect(r.defaultBranch).toBe('rewind-1');
    expect(r.view(1, 'rewind-1').items.map((i) => i.id)).toEqual(['u1', 'msg_a1', 'b2u']);
    expect(r.view(1, 'main').items.map((i) => i.id)).toEqual(['u1', 'msg_a1', 'b1u']);
    expect(errors(r.diagnostics)).toEqual([]);
  });

  it('a fork gets its own copy of the response its parent branch wrote after the fork point', () => {
    const r = importValues([
      user('u1', null, 'Start'),
      assistant('a1', 'u1', 'msg_a1', [text('Ready')], { input_tokens: 10, cache_read_input_tokens: 90, output_tokens: 5 }),
      user('b1u', 'a1', 'First attempt'),
      assistant('b1a', 'b1u', 'msg_b1a', [text('First answer')]),
      user('b2u', 'a1', 'Second attempt'),
    ]);
    // main writes msg_a1's response only when msg_b1a starts, after a1: the fork needs its own.
    const responses = r.of('response').filter((e) => e.request === 'msg_a1');
    expect(responses.map((e) => e.branch)).toEqual([undefined, 'rewind-1']);
    // Both at the message's last line.
    expect(responses.map((e) => [e.file, e.line])).toEqual([
      [0, 2],
      [0, 2],
    ]);
    for (const b of ['main', 'rewind-1']) {
      const st = r.replay(b);
      expect(st.requests[0]?.usage).toEqual({ input: 10, cacheRead: 90, output: 5 });
    }
  });

  it('parallel tool results hanging off different lines of one response stay on the branch', () => {
    // tool_heavy.jsonl lines 29–34: the second result's parent is the first tool_use line.
    const r = importValues([
      user('u1', null, 'Scroll does not work'),
      assistant('a1', 'u1', 'msg_1', [text('Looking.')]),
      assistant('a2', 'a1', 'msg_1', [toolUse('tK', 'Read')]),
      assistant('a3', 'a2', 'msg_1', [toolUse('tN', 'Grep')]),
      progress('p1', 'a3'),
      toolResult('rN', 'a3', 'tN', 'grep hits'),
      toolResult('rK', 'a2', 'tK', 'file text'),
      assistant('b1', 'rK', 'msg_2', [text('Found it.')]),
    ]);
    expect(r.branches()).toEqual(['main']);
    expect(r.of('fork')).toEqual([]);
    expect(r.view(1).items.map((i) => i.id)).toEqual(['u1', 'msg_1', 'rN', 'rK']);
  });

  it('looks through progress records: a record whose parent is a progress line hangs off its conversation ancestor', () => {
    const r = importValues([
      user('u1', null, 'go'),
      assistant('a1', 'u1', 'msg_1', [toolUse('t1')]),
      progress('p1', 'a1'),
      progress('p2', 'p1'),
      toolResult('r1', 'a1', 't1', 'ok'),
      progress('p3', 'r1'),
      progress('p4', 'p3'),
      assistant('a2', 'p4', 'msg_2', [text('done')]),
    ]);
    expect(r.branches()).toEqual(['main']);
    expect(r.view(1).items.map((i) => i.id)).toEqual(['u1', 'msg_1', 'r1']);
    expect(r.of('record').map((e) => e.type)).toEqual([
      'progress/hook_progress',
      'progress/hook_progress',
      'progress/hook_progress',
      'progress/hook_progress',
    ]);
  });

  it('sidechain records in the main file go to a branch of their own (not op:log)', () => {
    const side = (v: Record<string, unknown>): Record<string, unknown> => ({ ...v, isSidechain: true });
    const r = importValues([
      user('u1', null, 'Explore the code'),
      assistant('a1', 'u1', 'msg_1', [toolUse('t1', 'Task', { prompt: 'look around' })]),
      side(user('s1', null, 'look around')),
      side(assistant('s2', 's1', 'msg_s1', [text('found main.ts')])),
      toolResult('r1', 'a1', 't1', 'found main.ts'),
      assistant('a2', 'r1', 'msg_2', [text('The entry point is main.ts.')]),
    ]);
    expect(r.branches()).toEqual(['main', 'sidechain-1']);
    const st = r.replay('sidechain-1');
    expect(st.requests.map((q) => q.id)).toEqual(['msg_s1']);
    expect(r.view(0, 'sidechain-1').items.map((i) => i.id)).toEqual(['s1']);
    expect(r.view(0, 'sidechain-1').system).toBeNull();
    expect(r.replay('main').requests.map((q) => q.id)).toEqual(['msg_1', 'msg_2']);
    expect(r.defaultBranch).toBe('main');
  });

  it('sidechain records in the main file linked to their Task call are spawned there, inheriting nothing', () => {
    const side = (v: Record<string, unknown>): Record<string, unknown> => ({ ...v, isSidechain: true, agentId: 'a88' });
    const r = importValues([
      user('u1', null, 'Explore the code'),
      assistant('a1', 'u1', 'msg_1', [toolUse('t1', 'Task', { prompt: 'look around' })]),
      progress('p1', 'a1', { data: { type: 'agent_progress', agentId: 'a88' }, parentToolUseID: 't1' }),
      side(user('s1', null, 'look around')),
      side(assistant('s2', 's1', 'msg_s1', [text('found main.ts')])),
      toolResult('r1', 'a1', 't1', 'found main.ts'),
      assistant('a2', 'r1', 'msg_2', [text('The entry point is main.ts.')]),
    ]);
    expect(r.branches()).toEqual(['main', 'agent-a88']);
    const call = r.of('item').find((e) => e.item.id === 'msg_1');
    expect(r.of('fork')[0]).toMatchObject({ branch: 'agent-a88', parent: { seq: call?.seq }, inherit: false });
    expect(r.of('drop')).toEqual([]);
    expect(r.replay('agent-a88').requests.map((q) => q.id)).toEqual(['msg_s1']);
    expect(r.view(0, 'agent-a88').items.map((i) => i.id)).toEqual(['s1']);
    expect(r.view(0, 'agent-a88').system).toBeNull();
    expect(r.replay('main').requests.map((q) => q.id)).toEqual(['msg_1', 'msg_2']);
    expect(r.view(1, 'main').items.map((i) => i.id)).toEqual(['u1', 'msg_1', 'r1']);
    expect(r.defaultBranch).toBe('main');
  });

  it('a later root in the main file starts a conversation of its own', () => {
    const r = importValues([
      user('u1', null, 'one'),
      assistant('a1', 'u1', 'msg_1', [text('1')]),
      user('v1', null, 'two'),
      assistant('b1', 'v1', 'msg_2', [text('2')]),
    ]);
    expect(r.branches()).toEqual(['main', 'root-1']);
    expect(r.view(0, 'root-1').items.map((i) => i.id)).toEqual(['v1']);
    expect(r.diag('CC_NEW_ROOT')).toMatchObject({ severity: 'info', line: 3 });
  });

  it('the daaain fixture: a rewind before a compaction makes the rewound branch the default', () => {
    const r = importValues(readFixture('dag_compact_after_rewind_preserved.jsonl'));
    expect(r.branches()).toEqual(['main', 'rewind-1']);
    expect(r.defaultBranch).toBe('rewind-1');
    expect(r.replay('main').requests.map((q) => q.id)).toEqual(['msg_a1', 'msg_b1a']);
    expect(r.replay('rewind-1').requests.map((q) => q.id)).toEqual(['msg_a1', 'msg_b2a', 'msg_p1a']);
  });
});
