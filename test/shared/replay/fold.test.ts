import { describe, expect, it } from 'vitest';
import { replay } from '../../../src/shared/replay/fold';
import { fatesAt, modelView } from '../../../src/shared/replay/view';
import { assistant, call, log, request, result, text, user } from './build';

const ids = (events: ReturnType<typeof log>, index: number, branch?: string) =>
  modelView(replay(events, { branch }), index)?.items.map((i) => i.id);

describe('replay: surface operations', () => {
  it('a checkpoint replacing a range takes its position, and the covered items are summarised by it', () => {
    const events = log([
      { kind: 'header', system: text('You are helpful.'), tools: [], route: { provider: 'p', model: 'm', window: 1000 } },
      user('u1'),
      assistant('a1'),
      call('c1', 'k1'),
      result('r1', 'k1'),
      user('u2'),
      request('q0'),
      { kind: 'compaction/start', id: 'K', trigger: 'auto' },
      {
        kind: 'item',
        op: { op: 'replace', from: 'u1', to: 'r1' },
        sources: [1, 2, 3, 4],
        item: {
          id: 'cp',
          role: 'user',
          blocks: text('summary'),
          derivation: { kind: 'checkpoint', compactionId: 'K', covers: ['u1', 'a1', 'c1', 'r1'] },
        },
      },
      { kind: 'compaction/end', id: 'K', outcome: 'committed' },
      request('q1'),
    ]);
    const state = replay(events);
    expect(modelView(state, 0)?.items.map((i) => i.id)).toEqual(['u1', 'a1', 'c1', 'r1', 'u2']);
    const after = modelView(state, 1);
    expect(after?.items.map((i) => i.id)).toEqual(['cp', 'u2']);
    expect(after?.items[0]?.kind).toBe('checkpoint');
    expect(after?.items[0]?.provenance).toEqual([1, 2, 3, 4, 8]);
    expect(after?.system).toEqual(text('You are helpful.'));
    expect(after?.unknowns).toEqual([]);
    const fates = Object.fromEntries(fatesAt(state, 1).map((f) => [f.id, f.fate]));
    expect(fates.u1).toEqual({ fate: 'summarised', compactionId: 'K', by: 'cp' });
    expect(fates.r1).toEqual({ fate: 'summarised', compactionId: 'K', by: 'cp' });
    expect(fates.u2).toEqual({ fate: 'verbatim' });
    expect(fates.cp).toEqual({ fate: 'verbatim' });
    // At the earlier request the checkpoint did not exist yet.
    expect(fatesAt(state, 0).map((f) => f.id)).toEqual(['u1', 'a1', 'c1', 'r1', 'u2']);
    expect(state.compactions[0]).toMatchObject({ id: 'K', trigger: 'auto', outcome: 'committed', checkpointItems: ['cp'] });
  });

  it('masking shows a reference, and says so when the reference text is not recorded', () => {
    const events = log([
      call('c1', 'k1'),
      result('r1', 'k1', 'big output'),
      request('q0'),
      { kind: 'mask', items: ['r1'], by: 'model' },
      request('q1'),
      { kind: 'mask', items: ['r1'], masked: false },
      request('q2'),
      { kind: 'mask', items: ['r1'], reference: text('[masked: r1]') },
      request('q3'),
    ]);
    const state = replay(events);
    const v1 = modelView(state, 1);
    expect(v1?.items[1]).toMatchObject({ id: 'r1', rendition: 'masked', blocks: null });
    expect(v1?.unknowns.some((u) => u.includes('r1'))).toBe(true);
    expect(modelView(state, 2)?.items[1]).toMatchObject({
      rendition: 'verbatim',
      blocks: [{ type: 'tool_result', callId: 'k1', content: text('big output') }],
    });
    expect(modelView(state, 3)?.items[1]).toMatchObject({ rendition: 'masked', blocks: text('[masked: r1]') });
    expect(fatesAt(state, 1).find((f) => f.id === 'r1')?.fate).toEqual({ fate: 'masked' });
    expect(fatesAt(state, 2).find((f) => f.id === 'r1')?.fate).toEqual({ fate: 'verbatim' });
  });

  it('an insert does not take the place of a dropped item: restored, the item is back where it was', () => {
    const events = log([
      user('a'),
      user('c'),
      { kind: 'item', op: { op: 'insert', before: 'c' }, item: { id: 'x', role: 'user', blocks: text('x') } },
      { kind: 'drop', items: ['x'], reason: 'hidden' },
      // The same gap again: the first key it offers is x's, which must stay free for x.
      { kind: 'item', op: { op: 'insert', before: 'c' }, item: { id: 'y', role: 'user', blocks: text('y') } },
      { kind: 'restore', items: ['x'] },
      request('q'),
    ]);
    expect(ids(events, 0)).toEqual(['a', 'x', 'y', 'c']);
  });

  it('pruning replaces one result in place; drop and restore give dropped and re-injected', () => {
    const events = log([
      user('u1'),
      call('c1', 'k1'),
      result('r1', 'k1'),
      user('u2'),
      {
        kind: 'item',
        op: { op: 'replace', from: 'r1', to: 'r1' },
        item: {
          id: 'r1p',
          role: 'tool',
          blocks: [{ type: 'tool_result', callId: 'k1', content: text('head…tail') }],
          derivation: { kind: 'pruned', of: 'r1', head: 4, tail: 4, omitted: 100 },
        },
      },
      request('q0'),
      { kind: 'drop', items: ['u2'], reason: 'truncation' },
      request('q1'),
      { kind: 'restore', items: ['u2'] },
      request('q2'),
    ]);
    const state = replay(events);
    expect(ids(events, 0)).toEqual(['u1', 'c1', 'r1p', 'u2']);
    expect(fatesAt(state, 0).find((f) => f.id === 'r1')?.fate).toEqual({ fate: 'pruned', by: 'r1p' });
    expect(ids(events, 1)).toEqual(['u1', 'c1', 'r1p']);
    expect(fatesAt(state, 1).find((f) => f.id === 'u2')?.fate).toEqual({ fate: 'dropped', reason: 'truncation' });
    expect(ids(events, 2)).toEqual(['u1', 'c1', 'r1p', 'u2']);
    expect(fatesAt(state, 2).find((f) => f.id === 'u2')?.fate).toEqual({ fate: 'reinjected', by: 'u2' });
  });

  it('insert puts a checkpoint before the raw tail although it was appended later (cosh)', () => {
    const events = log([
      user('u1'),
      assistant('a1'),
      user('u2'),
      assistant('a2'),
      {
        kind: 'item',
        op: { op: 'insert', before: 'u2' },
        item: { id: 'cp', role: 'user', blocks: text('s'), derivation: { kind: 'checkpoint', compactionId: 'K', covers: ['u1', 'a1'] } },
      },
      { kind: 'item', op: { op: 'insert', before: 'u2' }, item: { id: 'x', role: 'user', blocks: text('x') } },
      request('q'),
    ]);
    expect(ids(events, 0)).toEqual(['cp', 'x', 'u2', 'a2']);
  });

  it('extend merges one response logged as several records; log-only items never reach the model', () => {
    const events = log([
      user('u1'),
      assistant('m1', 'part one'),
      { kind: 'item', op: { op: 'extend' }, item: { id: 'm1', role: 'assistant', blocks: text('part two') } },
      { kind: 'item', op: { op: 'log' }, item: { id: 'note', role: 'user', blocks: text('display only') } },
      request('q'),
    ]);
    const state = replay(events);
    const v = modelView(state, 0);
    expect(v?.items.map((i) => i.id)).toEqual(['u1', 'm1']);
    expect(v?.items[1]?.blocks).toEqual([...text('part one'), ...text('part two')]);
    expect(v?.items[1]?.provenance).toEqual([1, 2]);
    expect(fatesAt(state, 0).find((f) => f.id === 'note')?.fate).toEqual({ fate: 'dropped', reason: 'never-sent' });
  });

  it('reports bad references and reused ids instead of failing', () => {
    const events = log([
      user('u1'),
      user('u1'),
      { kind: 'item', op: { op: 'replace', from: 'nope', to: 'u1' }, item: { id: 'c', role: 'user', blocks: text('c') } },
      { kind: 'mask', items: ['ghost'] },
      { kind: 'response', request: 'never' },
      request('q'),
    ]);
    const state = replay(events);
    expect(state.diagnostics.map((d) => d.rule)).toEqual([
      'REPLAY_DUPLICATE_ITEM',
      'REPLAY_UNKNOWN_ITEM',
      'REPLAY_UNKNOWN_ITEM',
      'REPLAY_RESPONSE_WITHOUT_REQUEST',
    ]);
    expect(ids(events, 0)).toEqual(['u1', 'u1#2', 'c']);
    expect(state.diagnostics[1]?.seqs).toEqual([2]);
  });

  it('a summarizer request shows its own input, and says the instruction is unknown', () => {
    const events = log([
      { kind: 'header', system: null, tools: null },
      user('u1'),
      assistant('a1'),
      { kind: 'request', id: 's', purpose: 'compaction', compactionId: 'K', input: { items: ['u1'], instruction: null } },
      { kind: 'response', request: 's', finish: { raw: 'length', reason: 'length' }, usage: { input: 10, cacheRead: 5, output: 3 } },
    ]);
    const v = modelView(replay(events), 0);
    expect(v?.items.map((i) => i.id)).toEqual(['u1']);
    expect(v?.system).toBeNull();
    expect(v?.tools).toBeNull();
    expect(v?.unknowns).toEqual([
      'system prompt: the log does not record it',
      'tool schemas: the log does not record them',
      'summarizer instruction: the log does not record it',
    ]);
    expect(v?.request.reportedInputTokens).toBe(15);
    expect(v?.request.finish).toEqual({ raw: 'length', reason: 'length' });
  });
});

