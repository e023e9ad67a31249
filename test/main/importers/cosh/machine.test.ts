import { describe, expect, it } from 'vitest';
import { A, CP, Log, TC, TR, U, at, findings, importCosh, plan } from './helpers';

const B = 'root';

/** genesis + initialize + items: a start most tests share. */
function start(extra: Record<string, unknown> = {}): Log {
  const l = new Log();
  l.genesis(B);
  l.init(B, extra);
  return l;
}

describe('cosh requests are inferred at model outputs', () => {
  it('one request per response: consecutive Assistant/ToolCall items are one output', () => {
    const l = start();
    l.item(B, U(1, 'go'));
    l.item(B, A(2, 'Reading.'));
    l.item(B, TC(3, 'c1'));
    l.item(B, TR(4, 'c1', 'out'));
    l.item(B, A(5, 'Done.', true));
    const r = importCosh(l.lines);
    expect(r.views(B)).toEqual([['1'], ['1', '2', '3', '4']]);
    expect(r.of('header')[0]).toMatchObject({ system: null, tools: null, route: { provider: 'p', model: 'm' } });
    expect(findings(r)).toEqual([]);
  });

  it('a command the user typed is not a model call', () => {
    const l = start();
    l.item(B, U(1, 'go'));
    l.item(B, { UserCommand: { id: 2, content: 'ls' } });
    l.item(B, TC(3, 'c1', 'bash_run'));
    l.item(B, TR(4, 'c1', 'a b'));
    l.ctx(B, { field: 'hidden', item_ids: [2, 3, 4], hidden: true });
    l.item(B, A(5, 'ok'));
    const r = importCosh(l.lines);
    expect(r.views(B)).toEqual([['1']]);
    expect(r.of('item').find((e) => e.item.id === '2')?.op).toEqual({ op: 'log' });
  });
});

