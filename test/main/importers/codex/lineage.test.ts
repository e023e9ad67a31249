import { describe, expect, it } from 'vitest';
import { call, complete, dev, ev, importValues, meta, out, say, started, tokens, turnContext, user, views } from './helpers';

describe('forks and subagents', () => {
  it('forked_from_id links the parent as a fork', () => {
    const r = importValues([meta({ id: 'child', forked_from_id: 'parent-1' })]);
    expect(r.of('session')[0]?.parent).toEqual({ session: 'parent-1', origin: 'fork' });
  });

  it('a subagent thread links its parent thread, and its nickname becomes the title', () => {
    const r = importValues([
      meta({
        id: 'sub',
        agent_nickname: 'Ada',
        agent_role: 'explorer',
        source: { subagent: { thread_spawn: { parent_thread_id: 'parent-2', depth: 1 } } },
      }),
    ]);
    expect(r.of('session')[0]).toMatchObject({ parent: { session: 'parent-2', origin: 'subagent' }, title: 'Ada (explorer)' });
  });

  it("the parent's session_meta copied into a fork is a record, not a second session", () => {
    const r = importValues([meta({ id: 'child', forked_from_id: 'parent-1' }), meta({ id: 'parent-1' }), user('hi')]);
    expect(r.of('session')).toHaveLength(1);
    expect(r.of('record')[0]).toMatchObject({ type: 'session_meta', summary: 'session_meta of parent-1, copied with the forked history' });
    expect(r.diagnostics).toEqual([]);
  });

  it('a foreign second session_meta is a warning', () => {
    const r = importValues([meta(), meta({ id: 'other' })]);
    expect(r.diagnostics.map((d) => [d.rule, d.severity, d.line])).toEqual([['CODEX_SECOND_SESSION_META', 'warning', 2]]);
  });
});

describe('resume', () => {
  /** Codex 0.104 after a resume: the full initial context again, right before the next task_started. */
  const context = () => [
    dev('<permissions>…</permissions>'),
    dev('developer instructions'),
    user('# AGENTS.md instructions for /work'),
    user('<environment_context>…'),
  ];

  it('the initial context re-injected after an ended turn marks a resume, before it; the items stay in the history', () => {
    const r = importValues([
      meta(),
      ...context(),
      started(),
      user('one'),
      say('1'),
      tokens({ input: 10 }, 10),
      complete(),
      ...context(),
      started(),
      user('two'),
      say('2'),
      tokens({ input: 20 }, 30),
      complete(),
    ]);
    const resume = r.of('lifecycle').filter((e) => e.boundary === 'resume');
    expect(resume.map((e) => e.line)).toEqual([11]);
    const next = r.events[(resume[0]?.seq ?? 0) + 1];
    expect(next).toMatchObject({ kind: 'item', line: 11 });
    const { view } = views(r);
    // Codex sends the re-injected context again: it is in the view, after the first turn.
    expect(view(1).items.map((i) => i.id)).toEqual(['L2', 'L3', 'L4', 'L5', 'L7', 'L8', 'L11', 'L12', 'L13', 'L14', 'L16']);
    expect(
      view(1)
        .items.filter((i) => i.meta)
        .map((i) => i.id),
    ).toEqual(['L4', 'L5', 'L13', 'L14']);
  });

  it('a settings update (one developer message) before a turn is no resume; nor is the first context', () => {
    const r = importValues([
      meta(),
      ...context(),
      started(),
      user('one'),
      complete(),
      dev('<model_switch>'),
      started(),
      user('two'),
      complete(),
    ]);
    expect(r.of('lifecycle').filter((e) => e.boundary === 'resume')).toEqual([]);
  });

  it('a repeated session_meta of the same session is a resume', () => {
    const r = importValues([meta(), started(), user('one'), complete(), meta(), started(), user('two'), complete()]);
    expect(
      r
        .of('lifecycle')
        .filter((e) => e.boundary === 'resume')
        .map((e) => e.line),
    ).toEqual([5]);
    expect(r.of('session')).toHaveLength(1);
  });
});

describe('rollback', () => {
  it('thread_rolled_back drops the last n user turns from the history', () => {
    const r = importValues([
      meta(),
      dev('ctx'),
      started(),
      user('one'),
      say('1'),
      complete(),
      started(),
      user('two'),
      call('c'),
      tokens({ input: 5 }, 5),
      out('c'),
      say('2'),
      complete(),
      ev({ type: 'thread_rolled_back', num_turns: 1 }),
      started(),
      user('three'),
      turnContext(),
      say('3'),
      tokens({ input: 7 }, 12),
      complete(),
    ]);
    expect(r.of('drop')[0]).toMatchObject({ items: ['L8', 'L9', 'L11', 'L12'], reason: 'other', line: 14 });
    const { state, view } = views(r);
    expect(view(state.requests.length - 1).items.map((i) => i.id)).toEqual(['L2', 'L4', 'L5', 'L16']);
    expect(state.diagnostics).toEqual([]);
  });
});
