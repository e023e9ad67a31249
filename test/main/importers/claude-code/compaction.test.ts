import { describe, expect, it } from 'vitest';
import {
  assistant,
  boundary,
  errors,
  importFiles,
  importValues,
  readFixture,
  summary,
  text,
  textOf,
  toolResult,
  toolUse,
  user,
} from './helpers';

/** A short conversation, then a compaction and one more turn. */
function compacted(logical: string | undefined, meta: Record<string, unknown> = { trigger: 'auto', preTokens: 170251 }) {
  return [
    user('u1', null, 'Fix the bug.'),
    assistant('a1', 'u1', 'msg_1', [toolUse('t1', 'Read')], { input_tokens: 3, cache_read_input_tokens: 100, output_tokens: 9 }),
    toolResult('r1', 'a1', 't1', 'file text'),
    assistant('a2', 'r1', 'msg_2', [text('Fixed.')], { input_tokens: 3, cache_read_input_tokens: 150, output_tokens: 9 }),
    user('u2', 'a2', 'Now the docs.'),
    boundary('cb', logical, meta),
    summary('cs', 'cb'),
    assistant('a3', 'cs', 'msg_3', [text('Updating the docs.')], { input_tokens: 3, cache_creation_input_tokens: 400, output_tokens: 9 }),
  ];
}

