import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionInspector } from '../../../src/main/session/inspector';
import { loadSession } from '../../../src/main/session/load';
import type { LoadedSession } from '../../../src/main/session/types';
import { ContentCountCache } from '../../../src/main/tokens/cache';
import { loadTiktoken } from '../../../src/main/tokens/encoder';
import { InlineCounter, WorkerPool, type BatchResult, type TokenCounter } from '../../../src/main/tokens/pool';
import { SessionTokens } from '../../../src/main/tokens/service';
import { CATEGORY_INDEX } from '../../../src/shared/tokens/categories';
import type { EncodingName } from '../../../src/shared/tokens/encoding';

const fixture = (p: string): string => fileURLToPath(new URL(`../../../fixtures/${p}`, import.meta.url));

/** A counter that records what it is asked to count. */
class Spy implements TokenCounter {
  readonly kind = 'inline' as const;
  readonly threads = 1;
  readonly batches: string[][] = [];
  private readonly inner = new InlineCounter();
  count(encoding: EncodingName, texts: readonly string[], signal?: AbortSignal): Promise<BatchResult> {
    this.batches.push([...texts]);
    return this.inner.count(encoding, texts, signal);
  }
  get texts(): number {
    return this.batches.reduce((n, b) => n + b.length, 0);
  }
  warm(): void {
    this.inner.warm();
  }
  dispose(): Promise<void> {
    return this.inner.dispose();
  }
}

describe('session token service', () => {
  let session: LoadedSession;
  let inspector: SessionInspector;
  beforeAll(async () => {
    session = await loadSession(fixture('tokens/cache-breaks.jsonl'));
    inspector = new SessionInspector(session);
  });
  afterAll(async () => {
    await session.dispose();
  });

  it('gives figures at once, labelled estimates, and refines them by counting', async () => {
    const spy = new Spy();
    const tokens = new SessionTokens(inspector, { counter: spy });
    expect(tokens.choice).toMatchObject({ encoding: 'o200k_base', exact: true });
    const before = tokens.request(1);
    expect(before?.estimated).toBeGreaterThan(0);
    expect(spy.texts).toBe(0);
    const progress: number[] = [];
    const run = await tokens.countAll({ onProgress: (p) => progress.push(p.refs) });
    expect(run.refs).toBeGreaterThan(0);
    expect(run.hydrated).toBeGreaterThan(0); // the long tool result is elided in memory and re-read
    expect(progress.at(-1)).toBe(run.refs - run.known);
    expect([...progress].sort((a, b) => a - b)).toEqual(progress);
    for (let i = 0; i < tokens.state.requests.length; i++) expect(tokens.request(i)?.estimated).toBe(0);
  });

  it('counts elided texts in full, as js-tiktoken counts the text in the file', async () => {
    const tokens = new SessionTokens(inspector, { counter: new InlineCounter() });
    await tokens.countAll();
    const line = readFileSync(fixture('tokens/cache-breaks.jsonl'), 'utf8')
      .split('\n')
      .map((l) => (l ? (JSON.parse(l) as { item?: { id: string; blocks: { content?: { text: string }[] }[] } }) : null))
      .find((e) => e?.item?.id === 't1');
    const full = line?.item?.blocks[0]?.content?.[0]?.text ?? '';
    expect(full.length).toBeGreaterThan(2000);
    const { bpe } = await loadTiktoken('o200k_base');
    const t = tokens.request(1);
    expect(t?.byCategory[CATEGORY_INDEX.tool_result]).toBe(bpe.encode(full, [], []).length);
  });

  it('after a seek, a view only sums cached counts: nothing is counted again', async () => {
    const spy = new Spy();
    const tokens = new SessionTokens(inspector, { counter: spy });
    await tokens.countAll();
    const asked = spy.texts;
    const seeks = [5, 0, 3, 1, 4, 2, 5, 0];
    for (const i of seeks) {
      const t = tokens.request(i);
      expect(t?.estimated).toBe(0);
      // every position of the view holds its final, cached figure
      expect(t?.units.every((u) => u.unknown || u.counted !== null)).toBe(true);
    }
    expect(spy.texts).toBe(asked);
    const again = await tokens.countAll();
    expect(again.known).toBe(again.refs);
    expect(spy.texts).toBe(asked);
  });

  it('shares counts by content hash across sessions (a re-open counts nothing)', async () => {
    const cache = new ContentCountCache();
    const first = new Spy();
    await new SessionTokens(inspector, { counter: first, cache }).countAll();
    expect(first.texts).toBeGreaterThan(0);
    const second = new Spy();
    const run = await new SessionTokens(inspector, { counter: second, cache }).countAll();
    expect(second.texts).toBe(0);
    expect(run.fromCache).toBe(run.refs);
    expect(cache.hits).toBeGreaterThan(0);
  });

  it('counts only what one view needs', async () => {
    const spy = new Spy();
    const tokens = new SessionTokens(inspector, { counter: spy });
    await tokens.countRequest(0);
    expect(tokens.request(0)?.estimated).toBe(0);
    expect(tokens.request(5)?.estimated).toBeGreaterThan(0);
  });

  it('a view counted while the whole session is being counted waits for it instead of counting twice', async () => {
    const once = new Spy();
    await new SessionTokens(inspector, { counter: once }).countAll();
    const spy = new Spy();
    const tokens = new SessionTokens(inspector, { counter: spy });
    await Promise.all([tokens.countAll(), tokens.countRequest(1), tokens.countRequest(5)]);
    expect(spy.texts).toBe(once.texts);
    expect(tokens.request(1)?.estimated).toBe(0);
    expect(tokens.request(5)?.estimated).toBe(0);
  });

  it('stops when cancelled, keeping what was counted', async () => {
    const tokens = new SessionTokens(inspector, { counter: new InlineCounter() });
    const ac = new AbortController();
    ac.abort(new Error('closed the tab'));
    await expect(tokens.countAll({ signal: ac.signal })).rejects.toThrow('closed the tab');
    await tokens.countAll();
    expect(tokens.report().partial).toBe(0);
  });

  it('reports cache breaks: tail mask, mid-history mask, compaction', async () => {
    const tokens = new SessionTokens(inspector, { counter: new InlineCounter() });
    await tokens.countAll();
    const rows = tokens.report().requests;
    expect(rows.map((r) => [r.cache.firstChange?.cause ?? null, r.cache.where])).toEqual([
      [null, null],
      ['append', null],
      ['append', null],
      ['mask', 'tail'],
      ['mask', 'mid'],
      ['compaction', 'mid'],
    ]);
    expect(rows[4]?.cache.firstChange?.unit).toBe('t1');
    expect(rows[4]?.cache.recomputedTokens).toBeGreaterThan(0);
    for (const r of rows) {
      const sum = Object.values(r.byCategory).reduce((a, b) => a + b, 0);
      expect(sum).toBe(r.estimatedTokens);
    }
    const view = tokens.view(4);
    expect(view?.units.find((u) => u.label === 't1')).toMatchObject({ rendition: 'masked', categories: { masked: expect.any(Number) } });
  });

  it('counts in the worker pool as inline', async () => {
    const pool = new WorkerPool({ size: 2 });
    try {
      const a = new SessionTokens(inspector, { counter: pool });
      const b = new SessionTokens(inspector, { counter: new InlineCounter() });
      await Promise.all([a.countAll(), b.countAll()]);
      expect(a.report().requests.map((r) => r.estimatedTokens)).toEqual(b.report().requests.map((r) => r.estimatedTokens));
    } finally {
      await pool.dispose();
    }
  }, 60_000);
});