describe('cosh visibility as surface operations', () => {
  it('a masked result shows cosh’s typed reference; the mask follows its mask_tool_result call in the same save', () => {
    const l = start();
    l.item(B, U(1, 'go'));
    l.item(B, TC(2, 'c1'));
    l.item(B, TR(3, 'c1', 'big output'));
    l.item(B, TC(4, 'c2', 'mask_tool_result'));
    l.item(B, TR(5, 'c2', 'masked #3'));
    l.item(B, A(6, 'next'));
    l.ctx(B, { field: 'next_id', value: 7 });
    l.ctx(B, { field: 'masked', item_ids: [3], masked: true });
    const r = importCosh(l.lines);
    expect(r.views(B)).toEqual([['1'], ['1', '2', '3'], ['1', '2', '3*', '4', '5']]);
    const mask = r.of('mask')[0];
    expect(mask).toMatchObject({ items: ['3'], masked: true, by: 'model' });
    expect(mask?.reference).toEqual([
      {
        type: 'tool_result',
        callId: 'c1',
        content: [
          {
            type: 'text',
            text: '[Historical tool result masked from the active view; source context item #3 remains in the immutable session history.]',
          },
        ],
      },
    ]);
    // Written right after the masking call, before that call's own result.
    const call = r.of('item').find((e) => e.item.id === '4');
    expect(mask?.seq).toBe((call?.seq ?? 0) + 1);
    expect(r.fates(B, 2).find((f) => f.id === '3')?.fate).toEqual({ fate: 'masked' });
  });

  it('a masked change that is not the call’s target stays where the log has it', () => {
    const l = start();
    l.item(B, U(1, 'go'));
    l.item(B, TC(2, 'c1'));
    l.item(B, TR(3, 'c1', 'a'));
    l.item(B, TC(4, 'c9'));
    l.item(B, TR(5, 'c9', 'b'));
    l.item(B, TC(6, 'c2', 'mask_tool_result'));
    l.item(B, TR(7, 'c2', 'masked'));
    l.item(B, A(8, 'next'));
    l.ctx(B, { field: 'masked', item_ids: [3], masked: true });
    l.item(B, U(9, 'more'));
    l.item(B, A(10, 'ok'));
    const r = importCosh(l.lines);
    const vs = r.views(B);
    expect(vs[3]).toEqual(['1', '2', '3', '4', '5', '6', '7']);
    expect(vs[4]).toEqual(['1', '2', '3*', '4', '5', '6', '7', '8', '9']);
  });

  it('hidden items are dropped (reason hidden) and come back in place when un-hidden', () => {
    const l = start();
    l.item(B, U(1, 'a'));
    l.item(B, TC(2, 'c1'));
    l.item(B, TR(3, 'c1', 'none', true));
    l.item(B, A(4, 'b'));
    l.ctx(B, { field: 'hidden', item_ids: [2, 3], hidden: true });
    l.item(B, U(5, 'c'));
    l.item(B, A(6, 'd'));
    l.ctx(B, { field: 'hidden', item_ids: [2, 3], hidden: false });
    l.item(B, U(7, 'e'));
    l.item(B, A(8, 'f'));
    const r = importCosh(l.lines);
    expect(r.views(B)).toEqual([['1'], ['1', '2', '3'], ['1', '4', '5'], ['1', '2', '3', '4', '5', '6', '7']]);
    expect(r.of('drop')[0]).toMatchObject({ items: ['2', '3'], reason: 'hidden' });
    expect(r.of('restore')[0]).toMatchObject({ items: ['2', '3'] });
    expect(r.fates(B, 2).find((f) => f.id === '2')?.fate).toEqual({ fate: 'dropped', reason: 'hidden' });
  });

  it('items born hidden still get their place, so a later un-hide puts them back there', () => {
    const l = start({ hidden: [2] });
    l.item(B, U(1, 'a'));
    l.item(B, U(2, 'abandoned'));
    l.item(B, U(3, 'b'));
    l.item(B, A(4, 'c'));
    l.ctx(B, { field: 'hidden', item_ids: [2], hidden: false });
    l.item(B, U(5, 'd'));
    l.item(B, A(6, 'e'));
    const r = importCosh(l.lines);
    expect(r.views(B)).toEqual([
      ['1', '3'],
      ['1', '2', '3', '4', '5'],
    ]);
    expect(findings(r)).toEqual([]);
  });

  it('an upsert of an existing id is a new version in place (a Closure replaces its Assistant)', () => {
    const l = start();
    l.item(B, U(1, 'a'));
    l.item(B, A(2, 'answer', true));
    l.item(B, { Closure: { id: 2, content: 'answer' } });
    l.item(B, U(3, 'b'));
    l.item(B, A(4, 'c'));
    const r = importCosh(l.lines);
    expect(r.views(B)).toEqual([['1'], ['1', '2~2', '3']]);
    expect(r.of('item').find((e) => e.item.id === '2~2')).toMatchObject({
      op: { op: 'replace', from: '2', to: '2' },
      item: { origin: 'Closure', role: 'assistant' },
    });
    expect(r.fates(B, 1).find((f) => f.id === '2')?.fate).toEqual({ fate: 'dropped', reason: 'replaced', by: '2~2' });
  });

  it('a removed item leaves the view; leading tool results are skipped as cosh does', () => {
    const l = start();
    l.item(B, TC(1, 'c1'));
    l.item(B, TR(2, 'c1', 'r'));
    l.item(B, U(3, 'a'));
    l.item(B, A(4, 'b'));
    l.ctx(B, { field: 'item_remove', item_id: 1 });
    l.item(B, U(5, 'c'));
    l.item(B, A(6, 'd'));
    const r = importCosh(l.lines);
    expect(r.views(B)).toEqual([[], ['1', '2', '3'], ['3', '4', '5']]);
  });
});