describe('claude-code: compact_boundary + isCompactSummary', () => {
  it('brackets the compaction: start {trigger, preTokens, source}, checkpoint covering every live item, end committed', () => {
    const r = importValues(compacted('u2', { trigger: 'auto', preTokens: 170251, postTokens: 9000 }));
    const start = r.of('compaction/start')[0];
    expect(start).toMatchObject({ id: 'cb', trigger: 'auto', preTokens: 170251, source: ['u1', 'msg_1', 'r1', 'msg_2', 'u2'] });
    const cp = r.of('item').find((e) => e.item.id === 'cs');
    expect(cp?.item).toMatchObject({
      role: 'user',
      origin: 'isCompactSummary',
      derivation: { kind: 'checkpoint', compactionId: 'cb', covers: ['u1', 'msg_1', 'r1', 'msg_2', 'u2'], part: 'summary' },
    });
    expect(cp?.op).toEqual({ op: 'append' });
    // Provenance: the start and every covered item's event.
    expect(cp?.sources?.[0]).toBe(start?.seq);
    expect(cp?.sources).toHaveLength(6);
    expect(r.of('compaction/end')[0]).toMatchObject({ id: 'cb', outcome: 'committed', postTokens: 9000 });
    const st = r.replay();
    expect(st.compactions).toHaveLength(1);
    expect(st.compactions[0]).toMatchObject({
      id: 'cb',
      trigger: 'auto',
      preTokens: 170251,
      outcome: 'committed',
      postTokens: 9000,
      checkpointItems: ['cs'],
    });
    expect(errors(r.diagnostics)).toEqual([]);
    expect(r.diagnostics).toEqual([]);
  });

  it('the view after the boundary starts with the summary; the items before it are summarised', () => {
    const r = importValues(compacted('u2'));
    const before = r.view(1);
    const after = r.view(2);
    expect(before.items.map((i) => i.id)).toEqual(['u1', 'msg_1', 'r1']);
    expect(after.items.map((i) => i.id)).toEqual(['cs']);
    expect(after.items[0]?.kind).toBe('checkpoint');
    expect(textOf(after.items[0]?.blocks ?? null)).toMatch(/^This session is being continued/);
    const st = r.replay();
    const fates = st.items.filter((i) => i.id !== 'cs').map((i) => i.fates.at(-1)?.fate);
    for (const f of fates.slice(0, 5)) expect(f).toEqual({ fate: 'summarised', compactionId: 'cb', by: 'cs' });
    // The response of the last request before the boundary is written before the compaction starts.
    const startSeq = r.of('compaction/start')[0]?.seq ?? -1;
    expect(
      r
        .of('response')
        .filter((e) => e.seq < startSeq)
        .map((e) => e.request),
    ).toEqual(['msg_1', 'msg_2']);
  });

  it('without logicalParentUuid, the boundary continues the branch of the record before it (no diagnostic)', () => {
    const r = importValues(compacted(undefined));
    expect(r.branches()).toEqual(['main']);
    expect(r.view(2).items.map((i) => i.id)).toEqual(['cs']);
    expect(r.diagnostics).toEqual([]);
  });

  it('a logicalParentUuid that is in no file falls back to file order and is reported', () => {
    const r = importValues(compacted('459e838f-not-in-the-file'));
    expect(r.branches()).toEqual(['main']);
    expect(r.view(2).items.map((i) => i.id)).toEqual(['cs']);
    const d = r.diag('CC_LOGICAL_PARENT_MISSING');
    expect(d).toMatchObject({ severity: 'warning', line: 6 });
    expect(d?.message).toMatch(/logicalParentUuid is in no file of the session/);
    expect(errors(r.diagnostics)).toEqual([]);
  });

  it('a logicalParentUuid on an earlier record continues from it (a compaction after a rewind)', () => {
    const lines = compacted('a2');
    const r = importValues(lines);
    // a2 is not the head (u2 is), and a boundary is not a tool result: the compaction forks at a2.
    expect(r.branches()).toEqual(['main', 'rewind-1']);
    expect(r.of('compaction/start')[0]).toMatchObject({ branch: 'rewind-1', source: ['u1', 'msg_1', 'r1', 'msg_2'] });
  });

  it('preserved messages come after the summary: [summary, preserved…, following] (daaain fixture)', () => {
    const r = importValues(readFixture('dag_compact_after_rewind_preserved.jsonl'));
    const st = r.replay('rewind-1');
    expect(st.compactions[0]).toMatchObject({ id: 'cb', trigger: 'auto', preTokens: 150000, outcome: 'committed' });
    const last = r.view(2, 'rewind-1');
    expect(last.request.id).toBe('msg_p1a');
    expect(last.items.map((i) => i.id)).toEqual(['cs', 'msg_b2a', 'b2u2', 'msg_b2a2', 'p1u']);
    const cs = r.of('item').find((e) => e.item.id === 'cs');
    expect(cs?.op).toEqual({ op: 'insert', before: 'msg_b2a' });
    expect(cs?.item.derivation).toMatchObject({ covers: ['u1', 'msg_a1', 'b2u'] });
    // b2a2 is a preserved message written after the summary: an item, not a new request.
    expect(st.requests.map((q) => q.id)).toEqual(['msg_a1', 'msg_b2a', 'msg_p1a']);
    // Its logical parent is written later in the file: reported as information only.
    expect(r.rules()).toEqual(['CC_LOGICAL_PARENT_LATER']);
  });

  it('preservedSegment alone (head…tail walk) keeps the segment after the summary', () => {
    const lines = [
      user('u1', null, 'one'),
      assistant('a1', 'u1', 'msg_1', [text('1')]),
      user('u2', 'a1', 'two'),
      assistant('a2', 'u2', 'msg_2', [text('2')]),
      boundary('cb', 'a2', { trigger: 'manual', preTokens: 500, preservedSegment: { headUuid: 'u2', anchorUuid: 'cs', tailUuid: 'a2' } }),
      summary('cs', 'cb'),
      user('u3', 'cs', 'three'),
      assistant('a3', 'u3', 'msg_3', [text('3')]),
    ];
    const r = importValues(lines);
    expect(r.of('compaction/start')[0]).toMatchObject({ trigger: 'manual', source: ['u1', 'msg_1'] });
    expect(r.view(2).items.map((i) => i.id)).toEqual(['cs', 'u2', 'msg_2', 'u3']);
  });

  it('a boundary with no summary line drops what it covers and ends as a fallback, with a warning', () => {
    const lines = compacted('u2');
    lines.splice(6, 1);
    (lines[6] as Record<string, unknown>).parentUuid = 'cb';
    const r = importValues(lines);
    expect(r.of('drop')[0]).toMatchObject({ reason: 'compaction', compactionId: 'cb', items: ['u1', 'msg_1', 'r1', 'msg_2', 'u2'] });
    expect(r.of('compaction/end')[0]).toMatchObject({ outcome: 'fallback' });
    expect(r.view(2).items).toEqual([]);
    expect(r.diag('CC_COMPACT_NO_SUMMARY')?.severity).toBe('warning');
  });

  it('isMeta lines (re-read files after a compaction, reminders) are part of the view', () => {
    const lines = compacted('u2');
    lines.splice(7, 0, user('m1', 'cs', '<system-reminder>Called the Read tool… (file contents)</system-reminder>', { isMeta: true }));
    (lines[8] as Record<string, unknown>).parentUuid = 'm1';
    const r = importValues(lines);
    const after = r.view(2);
    expect(after.items.map((i) => [i.id, i.meta])).toEqual([
      ['cs', false],
      ['m1', true],
    ]);
    expect(r.of('item').find((e) => e.item.id === 'm1')?.item).toMatchObject({ meta: true, origin: 'isMeta' });
  });
});

