import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateSession } from '../../../bench/generate';
import { CompactLog, CompactLogBuilder, RECENT_EVENTS } from '../../../src/main/session/compact-log';
import { loadSession, type LoadOptions } from '../../../src/main/session/load';
import type { EventBody, LogEvent } from '../../../src/shared/model/event';
import { compactOf, expectSameLoads, fixtureSessions, withoutWrittenSeqs } from './same-session';

const dir = mkdtempSync(join(tmpdir(), 'palimpsest-compact-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Loads `path` with the array log and with the compact log and checks that nothing anyone can read
 * differs: the events at every seq, where each came from, the diagnostics, the files, and replay's
 * model view at every request of every branch. Returns the compact session's log (null when the
 * path does not load, identically both ways).
 */
async function expectSameBothWays(path: string, options: LoadOptions = {}): Promise<CompactLog | null> {
  return expectSameLoads(path, { ...options, compactLog: true, threads: 1 }, { ...options, compactLog: false }, (cmp, arr) => {
    expect(Array.isArray(arr.events)).toBe(true);
    expect(cmp.files).toEqual(arr.files);
    return compactOf(cmp);
  });
}

const long = (n: number): string => 'Ünïcödé → 日本語 😀 line\n'.repeat(Math.ceil(n / 24)).slice(0, n);

/**
 * A Palimpsest session by hand, with what the loader must keep as objects beside what it may keep
 * as bytes. `arena` says which: true for the lines the line alone gives (hot kinds, no seq
 * rewritten, no translated reference, no long line elided).
 */
const HAND: readonly { readonly v: Record<string, unknown>; readonly arena: boolean }[] = [
  { v: { kind: 'session', format: 'palimpsest', version: 1, id: 'compact-hand', at: '2026-11-30T10:00:00.000Z' }, arena: false },
  {
    v: {
      kind: 'header',
      system: [{ type: 'text', text: 'You are a tester.' }],
      tools: [{ name: 'read', description: 'Read a file.', inputSchema: { type: 'object' } }],
    },
    arena: false,
  },
  {
    v: {
      kind: 'item',
      at: '2026-11-30T10:00:01.000Z',
      item: { id: 'u1', role: 'user', blocks: [{ type: 'text', text: 'Bonjour — 日本語 😀 é' }] },
    },
    arena: true,
  },
  { v: { kind: 'request', id: 'req_1' }, arena: true },
  {
    v: {
      kind: 'item',
      item: {
        id: 'a1',
        role: 'assistant',
        blocks: [
          { type: 'reasoning', text: 'Read it first.' },
          { type: 'text', text: 'Reading.' },
          { type: 'tool_call', id: 'call_1', name: 'read', input: '{"path":"ä.ts"}' },
        ],
      },
    },
    arena: true,
  },
  {
    v: {
      kind: 'response',
      request: 'req_1',
      finish: { raw: 'tool_use', reason: 'tool_calls' },
      usage: { input: 10, cacheWrite: 700, output: 40 },
    },
    arena: true,
  },
  // Long enough to be elided in memory, on a line longer than ELIDED_LINE_MAX_BYTES: the elided event is kept.
  {
    v: {
      kind: 'item',
      item: { id: 't1', role: 'tool', blocks: [{ type: 'tool_result', callId: 'call_1', content: [{ type: 'text', text: long(2_000) }] }] },
    },
    arena: false,
  },
  { v: { kind: 'record', type: 'hook', summary: 'pre-tool ✓' }, arena: true },
  {
    v: {
      kind: 'item',
      item: {
        id: 't1b',
        role: 'tool',
        blocks: [{ type: 'tool_result', callId: 'call_1', content: [{ type: 'text', text: 'ok — ✓' }], isError: false }],
      },
    },
    arena: true,
  },
  { v: { kind: 'mask', items: ['t1'], by: 'model', reference: [{ type: 'text', text: '[masked]' }] }, arena: false },
  { v: { kind: 'request', id: 'req_2', route: { provider: 'anthropic', model: 'm', window: 200_000 } }, arena: true },
  {
    v: { kind: 'response', request: 'req_2', finish: { raw: 'end_turn', reason: 'stop' }, usage: { input: 20, cacheRead: 700, output: 5 } },
    arena: true,
  },
  { v: { kind: 'compaction/start', id: 'cmp_1', trigger: 'manual', source: ['u1', 'a1', 't1', 't1b'] }, arena: false },
  {
    v: {
      kind: 'request',
      id: 'req_c',
      purpose: 'compaction',
      compactionId: 'cmp_1',
      input: { items: ['u1', 'a1', 't1', 't1b'], instruction: null },
    },
    arena: true,
  },
  {
    v: { kind: 'response', request: 'req_c', finish: { raw: 'end_turn', reason: 'stop' }, usage: { input: 900, output: 60 } },
    arena: true,
  },
  { v: { kind: 'compaction/summary', id: 'cmp_1', summary: [{ type: 'text', text: 'The user said hello; a1 read ä.ts.' }] }, arena: false },
  {
    v: {
      kind: 'item',
      op: { op: 'replace', from: 'u1', to: 't1b' },
      sources: [2, 4, 6],
      item: {
        id: 'ck1',
        role: 'user',
        blocks: [{ type: 'text', text: 'Summary: hello, ä.ts read.' }],
        derivation: { kind: 'checkpoint', compactionId: 'cmp_1', covers: ['u1', 'a1', 't1', 't1b'] },
      },
    },
    arena: true,
  },
  { v: { kind: 'compaction/end', id: 'cmp_1', outcome: 'committed' }, arena: false },
  // A written seq that agrees with line order changes nothing: the line alone still gives the event.
  { v: { kind: 'record', seq: 18, type: 'hook', summary: 'seq as written' }, arena: true },
  {
    v: { kind: 'item', branch: 'side', item: { id: 's1', role: 'user', blocks: [{ type: 'text', text: 'On a side branch.' }] } },
    arena: true,
  },
  // A written seq that disagrees with line order: this line, and references after it, are rewritten.
  { v: { kind: 'item', seq: 40, item: { id: 'u2', role: 'user', blocks: [{ type: 'text', text: 'Again.' }] } }, arena: false },
  {
    v: { kind: 'item', sources: [2, 40], item: { id: 'a2', role: 'assistant', blocks: [{ type: 'text', text: 'Quoting u1 and u2.' }] } },
    arena: false,
  },
  { v: { kind: 'item', item: { id: 'a3', role: 'assistant', blocks: [{ type: 'text', text: 'No references.' }] } }, arena: true },
  { v: { kind: 'assistant/chunk', text: 'an unknown kind' }, arena: false },
  { v: { kind: 'item', item: { id: '', role: 'user', blocks: [] } }, arena: false },
  { v: { kind: 'todo', todos: [{ content: 'test', status: 'pending' }] }, arena: false },
  {
    v: { kind: 'item', op: { op: 'extend' }, item: { id: 'a3', role: 'assistant', blocks: [{ type: 'text', text: ' More.' }] } },
    arena: true,
  },
  { v: { kind: 'request', id: 'req_3' }, arena: true },
  // Elided too, on a short line: the log keeps the line and elides its event again when it is read.
  {
    v: {
      kind: 'item',
      item: { id: 't2', role: 'tool', blocks: [{ type: 'tool_result', callId: 'call_9', content: [{ type: 'text', text: long(420) }] }] },
    },
    arena: true,
  },
  {
    v: {
      kind: 'response',
      request: 'req_3',
      error: { code: 'overloaded', message: 'Überlastet' },
      finish: { raw: 'error', reason: 'error' },
    },
    arena: true,
  },
];

function handSession(name: string, eol: string, bom: boolean): string {
  const path = join(dir, name);
  writeFileSync(path, (bom ? '\uFEFF' : '') + HAND.map((l) => JSON.stringify(l.v)).join(eol) + eol);
  return path;
}

describe('CompactLog', () => {
  it('keeps lines as bytes, objects as they are (their seq set), and builds line events again with their seq', () => {
    const b = new CompactLogBuilder();
    const line = Buffer.from('xx{"kind":"record","type":"t","summary":"é"}yy');
    const kept: EventBody = { kind: 'request', id: 'r', purpose: 'agent' };
    expect(b.push(kept, null)).toBe(0);
    expect(b.push({ kind: 'record', type: 't', summary: 'é' }, line, 2, line.length - 2)).toBe(1);
    line.fill(0); // the reader reuses its buffer: the builder kept a copy
    const log = b.finish((v) => v as EventBody);
    expect(log.at(0)).toBe(kept);
    expect(kept).toEqual({ kind: 'request', id: 'r', purpose: 'agent', seq: 0 });
    expect(log.at(1)).toEqual({ kind: 'record', type: 't', summary: 'é', seq: 1 });
    // Built once while it is recent: the same object on the next read.
    expect(log.at(1)).toBe(log.at(1));
    expect(log.lineValue(1)).toEqual({ kind: 'record', type: 't', summary: 'é' });
    expect([log.lineValue(0), log.lineValue(2)]).toEqual([null, null]);
    expect([log.kindAt(0), log.kindAt(1), log.kindAt(2)]).toEqual(['request', 'record', undefined]);
    expect([log.at(2), log.at(-1)]).toEqual([undefined, undefined]);
    expect(log.stats()).toMatchObject({ events: 2, inArena: 1, objects: 1 });
  });

  it('builds a line event again once another event took its place among the recent ones', () => {
    const b = new CompactLogBuilder();
    const line = Buffer.from('{"kind":"record","type":"t","summary":"s"}');
    for (let i = 0; i <= RECENT_EVENTS + 1; i++) b.push({ kind: 'record', type: 't', summary: 's' }, line);
    const log = b.finish((v) => v as EventBody);
    const first = log.at(1);
    expect(log.at(2)).not.toBe(first);
    expect(log.at(1)).toBe(first);
    // seq 1 + RECENT_EVENTS takes seq 1's place: seq 1 is built again, equal but not the same.
    expect(log.at(1 + RECENT_EVENTS)).toEqual({ kind: 'record', type: 't', summary: 's', seq: 1 + RECENT_EVENTS });
    const again = log.at(1);
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });

  it('loads the hand-written session as the array log does, with exactly the lines the line alone gives kept as bytes', async () => {
    const log = await expectSameBothWays(handSession('hand.jsonl', '\n', false));
    expect(log?.stats()).toMatchObject({
      events: HAND.length,
      inArena: HAND.filter((l) => l.arena).length,
      objects: HAND.filter((l) => !l.arena).length,
    });
  });

  it('keeps exactly the bytes JSON.parse read: after a BOM, without CRs, and across read chunks, sniffed lines included', async () => {
    const path = handSession('hand-crlf-bom.jsonl', '\r\n', true);
    // Chunks of 512 bytes hold a few whole lines each: the reader reuses its buffers before the
    // first 16 lines (held back while the format is sniffed) reach the log.
    for (const options of [{}, { chunkBytes: 512 }, { chunkBytes: 7 }, { chunkBytes: 1 }]) {
      const log = await expectSameBothWays(path, options);
      expect(log?.stats().inArena).toBe(HAND.filter((l) => l.arena).length);
    }
  });

  it('keeps a first line that is an event of a hot kind without the BOM before it', async () => {
    const path = join(dir, 'bom-first.jsonl');
    // The lines kept as bytes, less the one whose written seq would no longer be its position here.
    const lines = HAND.filter((l) => l.arena && l.v.seq === undefined);
    writeFileSync(path, '\uFEFF' + lines.map((l) => JSON.stringify(l.v)).join('\r\n'));
    const log = await expectSameBothWays(path, { format: 'palimpsest' });
    expect(log?.stats().inArena).toBe(lines.length);
  });

  it('loads a generated session as the array log does, with most events kept as bytes', async () => {
    const path = join(dir, 'generated.jsonl');
    const stats = generateSession(path, { seed: 77, profile: 'small', targetEvents: 6_000 });
    expect(stats.compactions).toBeGreaterThan(0);
    expect(stats.masks).toBeGreaterThan(0);
    const log = await expectSameBothWays(path);
    const s = log?.stats();
    expect(s?.events).toBe(stats.events);
    expect(s?.inArena ?? 0).toBeGreaterThan(0.9 * stats.events);
    expect((s?.inArena ?? 0) + (s?.objects ?? 0)).toBe(stats.events);
  });

  it('hydrates as the array log does', async () => {
    const path = handSession('hand-hydrate.jsonl', '\n', false);
    const a = await loadSession(path, { compactLog: false });
    const c = await loadSession(path, { compactLog: true });
    try {
      const seqs = Array.from({ length: a.events.length }, (_, i) => a.events.length - 1 - i);
      expect(await c.hydrateMany(seqs)).toEqual(await a.hydrateMany(seqs));
      expect(await c.hydrate(6)).toEqual(await a.hydrate(6));
      await expect(c.hydrateMany([c.events.length])).rejects.toThrow(RangeError);
    } finally {
      await a.dispose();
      await c.dispose();
    }
  });

  describe('every fixture session loads the same both ways', () => {
    for (const path of fixtureSessions()) {
      it(path, async () => {
        const written = await expectSameBothWays(path);
        if (path.startsWith('fixtures/palimpsest/') && path.endsWith('.jsonl')) {
          // With the seqs the lines write (in line order, so changing nothing) and without them.
          for (const log of [written, await expectSameBothWays(withoutWrittenSeqs(path, dir))]) {
            const e: LogEvent[] = log ? [...log] : [];
            const hot = e.filter((x) => x.kind === 'item' || x.kind === 'request' || x.kind === 'response' || x.kind === 'record').length;
            if (hot > 0) expect(log?.stats().inArena).toBeGreaterThan(0);
          }
        }
      });
    }
    it('fixtures/bad-input/long-line.jsonl with a line limit', async () => {
      await expectSameBothWays('fixtures/bad-input/long-line.jsonl', { maxLineBytes: 64 });
    });
  });
});