describe('cosh checkpoints', () => {
  it('composes the checkpoint before the raw tail, covering its ranges; the covered items are summarised', () => {
    const l = start();
    l.item(B, U(1, 'a'));
    l.item(B, A(2, 'b'));
    l.item(B, U(3, 'c'));
    l.item(B, A(4, 'd'));
    l.item(B, U(5, 'tail'));
    l.item(B, CP(6, '## Objective\nx', [[1, 4]]));
    l.item(B, A(7, 'e'));
    const r = importCosh(l.lines);
    expect(r.views(B)[2]).toEqual(['6', '5']);
    const cp = r.of('item').find((e) => e.item.id === '6');
    expect(cp?.op).toEqual({ op: 'insert', before: '5' });
    expect(cp?.item.derivation).toEqual({ kind: 'checkpoint', compactionId: 'cmp-6', covers: ['1', '2', '3', '4'], part: 'summary' });
    const start_ = r.of('compaction/start')[0];
    expect(start_).toMatchObject({
      id: 'cmp-6',
      trigger: 'unknown',
      strategy: 'checkpoint',
      source: ['1', '2', '3', '4'],
      policy: { window: 10000, triggerRatio: 0.8, rawTailRatio: 0.2 },
    });
    expect(cp?.sources?.slice(0, 2)).toEqual([start_?.seq, r.of('compaction/summary')[0]?.seq]);
    expect(r.of('compaction/end')[0]).toMatchObject({ id: 'cmp-6', outcome: 'committed' });
    expect(r.fates(B, 2).find((f) => f.id === '3')?.fate).toEqual({ fate: 'summarised', compactionId: 'cmp-6', by: '6' });
    expect(findings(r)).toEqual([]);
    expect(r.state(B).diagnostics).toEqual([]);
  });

  it('a second checkpoint folds the first; hiding it brings the first back', () => {
    const l = start();
    l.item(B, U(1, 'a'));
    l.item(B, A(2, 'b'));
    l.item(B, CP(3, 'first', [[1, 2]]));
    l.item(B, U(4, 'c'));
    l.item(B, A(5, 'd'));
    l.item(B, CP(6, 'second', [[1, 5]]));
    l.item(B, U(7, 'e'));
    l.item(B, A(8, 'f'));
    l.ctx(B, { field: 'hidden', item_ids: [6], hidden: true });
    l.item(B, U(9, 'g'));
    l.item(B, A(10, 'h'));
    const r = importCosh(l.lines);
    expect(r.views(B)).toEqual([['1'], ['3', '4'], ['6', '7'], ['3', '4', '5', '7', '8', '9']]);
  });

  it('a legacy checkpoint (no ranges) is placed first; visible_from then hides what it folded', () => {
    const l = start();
    l.item(B, U(1, 'a'));
    l.item(B, A(2, 'b'));
    l.item(B, CP(3, 'legacy', []));
    l.ctx(B, { field: 'visible_from', value: 3 });
    l.item(B, U(4, 'c'));
    l.item(B, A(5, 'd'));
    const r = importCosh(l.lines);
    expect(r.views(B)).toEqual([['1'], ['3', '4']]);
    expect(r.of('drop')[0]).toMatchObject({ items: ['1', '2'], reason: 'compaction', compactionId: 'cmp-3' });
    expect(r.of('compaction/start')[0]?.strategy).toBe('legacy (visible_from)');
  });
});