describe('a real Claude Code session', () => {
  it('measures the unlogged envelope and predicts the compaction the log shows', async () => {
    const s = await loadSession(fixture('claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl'));
    try {
      const tokens = new SessionTokens(new SessionInspector(s), { counter: new InlineCounter() });
      expect(tokens.choice).toMatchObject({ exact: false, family: 'anthropic' });
      await tokens.countAll();
      const report = tokens.report();
      expect(report.policy.policy.id).toBe('claude-code');
      expect(report.envelopeUnlogged).toBe(true);
      // Request #0 shows 40-odd tokens of logged text but reports 26,450: the unlogged envelope.
      expect(report.fit?.envelope).toBeGreaterThan(20_000);
      expect(report.fit?.envelope).toBeLessThan(30_000);
      expect(report.fit?.ratio).toBeGreaterThan(1);
      // compact_boundary after request #60 (preTokens 170,251 ≥ 167,000)
      expect(report.policy.compactions).toEqual([60]);
      expect(report.policy.matched).toEqual([60]);
      expect(report.requests[61]?.cache.firstChange?.cause).toBe('compaction');
    } finally {
      await s.dispose();
    }
  }, 60_000);
});

describe('session token service, re-reading elided texts', () => {
  // Twelve items with long texts (elided in memory) between short ones, and a request after each third.
  const dir = mkdtempSync(join(tmpdir(), 'palimpsest-tokens-'));
  let session: LoadedSession;
  const LONG = 12;
  beforeAll(async () => {
    const lines = [JSON.stringify({ kind: 'session', format: 'palimpsest', version: 1, id: 'long-texts' })];
    for (let i = 0; i < LONG; i++) {
      lines.push(JSON.stringify({ kind: 'item', item: { id: `u${i}`, role: 'user', blocks: [{ type: 'text', text: `question ${i}` }] } }));
      const text = Array.from({ length: 300 }, (_, w) => `word${(w * 31 + i) % 97}`).join(' ');
      lines.push(JSON.stringify({ kind: 'item', item: { id: `a${i}`, role: 'assistant', blocks: [{ type: 'text', text }] } }));
      if (i % 3 === 2) lines.push(JSON.stringify({ kind: 'request', id: `r${i}` }));
    }
    const path = join(dir, 'long-texts.jsonl');
    writeFileSync(path, `${lines.join('\n')}\n`);
    session = await loadSession(path);
  });
  afterAll(async () => {
    await session.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The session with its re-reads recorded (and made to fail with `fail`). */
  function watched(fail = false): { session: LoadedSession; batches: number[][]; single: number[] } {
    const batches: number[][] = [];
    const single: number[] = [];
    const gone = (): Promise<never> => Promise.reject(new Error('the file is gone'));
    return {
      batches,
      single,
      session: {
        ...session,
        hydrateMany: (seqs) => {
          batches.push([...seqs]);
          return fail ? gone() : session.hydrateMany(seqs);
        },
        hydrate: (seq) => {
          single.push(seq);
          return fail ? gone() : session.hydrate(seq);
        },
      },
    };
  }

  it('re-reads the elided texts of many refs in one batch, not one event at a time', async () => {
    const w = watched();
    const whole = new SessionTokens(new SessionInspector(w.session), { counter: new InlineCounter() });
    const run = await whole.countAll();
    expect(run.hydrated).toBe(LONG);
    expect(w.batches).toEqual([expect.any(Array)]);
    expect(w.batches[0]).toHaveLength(LONG);
    expect(w.single).toEqual([]);
    for (let i = 0; i < whole.state.requests.length; i++) expect(whole.request(i)?.estimated).toBe(0);

    const small = watched();
    const inFives = new SessionTokens(new SessionInspector(small.session), { counter: new InlineCounter(), hydrateBatch: 5 });
    await inFives.countAll();
    expect(small.batches.map((b) => b.length)).toEqual([5, 5, 2]);
    for (let i = 0; i < whole.state.requests.length; i++) expect(inFives.request(i)?.total).toBe(whole.request(i)?.total);
  });

  it("lets the thread's other work in while it goes through thousands of refs it finds in the cache", async () => {
    const path = join(dir, 'many.jsonl');
    const lines = [JSON.stringify({ kind: 'session', format: 'palimpsest', version: 1, id: 'many' })];
    for (let i = 0; i < 12_000; i++)
      lines.push(JSON.stringify({ kind: 'item', item: { id: `m${i}`, role: 'user', blocks: [{ type: 'text', text: `note ${i % 50}` }] } }));
    lines.push(JSON.stringify({ kind: 'request', id: 'q' }));
    writeFileSync(path, `${lines.join('\n')}\n`);
    const many = await loadSession(path);
    try {
      const cache = new ContentCountCache();
      await new SessionTokens(new SessionInspector(many), { counter: new InlineCounter(), cache }).countAll();
      // Everything is in the cache now: the second run sends nothing and waits for nothing.
      let turns = 0;
      let counting = true;
      const turn = (): void => {
        turns++;
        if (counting) setImmediate(turn);
      };
      setImmediate(turn);
      const run = await new SessionTokens(new SessionInspector(many), { counter: new InlineCounter(), cache }).countAll();
      counting = false;
      expect(run.fromCache).toBe(run.refs);
      expect(run.refs).toBe(12_000);
      expect(turns).toBeGreaterThanOrEqual(2);
    } finally {
      await many.dispose();
    }
  });

  it('estimates the elided texts it cannot re-read, and counts the rest', async () => {
    const w = watched(true);
    const tokens = new SessionTokens(new SessionInspector(w.session), { counter: new InlineCounter() });
    const run = await tokens.countAll();
    expect(run.hydrated).toBe(LONG);
    // The batch failed, then each event on its own.
    expect(w.single).toHaveLength(LONG);
    const last = tokens.request(tokens.state.requests.length - 1);
    const assistantTokens = last?.byCategory[CATEGORY_INDEX.assistant] ?? 0;
    expect(last?.estimated).toBe(assistantTokens); // every long text, from its length
    expect(last?.estimated).toBeGreaterThan(0);
    expect(last?.estimated).toBeLessThan(last?.total ?? 0); // the questions are counted
    expect(tokens.report().partial).toBe(tokens.state.requests.length);
  });
});
