import { describe, expect, it } from 'vitest';
import { parseEvent, parseItem, parseReference, parseStaging, parseTodo } from '../../../../src/main/importers/cosh/parse';
import { modelView, applySelection, newBranch, newContext, type MItem } from '../../../../src/main/importers/cosh/state';

describe('cosh serde shapes', () => {
  it('reads ContextItem externally tagged, every variant', () => {
    expect(parseItem({ User: { id: 1, original: 'hi' } })).toEqual({ kind: 'User', id: 1, text: 'hi' });
    expect(
      parseItem({ ToolCall: { id: 2, call_id: 'c', name: 'n', arguments: '{}', thinking_blocks: [{ thinking: 't', signature: 's' }] } }),
    ).toEqual({ kind: 'ToolCall', id: 2, text: '{}', callId: 'c', name: 'n', thinking: [{ thinking: 't' }] });
    expect(parseItem({ ToolResult: { id: 3, call_id: 'c', content: 'r', useless: true } })).toMatchObject({
      kind: 'ToolResult',
      useless: true,
    });
    expect(parseItem({ Compaction: { id: 4, summary: 's' } })).toEqual({ kind: 'Compaction', id: 4, text: 's', covered: [] });
    expect(parseItem({ Compaction: { id: 4, summary: 's', covered_ranges: [{ start_id: 1, end_id: 3 }] } }).covered).toEqual([
      { start: 1, end: 3 },
    ]);
    for (const k of ['Closure', 'Error', 'UserCommand'])
      expect(parseItem({ [k]: { id: 5, content: 'c' } })).toEqual({ kind: k, id: 5, text: 'c' });
    expect(parseItem({ Assistant: { id: 6, original: 'a', closable: true } })).toMatchObject({ closable: true });
  });

  it('refuses shapes serde would refuse, naming unknown tags', () => {
    const bad = (line: Record<string, unknown>) => parseEvent(line);
    const env = (delta: unknown) => ({ schema_version: 1, event_id: 1, branch_id: 'b', delta });
    expect(bad(env({ type: 'context', change: { field: 'item_upsert', item: { User: { id: 1 } } } }))).toMatchObject({
      ok: false,
      unknown: null,
      problem: 'User.original is not a string',
    });
    expect(bad(env({ type: 'context', change: { field: 'item_upsert', item: { Image: { id: 1 } } } }))).toMatchObject({
      ok: false,
      unknown: 'context item "Image"',
    });
    expect(
      bad(env({ type: 'context', change: { field: 'item_upsert', item: { User: { id: 1, original: 'a' }, Extra: {} } } })),
    ).toMatchObject({ ok: false, unknown: null });
    expect(bad(env({ type: 'warp' }))).toMatchObject({ ok: false, unknown: 'delta "warp"' });
    expect(bad(env({ type: 'context', change: { field: 'zap' } }))).toMatchObject({ ok: false, unknown: 'context field "zap"' });
    expect(bad(env({ type: 'metadata', change: { field: 'color' } }))).toMatchObject({ ok: false, unknown: 'metadata field "color"' });
    expect(bad({ schema_version: 1, event_id: -1, branch_id: 'b', delta: { type: 'tombstone' } })).toMatchObject({
      ok: false,
      problem: 'event_id is not an unsigned integer',
    });
    expect(parseEvent(env({ type: 'tombstone' }))).toMatchObject({
      ok: true,
      event: { schemaVersion: 1, eventId: 1, branch: 'b', delta: { type: 'tombstone' } },
    });
  });

  it('reads references with adjacently tagged selections', () => {
    expect(parseReference({ branch_id: 'b', event_id: 4, selection: { kind: 'at_event' } }, 't')).toEqual({
      branch: 'b',
      event: 4,
      selection: { kind: 'at_event' },
    });
    expect(parseReference({ branch_id: 'b', event_id: 4, selection: { kind: 'before_message', message_id: 'm' } }, 't').selection).toEqual({
      kind: 'before_message',
      messageId: 'm',
    });
    expect(
      parseReference(
        { branch_id: 'b', event_id: 4, selection: { kind: 'context_view', message_id: { message_id: 'm', group_id: 7, inclusive: true } } },
        't',
      ).selection,
    ).toEqual({ kind: 'context_view', messageId: 'm', groupId: 7, inclusive: true });
    expect(() => parseReference({ branch_id: 'b', event_id: 4, selection: { kind: 'sideways' } }, 't')).toThrow();
  });

  it('reads a plan lossily: an incompatible shape is no plan', () => {
    expect(
      parseTodo({
        groups: [{ title: 'G', items: [{ id: 't', description: 'd', status: 'Pending', depends_on: [] }], tests_verified: false }],
      }),
    ).toEqual({ value: [{ title: 'G', items: [{ id: 't', description: 'd', status: 'Pending' }] }], lossy: false });
    expect(parseTodo({ groups: 'x' })).toEqual({ value: null, lossy: true });
    expect(parseTodo(null)).toEqual({ value: null, lossy: false });
  });

  it('reads MapReduce staging: whole items (v3), byte slices (v1), ranges; version defaults to 1', () => {
    const s = parseStaging({
      window: 10,
      source_item_ids: [1, 2, 3],
      source_fingerprints: [
        [1, 9],
        [2, 8],
      ],
      segments: [
        { ordinal: 0, item_ids: [1], summary: 'a' },
        {
          ordinal: 1,
          slices: [
            { item_id: 2, start_byte: 0, end_byte: 5 },
            { item_id: 2, start_byte: 5, end_byte: 9 },
          ],
          summary: null,
        },
        { ordinal: 2, covered_ranges: [{ start_id: 3, end_id: 3 }] },
      ],
    });
    expect(s).toMatchObject({
      version: 1,
      fingerprint: 'xxh64:1=9,2=8',
      segments: [
        { ordinal: 0, itemIds: [1], summary: 'a' },
        { ordinal: 1, itemIds: [2], summary: null },
        { ordinal: 2, itemIds: [3], summary: null },
      ],
    });
    expect(parseStaging(null)).toBeNull();
  });
});