describe('cosh staging (MapReduce, legacy split)', () => {
  const seg = (ordinal: number, ids: number[], summary: string | null): Record<string, unknown> => ({
    ordinal,
    item_ids: ids,
    covered_ranges: [],
    summary,
    slices: [],
  });
  const mr = (version: number, segments: Record<string, unknown>[], extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    version,
    window: 100,
    source_item_ids: [1, 2],
    segments,
    ...extra,
  });

  it('a staging opens a bracket; maps, a repartition and the commit follow in it', () => {
    const l = start();
    l.item(B, U(1, 'a'));
    l.item(B, A(2, 'b'));
    l.ctx(B, {
      field: 'map_reduce',
      value: mr(3, [seg(0, [1], null), seg(1, [2], null)], {
        source_fingerprints: [
          [1, 5],
          [2, 6],
        ],
      }),
    });
    l.ctx(B, { field: 'map_segment_accepted', ordinal: 1, summary: 'm1' });
    l.ctx(B, { field: 'map_segment_accepted', ordinal: 7, summary: 'nothing' });
    l.ctx(B, {
      field: 'map_reduce',
      value: mr(3, [seg(1, [2], 'm1'), seg(2, [1], null)], {
        source_fingerprints: [
          [1, 5],
          [2, 6],
        ],
        repartitions: 1,
      }),
    });
    l.ctx(B, {
      field: 'map_reduce',
      value: mr(3, [seg(1, [2], 'm1'), seg(2, [1], 'm2')], {
        source_fingerprints: [
          [1, 5],
          [2, 6],
        ],
        repartitions: 1,
        phase: 'validating',
        candidate: 'C',
        audits: ['PASS'],
      }),
    });
    l.item(B, CP(3, 'C', [[1, 2]]));
    l.ctx(B, { field: 'map_reduce', value: null });
    const r = importCosh(l.lines);
    const id = r.of('compaction/start')[0]?.id;
    expect(r.of('compaction/start').map((e) => [e.id, e.strategy])).toEqual([[id, 'mapreduce']]);
    expect(r.of('mapreduce/staging').map((e) => [e.version, e.fingerprint, e.segments])).toEqual([
      [
        3,
        'xxh64:1=5,2=6',
        [
          { ordinal: 0, items: ['1'] },
          { ordinal: 1, items: ['2'] },
        ],
      ],
    ]);
    expect(r.of('mapreduce/map').map((e) => [e.ordinal, e.status])).toEqual([
      [1, 'accepted'],
      [2, 'accepted'],
    ]);
    expect(r.of('mapreduce/repartition')[0]).toMatchObject({ attempt: 1, replaces: [0], segments: [{ ordinal: 2, items: ['1'] }] });
    expect(r.of('item').find((e) => e.item.id === '3')?.item.derivation).toMatchObject({ compactionId: id });
    expect(r.state(B).compactions[0]).toMatchObject({ id, outcome: 'committed', checkpointItems: ['3'] });
    expect(r.of('record').find((e) => e.type === 'context/map_segment_accepted')?.summary).toMatch(/ignored/);
  });

  it('legacy versions 1 and 2 and an unversioned split buffer are staged as such; a discarded staging ends the bracket as failed', () => {
    const l = start({ split: { buffer: '', cursor: null, continuity: '', window: 100, buffer_tokens: 0 } });
    l.item(B, U(1, 'a'));
    l.ctx(B, { field: 'split_buffer_append', appended: 'chunk 1', cursor: 2, continuity: 'c', buffer_tokens: 2 });
    l.ctx(B, { field: 'split', value: null });
    l.ctx(B, {
      field: 'map_reduce',
      value: mr(1, [{ ordinal: 0, slices: [{ item_id: 1, start_byte: 0, end_byte: 1 }], covered_ranges: [], summary: 'old' }]),
    });
    l.ctx(B, { field: 'map_reduce', value: mr(2, [seg(0, [1], null)]) });
    l.ctx(B, { field: 'map_reduce', value: null });
    const r = importCosh(l.lines);
    expect(r.of('mapreduce/staging').map((e) => e.version)).toEqual([null, 1, 2]);
    expect(r.of('compaction/start').map((e) => e.strategy)).toEqual(['split', 'mapreduce']);
    expect(r.of('compaction/end').map((e) => e.outcome)).toEqual(['failed', 'failed']);
    expect(r.of('mapreduce/map').map((e) => [e.ordinal, e.summary])).toEqual([
      [0, [{ type: 'text', text: 'chunk 1' }]],
      [0, [{ type: 'text', text: 'old' }]],
    ]);
  });

  it('an unknown staging version is kept as a record and reported', () => {
    const l = start();
    l.ctx(B, { field: 'map_reduce', value: mr(9, []) });
    const r = importCosh(l.lines);
    expect(r.rules()).toContain('COSH_STAGING_VERSION');
    expect(r.of('mapreduce/staging')).toEqual([]);
  });
});

