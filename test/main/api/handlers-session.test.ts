import { mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers, type Handlers } from '../../../src/main/api/handlers';
import { writeChain } from '../../../src/main/rerun/settings';
import { PinnedModel } from '../../../src/shared/rerun/pinned';
import { SessionRegistry } from '../../../src/main/api/sessions';
import { closeSessionTokens } from '../../../src/main/api/session/tokens';
import { resetSharedCountCaches, sharedCountCache } from '../../../src/main/tokens/shared-cache';
import { loadSession } from '../../../src/main/session/load';
import { replay } from '../../../src/shared/replay/fold';
import { fatesAt } from '../../../src/shared/replay/view';
import { value } from './results';

const BASIC = 'fixtures/palimpsest/basic.jsonl';
const MAPREDUCE = 'fixtures/palimpsest/mapreduce.jsonl';

let registry: SessionRegistry;
let h: Handlers;
const logged: string[] = [];

let cacheDir: string;

beforeAll(async () => {
  // The host's token counts are kept in a cache folder: this file's own, not the user's.
  cacheDir = await mkdtemp(join(tmpdir(), 'palimpsest-counts-'));
  resetSharedCountCaches();
  registry = new SessionRegistry({ allow: 'any' });
  h = createHandlers({ registry, initialPaths: [], countCacheDir: cacheDir, logError: (m, e) => logged.push(`${m}: ${String(e)}`) });
});
afterAll(async () => {
  registry.dispose();
  await closeSessionTokens();
  resetSharedCountCaches();
});

const open = async (path: string) => value(await h.openSession({ path })).sessionId;