describe('claude-code: microcompact_boundary', () => {
  // Hand-written: the record's shape comes from third-party ports of the TS source.
  const lines = [
    user('u1', null, 'Read both files.'),
    assistant('a1', 'u1', 'msg_1', [toolUse('toolu_A', 'Read'), toolUse('toolu_B', 'Read')]),
    toolResult('rA', 'a1', 'toolu_A', 'AAAA'.repeat(100)),
    toolResult('rB', 'rA', 'toolu_B', 'BBBB'.repeat(100)),
    assistant('a2', 'rB', 'msg_2', [text('Both read.')]),
    {
      parentUuid: 'a2',
      isSidechain: false,
      type: 'system',
      subtype: 'microcompact_boundary',
      content: 'Context microcompacted',
      uuid: 'mc1',
      timestamp: '2026-02-12T11:00:00.000Z',
      level: 'info',
      microcompactMetadata: {
        trigger: 'auto',
        preTokens: 90000,
        tokensSaved: 400,
        compactedToolIds: ['toolu_A'],
        clearedAttachmentUUIDs: [],
      },
    },
    user('u2', 'mc1', 'Now summarise.'),
    assistant('a3', 'u2', 'msg_3', [text('Summary.')]),
  ];

  it('masks the cleared tool results from later views (by the harness, placeholder not recorded)', () => {
    const r = importValues(lines);
    expect(r.of('mask')).toEqual([expect.objectContaining({ items: ['rA'], masked: true, by: 'harness' })]);
    expect(r.of('mask')[0]?.reference).toBeUndefined();
    expect(r.view(1).items.find((i) => i.id === 'rA')?.rendition).toBe('verbatim');
    const later = r.view(2);
    expect(later.items.map((i) => i.id)).toEqual(['u1', 'msg_1', 'rA', 'rB', 'msg_2', 'u2']);
    expect(later.items.find((i) => i.id === 'rA')).toMatchObject({ rendition: 'masked', blocks: null });
    expect(later.items.find((i) => i.id === 'rB')?.rendition).toBe('verbatim');
    expect(later.unknowns).toContain('masked item rA: the text of its reference is not recorded');
    expect(r.branches()).toEqual(['main']);
    expect(r.diagnostics).toEqual([]);
  });

  it('reports a microcompact whose tool ids are not in the view', () => {
    const other = lines.map((l) => (l.uuid === 'mc1' ? { ...l, microcompactMetadata: { compactedToolIds: ['toolu_Z'] } } : l));
    const r = importValues(other);
    expect(r.of('mask')).toEqual([]);
    expect(r.diag('CC_MICROCOMPACT_UNMATCHED')?.severity).toBe('info');
  });
});

describe('claude-code: the summarizer call (subagents/agent-acompact-*.jsonl)', () => {
  const main = compacted(undefined);
  const acompact = [
    {
      ...user('m1', 'r1', '<system-reminder>PostToolUse hook context</system-reminder>', { isMeta: true }),
      isSidechain: true,
      agentId: 'acompact-e1f845',
    },
    {
      ...user('m2', 'u2', 'Your task is to create a detailed summary of the conversation so far…'),
      isSidechain: true,
      agentId: 'acompact-e1f845',
    },
    {
      ...assistant('s1', 'm2', 'msg_sum', [text('<analysis>…</analysis><summary>…</summary>')], {
        input_tokens: 3,
        cache_creation_input_tokens: 8681,
        cache_read_input_tokens: 164830,
        output_tokens: 4000,
      }),
      isSidechain: true,
      agentId: 'acompact-e1f845',
    },
  ];
  const files = [
    { path: '/p/s1.jsonl', values: main },
    { path: '/p/s1/subagents/agent-acompact-e1f845.jsonl', values: acompact },
  ];

  it('is a branch forked at the compaction start, whose request has purpose compaction and the compaction id', () => {
    const r = importFiles(files);
    expect(r.branches()).toEqual(['main', 'agent-acompact-e1f845']);
    const start = r.of('compaction/start')[0];
    expect(r.of('fork')[0]).toMatchObject({
      branch: 'agent-acompact-e1f845',
      parent: { seq: start?.seq },
      label: 'summarizer of compaction cb',
    });
    const st = r.replay('agent-acompact-e1f845');
    const q = st.requests.at(-1);
    expect(q).toMatchObject({ id: 'msg_sum', purpose: 'compaction', compactionId: 'cb' });
    expect(q?.usage).toEqual({ input: 3, cacheWrite: 8681, cacheRead: 164830, output: 4000 });
    expect(st.compactions[0]?.requestIds).toEqual(['msg_sum']);
    // The main file stays the default branch although the summarizer was read last.
    expect(r.defaultBranch).toBe('main');
  });

  it('its view is the pre-compact conversation, the reminder where the main agent had it, and the summary prompt', () => {
    const r = importFiles(files);
    const st = r.replay('agent-acompact-e1f845');
    const v = r.view(st.requests.length - 1, 'agent-acompact-e1f845');
    expect(v.items.map((i) => i.id)).toEqual(['u1', 'msg_1', 'r1', 'm1', 'msg_2', 'u2', 'm2']);
    expect(textOf(v.items.at(-1)?.blocks ?? null)).toMatch(/^Your task is to create a detailed summary/);
    // m1 hangs off main record r1, after which the main conversation went on: the main log lacks it.
    expect(r.diag('CC_UNLOGGED_CONTEXT')).toMatchObject({ severity: 'warning', line: 1 });
    expect(r.diag('CC_UNLOGGED_CONTEXT')?.message).toMatch(/after its line 3/);
  });

  it('a summarizer with no compaction to link is a branch of its own, reported', () => {
    const r = importFiles([
      { path: '/p/s1.jsonl', values: main.slice(0, 5) },
      files[1] as { path: string; values: Record<string, unknown>[] },
    ]);
    expect(r.diag('CC_SUMMARIZER_LINK')?.severity).toBe('info');
    expect(r.replay('agent-acompact-e1f845').requests.at(-1)).toMatchObject({ purpose: 'compaction' });
  });
});