describe('cosh plan and branches', () => {
  /** A root with two user turns and plans bound after items 2 and 4. */
  function twoTurns(): { l: Log; head: number } {
    const l = start({ todo: plan(['first', 'InProgress']), todo_after_item_id: 0 });
    l.message(B, 'm1', [1]);
    l.message(B, 'm2', [2]);
    l.item(B, U(1, 'one'));
    l.item(B, A(2, 'two', true));
    l.ctx(B, { field: 'todo', value: plan(['first', 'Completed'], ['second', 'Pending']), after_item_id: 2 });
    l.message(B, 'm3', [3]);
    l.message(B, 'm4', [4]);
    l.item(B, U(3, 'three'));
    l.item(B, A(4, 'four', true));
    const head = l.ctx(B, { field: 'todo', value: plan(['first', 'Completed'], ['second', 'Completed']), after_item_id: 4 });
    return { l, head };
  }

  it('each plan event is a todo bound to its item; the plan is at the tail of the views after it', () => {
    const { l } = twoTurns();
    const r = importCosh(l.lines);
    expect(r.of('todo').map((e) => [e.todos.map((t) => t.status).join(','), e.after])).toEqual([
      ['InProgress', null],
      ['Completed,Pending', '2'],
      ['Completed,Completed', '4'],
    ]);
    expect(r.view(B, 1).todo?.todos.map((t) => t.content)).toEqual(['first', 'second']);
  });

  it('a fork by message keeps the items through it and resolves the plan bound there; the child continues with its own ids', () => {
    const { l, head } = twoTurns();
    const F = 'child';
    l.ev(F, {
      type: 'fork',
      parent: { branch_id: B, event_id: head, selection: { kind: 'through_message', message_id: 'm2' } },
      metadata: {
        session_id: F,
        title: 'try',
        title_generated: false,
        created_at: 1,
        cwd: '/w',
        provider: 'p',
        model: 'm2',
        reasoning: null,
      },
    });
    l.item(F, U(5, 'other'));
    l.item(F, A(6, 'x'));
    const r = importCosh(l.lines);
    const fork = r.of('fork')[0];
    expect(fork).toMatchObject({ branch: F, parent: { branch: B }, label: 'try' });
    expect(r.events[fork?.parent.seq ?? -1]).toMatchObject({ kind: 'todo', branch: B });
    const v = r.view(F, 2);
    expect(v.items.map((i) => i.id)).toEqual(['1', '2', '5']);
    expect(v.todo).toMatchObject({
      todos: [
        { content: 'first', status: 'Completed' },
        { content: 'second', status: 'Pending' },
      ],
      after: '2',
    });
    expect(v.request.route.model).toBe('m2');
    expect(r.of('drop').find((e) => e.branch === F)).toMatchObject({ items: ['3', '4'], reason: 'other' });
    expect(findings(r)).toEqual([]);
  });

  it('a revert goes back before a message; a rollback restores the exact abandoned head, plan included', () => {
    const { l, head } = twoTurns();
    l.ev(B, {
      type: 'revert',
      target: { branch_id: B, event_id: head, selection: { kind: 'before_message', message_id: 'm3' } },
      undo_label: 'v1',
      prompt_preview: 'three',
    });
    l.item(B, U(5, 'instead'));
    l.item(B, A(6, 'ok'));
    const revertEnd = l.next - 1;
    l.ev(B, { type: 'rollback', target: at(B, head), undo_label: 'v1' });
    l.item(B, U(5, 'again'));
    l.item(B, A(6, 'fine'));
    const r = importCosh(l.lines);
    const revert = r.of('revert')[0];
    expect(revert).toMatchObject({ label: 'v1: three' });
    const rb = r.of('rollback')[0];
    expect(rb?.target.seq).toBe(revert?.target.seq);
    // The history at the end of the reverted stretch (abandoned later by the rollback).
    const lastOfRevert = Math.max(
      ...r.events.filter((e) => e.line === l.lines.findIndex((x) => x.event_id === revertEnd) + 1).map((e) => e.seq),
    );
    const reverted = r.view(B, 2, lastOfRevert);
    expect(reverted.items.map((i) => i.id)).toEqual(['1', '2', '5']);
    expect(reverted.todo?.todos.map((t) => t.status)).toEqual(['Completed', 'Pending']);
    const after = r.view(B, 2);
    expect(after.items.map((i) => i.id)).toEqual(['1', '2', '3', '4', '5~2']);
    expect(after.todo?.todos.map((t) => t.status)).toEqual(['Completed', 'Completed']);
    expect(findings(r)).toEqual([]);
  });

  it('a reference to an older event of a branch is rebuilt by replaying the log up to it', () => {
    const l = start();
    l.item(B, U(1, 'a'));
    const old = l.item(B, A(2, 'b'));
    l.item(B, U(3, 'c'));
    l.item(B, A(4, 'd'));
    l.ev('kid', {
      type: 'fork',
      parent: at(B, old),
      metadata: {
        session_id: 'kid',
        title: 'k',
        title_generated: false,
        created_at: 1,
        cwd: '/w',
        provider: null,
        model: null,
        reasoning: null,
      },
    });
    l.item('kid', U(5, 'e'));
    l.item('kid', A(6, 'f'));
    const r = importCosh(l.lines);
    expect(r.views('kid').at(-1)).toEqual(['1', '2', '5']);
    expect(findings(r)).toEqual([]);
  });
});