describe('session inspector handlers on basic.jsonl', () => {
  it('gives the session summary by id, and the head and windows of a view', async () => {
    const id = await open(BASIC);
    expect(value(await h.getSessionInfo({ sessionId: id })).counts.requests).toBe(10);
    const head = value(await h.getViewHead({ sessionId: id, index: 8 }));
    const full = value(await h.getView({ sessionId: id, index: 8 }));
    expect(head.items).toBe(full.items.length);
    expect(head.rawItems).toBe(full.fates.length);
    expect(head.fates.summarised).toBe(full.fates.filter((f) => f.fate === 'summarised').length);
    const w = value(await h.getViewWindow({ sessionId: id, index: 8, from: 1, count: 2 }));
    expect(w.total).toBe(full.items.length);
    expect(w.items.map((x) => x.position)).toEqual([1, 2]);
    expect(w.items.map((x) => x.item.id)).toEqual(full.items.slice(1, 3).map((x) => x.id));
  });

  it('aligns raw events with the view: a summarised item points at its checkpoint', async () => {
    const id = await open(BASIC);
    const view = value(await h.getView({ sessionId: id, index: 8 }));
    const summarised = view.fates.find((f) => f.fate === 'summarised');
    if (!summarised || summarised.fate !== 'summarised') throw new Error('basic.jsonl has a summarised item at #8');
    const al = value(await h.getAlignment({ sessionId: id, index: 8, from: summarised.seq, count: 1 }));
    const row = al.rows[0];
    expect(row?.fate?.fate).toBe('summarised');
    expect(row?.target).toBe(view.items.findIndex((it) => it.id === summarised.by));
    // Provenance and alignment agree: the checkpoint cites the summarised event.
    const k = view.items[row?.target ?? -1];
    expect(k?.provenance).toContain(summarised.seq);
    // An event written after the request is marked later and has no fate.
    const later = value(await h.getAlignment({ sessionId: id, index: 0, from: view.request.seq, count: 1 }));
    expect(later.rows[0]).toMatchObject({ later: true, fate: null });
  });

  it('lists fates by kind, and diffs two views', async () => {
    const id = await open(BASIC);
    const list = value(await h.listFates({ sessionId: id, index: 8, fate: 'summarised', from: 0, count: 100 }));
    expect(list.total).toBe(list.counts.summarised);
    expect(list.rows.every((r) => r.fate.fate === 'summarised')).toBe(true);
    const d = value(await h.diffViews({ sessionId: id, a: 5, b: 7 }));
    expect(d.counts.removed).toBeGreaterThan(0);
    expect(d.rows.some((r) => r.change === 'added' && r.kind === 'checkpoint')).toBe(true);
    expect(d.rows.find((r) => r.change === 'removed')?.detail).toMatch(/summarised by k1/);
  });

  it('pages through the raw items by fate exactly as the whole list, with or without a fate, at every request', async () => {
    for (const path of [BASIC, 'fixtures/palimpsest/pruning-masking.jsonl', MAPREDUCE]) {
      const id = await open(path);
      const session = await loadSession(path);
      try {
        const state = replay(session.events);
        for (let index = 0; index < state.requests.length; index++) {
          const all = fatesAt(state, index);
          const head = value(await h.getViewHead({ sessionId: id, index }));
          expect(head.rawItems).toBe(all.length);
          for (const fate of [undefined, 'verbatim', 'masked', 'pruned', 'summarised', 'dropped', 'reinjected'] as const) {
            const want = all.filter((f) => fate === undefined || f.fate.fate === fate).map((f) => f.id);
            const got: string[] = [];
            for (let from = 0; ; from += 2) {
              const page = value(await h.listFates({ sessionId: id, index, fate, from, count: 2 }));
              expect(page.total).toBe(want.length);
              got.push(...page.rows.map((r) => r.fate.id));
              if (page.rows.length < 2) break;
            }
            expect(got).toEqual(want);
          }
        }
      } finally {
        await session.dispose();
      }
    }
  });

  it('reads a whole event and a whole item', async () => {
    const id = await open(BASIC);
    const e = value(await h.getEventText({ sessionId: id, seq: 0 }));
    expect(JSON.parse(e.text.text)).toHaveProperty('kind', e.kind);
    const w = value(await h.getViewWindow({ sessionId: id, index: 9, from: 0, count: 1 }));
    const first = w.items[0];
    if (!first) throw new Error('view #9 has items');
    const t = value(await h.getItemText({ sessionId: id, index: 9, itemId: first.item.id }));
    expect(t.chars).toBe(first.chars);
  });

  it('gives a token meter with policy lines, and a series with the compaction', async () => {
    const id = await open(BASIC);
    const m = value(await h.getTokenMeter({ sessionId: id, index: 9 }));
    expect(m.pending).toBe(true);
    const sum = Object.values(m.byCategory).reduce((a, b) => a + b, 0);
    expect(Math.abs(sum - m.total)).toBeLessThanOrEqual(12); // categories are rounded one by one
    expect(m.lines.window).not.toBeNull();
    expect(m.lines.trigger).not.toBeNull();
    const bad = value(await h.getTokenMeter({ sessionId: id, index: 9, policy: 'nope' }));
    expect(bad.policyError).toMatch(/no policy "nope"/);
    // The session report is built in the background: the first answers do not wait for it.
    let s = value(await h.getTokenSeries({ sessionId: id }));
    for (let i = 0; i < 200 && (s.pending || s.counting.state === 'counting'); i++) {
      await new Promise((r) => setTimeout(r, 25));
      s = value(await h.getTokenSeries({ sessionId: id }));
    }
    expect(s.pending).toBe(false);
    expect(s.counting.state).toBe('done');
    expect(s.points).toHaveLength(10);
    expect(s.compactions.map((c) => c.id)).toEqual(['cmp_01']);
    const done = value(await h.getTokenMeter({ sessionId: id, index: 9 }));
    expect(done).toMatchObject({ pending: false, uncounted: 0 });
    expect(done.verdict?.state).toBe('below');
  });

  it('keeps what it counted in the cache folder, and a later host counts nothing of it again', async () => {
    const id = await open(MAPREDUCE);
    let s = value(await h.getTokenSeries({ sessionId: id }));
    for (let i = 0; i < 400 && (s.pending || s.counting.state === 'counting'); i++) {
      await new Promise((r) => setTimeout(r, 25));
      s = value(await h.getTokenSeries({ sessionId: id }));
    }
    expect(s.counting.state).toBe('done');
    expect((await stat(join(cacheDir, 'token-counts.bin'))).size).toBeGreaterThan(16);

    // A new host (the app started again): its cache is read back from the file.
    resetSharedCountCaches();
    const reg = new SessionRegistry({ allow: 'any' });
    const again = createHandlers({ registry: reg, initialPaths: [], countCacheDir: cacheDir });
    const id2 = value(await again.openSession({ path: MAPREDUCE })).sessionId;
    let s2 = value(await again.getTokenSeries({ sessionId: id2 }));
    for (let i = 0; i < 400 && (s2.pending || s2.counting.state === 'counting'); i++) {
      await new Promise((r) => setTimeout(r, 25));
      s2 = value(await again.getTokenSeries({ sessionId: id2 }));
    }
    expect(s2.points.map((p) => [p.estimated, p.uncounted])).toEqual(s.points.map((p) => [p.estimated, p.uncounted]));
    const cache = sharedCountCache(cacheDir);
    expect(cache?.misses).toBe(0);
    expect(cache?.store?.hits).toBeGreaterThan(0);
    reg.dispose();
  });
});

