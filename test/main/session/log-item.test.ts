import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CompactLog } from '../../../src/main/session/compact-log';
import { loadSession } from '../../../src/main/session/load';
import { LogItem } from '../../../src/main/session/log-item';
import type { LogEvent } from '../../../src/shared/model/event';
import { itemAnswers, itemCalls } from '../../../src/shared/model/item';
import { replay } from '../../../src/shared/replay/fold';

const dir = mkdtempSync(join(tmpdir(), 'palimpsest-log-item-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LINES: Record<string, unknown>[] = [
  { kind: 'session', format: 'palimpsest', version: 1, id: 'shallow' },
  { kind: 'item', at: '2026-11-30T10:00:01.000Z', item: { id: 'u1', role: 'user', blocks: [{ type: 'text', text: 'Bonjour 日本語' }] } },
  { kind: 'request', id: 'r1' },
  {
    kind: 'item',
    item: {
      id: 'a1',
      role: 'assistant',
      blocks: [
        { type: 'text', text: 'Two reads.' },
        { type: 'tool_call', id: 'c1', name: 'read', input: '{}' },
        { type: 'tool_call', id: 'c2', name: 'read', input: '{}' },
      ],
    },
  },
  {
    kind: 'item',
    branch: 'side',
    item: { id: 't1', role: 'tool', blocks: [{ type: 'tool_result', callId: 'c1', content: [{ type: 'text', text: 'one' }] }] },
  },
  {
    kind: 'item',
    item: { id: 't2', role: 'tool', blocks: [{ type: 'tool_result', callId: 'c2', content: [{ type: 'text', text: 'two' }] }] },
  },
  // Not plain: meta, an insert, an extension, a reused id.
  { kind: 'item', item: { id: 'm1', role: 'user', meta: true, blocks: [{ type: 'text', text: 'injected' }] } },
  { kind: 'item', op: { op: 'insert', before: 'm1' }, item: { id: 'i1', role: 'user', blocks: [{ type: 'text', text: 'inserted' }] } },
  { kind: 'item', op: { op: 'extend' }, item: { id: 'a1', role: 'assistant', blocks: [{ type: 'text', text: ' More.' }] } },
  { kind: 'item', item: { id: 'u1', role: 'user', blocks: [{ type: 'text', text: 'Same id again' }] } },
  { kind: 'request', id: 'r2' },
  // Requests and responses: plain ones, in several shapes, and ones replay must read whole.
  {
    kind: 'response',
    request: 'r1',
    at: '2026-11-30T10:00:02.000Z',
    finish: { raw: 'tool_use', reason: 'tool_calls' },
    usage: { input: 3, output: 4, cacheRead: 5, cacheWrite: 6 },
  },
  { kind: 'response', request: 'r2', usage: { cacheRead: 7, input: 1 }, finish: { reason: 'stop', raw: 'end_turn' } },
  { kind: 'response', request: 'r2' },
  { kind: 'response', request: 'r2', finish: { raw: 'tool_use', reason: 'tool_calls' } },
  { kind: 'response', request: 'r2', error: { message: 'overloaded' }, finish: { raw: 'error', reason: 'error' } },
  { kind: 'request', id: 'r3', purpose: 'agent', at: '2026-11-30T10:00:03.000Z' },
  { kind: 'request', id: 'r4', route: { model: 'm' } },
  { kind: 'request', id: 'r5', purpose: 'compaction', compactionId: 'c1' },
  { kind: 'request', id: 'r6', branch: 'side' },
];

async function compactSession(): Promise<CompactLog> {
  const path = join(dir, 'shallow.jsonl');
  writeFileSync(path, LINES.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const s = await loadSession(path, { compactLog: true });
  await s.dispose();
  expect(s.events).toBeInstanceOf(CompactLog);
  return s.events as CompactLog;
}

/** Every field of an event, its item's read out (a LogItem keeps its blocks behind a getter). */
function fields(e: LogEvent | undefined): unknown {
  if (!e) return e;
  const base = { kind: e.kind, seq: e.seq, at: e.at, branch: e.branch };
  // Usage and finish as JSON: their key order reaches the CLI's output.
  if (e.kind === 'response')
    return { ...base, request: e.request, finish: JSON.stringify(e.finish), usage: JSON.stringify(e.usage), error: e.error };
  if (e.kind === 'request') return { ...base, id: e.id, purpose: e.purpose, compactionId: e.compactionId, route: e.route, input: e.input };
  if (e.kind !== 'item') return { ...base, e };
  const it = e.item;
  return {
    ...base,
    op: e.op,
    sources: e.sources,
    item: { id: it.id, role: it.role, blocks: it.blocks, meta: it.meta, derivation: it.derivation, origin: it.origin },
  };
}

describe('shallow items of a compact log', () => {
  it('shallowAt answers every field at() does, for plain and other events alike', async () => {
    const log = await compactSession();
    for (let seq = 0; seq < log.length; seq++) expect(fields(log.shallowAt(seq)), `seq ${seq}`).toEqual(fields(log.at(seq)));
    expect(log.shallowAt(-1)).toBeUndefined();
    expect(log.shallowAt(log.length)).toBeUndefined();
  });

  it('gives plain requests and responses from their heads, and the others whole', async () => {
    const log = await compactSession();
    const heads: string[] = [];
    for (let seq = 0; seq < log.length; seq++) {
      const e = log.shallowAt(seq);
      if (e && e.constructor !== Object) heads.push(`${e.kind}@${seq}`);
    }
    expect(heads).toEqual([
      'item@1',
      'request@2',
      'item@3',
      'item@4',
      'item@5',
      'item@9',
      'request@10',
      'response@11',
      'response@12',
      'response@13',
      'response@14',
      'request@16',
      'request@19',
    ]);
    // One frozen finish object per distinct finish, shared by the responses that have it.
    const [a, b] = [log.shallowAt(11), log.shallowAt(14)];
    if (a?.kind !== 'response' || b?.kind !== 'response') throw new Error('fixture changed');
    expect(a.finish).toBe(b.finish);
    expect(Object.isFrozen(a.finish)).toBe(true);
  });

  it('gives plain appended items as LogItems, and every other item event whole', async () => {
    const log = await compactSession();
    const lazy = [];
    for (let seq = 0; seq < log.length; seq++) {
      const e = log.shallowAt(seq);
      if (e?.kind === 'item' && e.item instanceof LogItem) lazy.push(e.item.id);
    }
    expect(lazy).toEqual(['u1', 'a1', 't1', 't2', 'u1']);
  });

  it('a LogItem knows its call ids without its blocks, leaves its blocks out of a spread and into JSON', async () => {
    const log = await compactSession();
    const a1 = log.shallowAt(3);
    const t1 = log.shallowAt(4);
    if (a1?.kind !== 'item' || t1?.kind !== 'item') throw new Error('fixture changed');
    expect(a1.item).toBeInstanceOf(LogItem);
    expect(itemCalls(a1.item)).toEqual(['c1', 'c2']);
    expect(itemAnswers(a1.item)).toEqual([]);
    expect(itemAnswers(t1.item)).toEqual(['c1']);
    expect(Object.keys({ ...a1.item })).toEqual(['id', 'role']);
    expect(JSON.parse(JSON.stringify(a1.item))).toEqual({
      id: 'a1',
      role: 'assistant',
      blocks: (log.at(3) as LogEvent & { kind: 'item' }).item.blocks,
    });
  });

  it('replay over it keeps LogItems, not content, for plain items, and names a reused id without losing its blocks', async () => {
    const log = await compactSession();
    const state = replay(log);
    const lazy = state.items.filter((r) => r.item instanceof LogItem).map((r) => r.id);
    expect(lazy).toEqual(['u1', 'a1', 't2']);
    const reused = state.itemById.get('u1#2');
    expect(reused?.item.blocks).toEqual([{ type: 'text', text: 'Same id again' }]);
    expect(reused?.item.id).toBe('u1#2');
  });
});