describe('replay: branches resolve by reference', () => {
  const events = log([
    user('u1'),
    assistant('a1'),
    request('q0'), // 0..2 main
    user('u2'),
    assistant('a2'),
    request('q1'), // 3..5 main
    { kind: 'fork', branch: 'b', parent: { branch: 'main', seq: 1 } }, // 6
    { kind: 'item', branch: 'b', item: { id: 'bu', role: 'user', blocks: text('on b') } }, // 7
    { kind: 'request', branch: 'b', id: 'qb' }, // 8
    { kind: 'revert', target: { seq: 2 } }, // 9: main back to after q0
    user('u3'),
    request('q2'), // 10..11
    { kind: 'rollback', target: { seq: 5 } }, // 12: not in main's history any more → reported
  ]);

  it('a fork inherits the parent up to the referenced seq', () => {
    expect(ids(events, 0, 'b')).toEqual(['u1', 'a1', 'bu']);
    expect(replay(events, { branch: 'b' }).requests.map((r) => r.id)).toEqual(['qb']);
  });

  it('a revert abandons what came after its target; abandoned events stay out of the views', () => {
    const state = replay(events, { untilSeq: 11 });
    expect(state.requests.map((r) => r.id)).toEqual(['q0', 'q2']);
    expect(modelView(state, 1)?.items.map((i) => i.id)).toEqual(['u1', 'a1', 'u3']);
    expect(state.seqs).not.toContain(3);
  });

  it('a rollback restores the exact prior head, even one a revert abandoned', () => {
    const state = replay(events);
    expect(state.requests.map((r) => r.id)).toEqual(['q0', 'q1']);
    expect(state.seqs).toEqual([0, 1, 2, 3, 4, 5, 12]);
    expect(state.diagnostics).toEqual([]);
  });

  it('a reference to an event that does not precede it is reported and ignored', () => {
    const bad = log([user('u1'), { kind: 'revert', target: { seq: 5 } }, user('u2'), request('q')]);
    const state = replay(bad);
    expect(state.diagnostics.map((d) => d.rule)).toEqual(['REPLAY_BRANCH']);
    expect(modelView(state, 0)?.items.map((i) => i.id)).toEqual(['u1', 'u2']);
  });
});

describe('replay: a fork that does not inherit', () => {
  it('links to its parent but starts with an empty history (a spawned subagent)', () => {
    const events = log([
      user('u1'),
      assistant('a1'),
      request('q0'),
      { kind: 'fork', branch: 'agent', parent: { seq: 1 }, inherit: false },
      { kind: 'item', branch: 'agent', item: { id: 'p', role: 'user', blocks: text('subtask prompt') } },
      { kind: 'request', branch: 'agent', id: 'qa' },
    ]);
    const state = replay(events, { branch: 'agent' });
    expect(state.requests.map((r) => r.id)).toEqual(['qa']);
    expect(modelView(state, 0)?.items.map((i) => i.id)).toEqual(['p']);
    expect(state.diagnostics).toEqual([]);
  });
});