describe('cosh bad input', () => {
  it('non-monotonic ids, missing branches, bad references, other versions: reported, kept, replay goes on', () => {
    const l = start();
    l.message(B, 'm1', [1]);
    l.item(B, U(1, 'a'));
    l.lines.push({ schema_version: 1, event_id: 2, branch_id: B, delta: { type: 'context', change: { field: 'next_id', value: 3 } } });
    l.ev('ghost', { type: 'tombstone' });
    l.ev('kid', {
      type: 'fork',
      parent: at(B, 999),
      metadata: { session_id: 'kid', title: 'k', title_generated: false, created_at: 1, cwd: '/w' },
    });
    l.ev(B, { type: 'revert', target: at('other', 1), undo_label: 'v1', prompt_preview: '' });
    l.ev(B, {
      type: 'revert',
      target: { branch_id: B, event_id: 4, selection: { kind: 'before_message', message_id: 'nope' } },
      undo_label: 'v1',
    });
    l.lines.push({ schema_version: 2, event_id: l.next++, branch_id: B, delta: { type: 'tombstone' } });
    l.ev(B, { type: 'genesis', metadata: { session_id: B, title: 'again', title_generated: false, created_at: 1, cwd: '/w' } });
    l.item(B, A(2, 'b'));
    const r = importCosh(l.lines);
    expect(r.rules()).toEqual(expect.arrayContaining(['COSH_NON_MONOTONIC', 'COSH_BAD_REF', 'COSH_VERSION']));
    expect(
      r.diagnostics.filter((d) => d.rule === 'COSH_BAD_REF').map((d) => d.message.replace(/^Line \d+: /, '').slice(0, 40)),
    ).toHaveLength(5);
    expect(r.views(B)).toEqual([['1']]);
    expect(new Set(r.events.map((e) => e.line)).size).toBe(l.lines.length);
  });

  it('references to the event itself or a later one (a cycle) resolve to nothing and are reported', () => {
    const l = start();
    l.item(B, U(1, 'a'));
    l.ev(B, { type: 'revert', target: at(B, l.next), undo_label: 'v1', prompt_preview: '' });
    l.ev('kid', {
      type: 'fork',
      parent: at(B, l.next + 5),
      metadata: { session_id: 'kid', title: 'k', title_generated: false, created_at: 1, cwd: '/w' },
    });
    l.item(B, A(2, 'b'));
    const r = importCosh(l.lines);
    expect(r.diagnostics.filter((d) => d.rule === 'COSH_BAD_REF').map((d) => /MissingReference/.test(d.message))).toEqual([true, true]);
    expect(r.of('revert')).toEqual([]);
    expect(r.of('fork')).toEqual([]);
    expect(r.views(B)).toEqual([['1']]);
    // Every canonical reference points backwards.
    for (const e of r.events)
      if (e.kind === 'fork' || e.kind === 'revert' || e.kind === 'rollback')
        expect((e.kind === 'fork' ? e.parent.seq : e.target.seq) < e.seq).toBe(true);
  });

  it('unknown kinds are kept and counted per kind; corrupt, legacy and derived lines are kept too', () => {
    const l = start();
    l.ev(B, { type: 'warp' });
    l.ev(B, { type: 'warp' });
    l.ctx(B, { field: 'zap' });
    l.lines.push({ hello: 'world' });
    l.lines.push({ view_page: {} });
    l.lines.push({ Item: { User: { id: 1, original: 'x' } } });
    const r = importCosh(l.lines);
    const u = r.diagnostics.filter((d) => d.rule === 'UNKNOWN_RECORDS');
    expect(u.map((d) => d.message.split(',')[0])).toEqual(['2 records with delta "warp"', '1 record with context field "zap"']);
    expect(u[0]?.seqs).toHaveLength(2);
    expect(r.rules()).toEqual(expect.arrayContaining(['COSH_BAD_RECORD', 'COSH_LEGACY']));
    expect(r.of('record').find((e) => e.type === 'view_page')?.branch).toBe(B);
    expect(new Set(r.events.map((e) => e.line)).size).toBe(l.lines.length);
  });
});