describe('prompt-cache breaks in the token series', () => {
  const REAL = 'fixtures/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl';

  /** Handlers whose re-run settings live in a folder of the test's own (priced or not). */
  async function handlersWith(prices?: { input: number; output: number; cacheRead: number; cacheWrite: number }) {
    const dir = await mkdtemp(join(tmpdir(), 'palimpsest-breaks-'));
    const env = { PALIMPSEST_DATA_DIR: dir };
    if (prices) await writeChain([PinnedModel.parse({ provider: 'anthropic', model: 'claude-opus-4-6', prices })], env);
    const reg = new SessionRegistry({ allow: 'any' });
    return { reg, hs: createHandlers({ registry: reg, initialPaths: [], rerun: { env } }) };
  }

  async function settled(hs: Handlers, id: string) {
    let s = value(await hs.getTokenSeries({ sessionId: id }));
    for (let i = 0; i < 400 && s.pending; i++) {
      await new Promise((r) => setTimeout(r, 25));
      s = value(await hs.getTokenSeries({ sessionId: id }));
    }
    expect(s.pending).toBe(false);
    return s;
  }

  it('marks each request that broke the cache, with the cause, and totals them (a real Claude Code session)', async () => {
    const { reg, hs } = await handlersWith();
    const s = await settled(hs, value(await hs.openSession({ path: REAL })).sessionId);
    const marked = s.points.filter((p) => p.cacheBreak !== null).map((p) => [p.index, p.cacheBreak?.cause]);
    expect(marked).toEqual([
      [18, 'ttl'],
      [61, 'compaction'],
      [113, 'ttl'],
      [137, 'unexplained'],
    ]);
    // No price pinned for the model: the cost is unknown, not 0.
    expect(s.cacheBreaks).toMatchObject({ count: 4, cost: null, byCause: { ttl: { count: 2 }, compaction: { count: 1 } } });
    reg.dispose();
  });

  it('prices the breaks with the price pinned for the session’s model in the re-run settings', async () => {
    const { reg, hs } = await handlersWith({ input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 });
    const s = await settled(hs, value(await hs.openSession({ path: REAL })).sessionId);
    const costs = s.points.flatMap((p) => (p.cacheBreak ? [p.cacheBreak.cost] : []));
    expect(costs).toHaveLength(4);
    expect(costs.every((c) => c !== null && c > 0)).toBe(true);
    expect(s.cacheBreaks.cost).toBeCloseTo(costs.reduce((a, b) => (a ?? 0) + (b ?? 0), 0) ?? 0, 9);
    reg.dispose();
  });
});

describe('survival in the compaction detail', () => {
  it('gives the rates and the lost anchors of a real Claude Code compaction, as forensics measures them', async () => {
    const id = await open('fixtures/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl');
    const d = value(await h.getCompaction({ sessionId: id, compactionId: 'dd3cc2e6-a191-4331-a0f0-2473e6d7692d' }));
    const sv = d.survival;
    if (!sv) throw new Error('the compaction replaced items');
    expect(sv.survival.commands).toMatchObject({ total: 24, lost: 19 });
    expect(sv.survival.urls).toMatchObject({ total: 0, rate: null });
    expect(sv.lostTotal).toBe(sv.lost.length);
    expect(sv.lost[0]).toMatchObject({ category: 'paths', seq: 126 });
    expect(sv.lost[0]?.text).toMatch(/pane_list_live\.ex$/);
    // Every lost anchor points at an item the compaction replaced.
    const replaced = new Set(d.source.map((x) => x.seq));
    expect(sv.lost.every((a) => replaced.has(a.seq))).toBe(true);
  });
});

describe('compaction detail on mapreduce.jsonl', () => {
  it('has the summarizer calls, the reduction tree, audits and coverage with the repartition', async () => {
    const id = await open(MAPREDUCE);
    const d = value(await h.getCompaction({ sessionId: id, compactionId: 'cmp_7' }));
    expect(d.row.outcome).toBe('committed');
    expect(d.summarizer.map((c) => c.id)).toEqual(expect.arrayContaining(['map-0', 'map-4']));
    const mr = d.mapreduce;
    if (!mr) throw new Error('cmp_7 is a MapReduce compaction');
    expect(mr.reductions.map((r) => r.level)).toEqual([0, 0, 1]);
    expect(mr.audits.map((a) => a.verdict)).toEqual(['fail', 'pass']);
    expect(mr.corrections).toHaveLength(1);
    expect(mr.rereads[0]?.status).toBe('served');
    // Segment 2 failed and was repartitioned into 4 and 5: those cover its items at the commit.
    expect(mr.coverage.segments.map((s) => s.ordinal)).toEqual([0, 1, 3, 4, 5]);
    expect(mr.coverage.segments.every((s) => s.status === 'accepted')).toBe(true);
    expect(mr.coverage.axis.map((a) => a.id)).toEqual(d.source.map((s) => s.id));
    expect(d.checkpoints[0]?.text.text).toContain('## Objective');
  });

  it('reports an unknown compaction as an error value', async () => {
    const id = await open(MAPREDUCE);
    const r = await h.getCompaction({ sessionId: id, compactionId: 'nope' });
    expect(r.ok).toBe(false);
    expect(logged).toEqual([]);
  });
});