describe('cosh model view (build_messages)', () => {
  const it_ = (coshId: number, kind: MItem['kind'], extra: Partial<MItem> = {}): MItem => ({
    coshId,
    kind,
    canon: String(coshId),
    ...extra,
  });

  it('checkpoints first, raw items in order, leading results skipped, display-only never, masks on results only', () => {
    const c = newContext();
    c.items = [
      it_(1, 'ToolResult'),
      it_(2, 'User'),
      it_(3, 'Error'),
      it_(4, 'ToolResult'),
      it_(5, 'Compaction', { covered: [] }),
      it_(6, 'UserCommand'),
    ];
    c.masked = new Set([4, 2]);
    const v = modelView(c);
    // The checkpoint leads, so the result that opens the raw items is not "leading" (skip_while).
    expect(v.items.map((x) => x.canon)).toEqual(['5', '1', '2', '4']);
    c.items = c.items.filter((x) => x.kind !== 'Compaction');
    expect(modelView(c).items.map((x) => x.canon)).toEqual(['2', '4']);
    expect([...v.masked]).toEqual(['4']);
  });

  it('coverage is the newest checkpoint at or after visible_from that is not hidden', () => {
    const c = newContext();
    c.items = [
      it_(1, 'User'),
      it_(2, 'User'),
      it_(3, 'Compaction', { covered: [{ start: 1, end: 1 }] }),
      it_(4, 'Compaction', { covered: [{ start: 1, end: 3 }] }),
      it_(5, 'User'),
    ];
    expect(modelView(c).items.map((x) => x.canon)).toEqual(['4', '5']);
    c.hidden.add(4);
    expect(modelView(c).items.map((x) => x.canon)).toEqual(['3', '2', '5']);
    c.visibleFrom = 5;
    expect(modelView(c).items.map((x) => x.canon)).toEqual(['5']);
  });

  it('selections cut by message (before/through) or by context group', () => {
    const mk = () => {
      const b = newBranch('b', 1);
      b.context = newContext();
      b.context.items = [it_(1, 'User'), it_(2, 'ToolCall', { callId: 'c' }), it_(3, 'ToolResult', { callId: 'c' }), it_(4, 'User')];
      b.messages = ['m1', 'm2', 'm3'];
      b.ctxIds = new Map([
        ['m1', [1]],
        ['m2', [2, 3]],
        ['m3', [4]],
      ]);
      b.todoPoints = [
        [0, 10],
        [3, 11],
        [4, 12],
      ];
      return b;
    };
    const before = mk();
    expect(applySelection(before, { kind: 'before_message', messageId: 'm2' })).toBeNull();
    expect(before.context?.items.map((x) => x.coshId)).toEqual([1]);
    expect(before.todoPoints).toEqual([[0, 10]]);
    const through = mk();
    applySelection(through, { kind: 'through_message', messageId: 'm2' });
    expect(through.context?.items.map((x) => x.coshId)).toEqual([1, 2, 3]);
    expect(through.messages).toEqual(['m1', 'm2']);
    const view = mk();
    applySelection(view, { kind: 'context_view', messageId: 'm2', groupId: 2, inclusive: true });
    expect(view.context?.items.map((x) => x.coshId)).toEqual([1, 2, 3]);
    expect(applySelection(mk(), { kind: 'context_view', messageId: 'm2', groupId: 3, inclusive: false })).toEqual({
      kind: 'missing-boundary',
      messageId: 'm2',
    });
    expect(applySelection(mk(), { kind: 'before_message', messageId: 'zz' })).toEqual({ kind: 'missing-message', messageId: 'zz' });
  });
});
