import { describe, expect, it } from 'vitest';
import { itemTokens } from '../../../../src/shared/strategies/common/render';
import { charCounter } from '../common/char-counter';
import { layered } from '../../../../src/shared/strategies/layered';
import { packSegments } from '../../../../src/shared/strategies/layered/packer';
import type { StrategyProgress, SummaryCall, SummaryRequest, Summarizer } from '../../../../src/shared/strategies/types';
import { FakeSummarizer, type FakeRule } from '../fake-summarizer';
import { history, input, itemsIn, mapsOf, ofStage, passAudit, sized } from './helpers';

/*
 * The map stage. Source: 40 items, agent window 2,500 → a 500-token raw tail (the last 5 items) and
 * a 35-item prefix (#0–#34). A 2,000-token summarizer window → map output reservation 200 tokens.
 */

const tokensOf = (req: SummaryRequest) => charCounter(req.system ?? '') + req.messages.reduce((n, m) => n + charCounter(m.text), 0);
const ordinalOf = (req: SummaryRequest) => Number(/^map (\d+) /.exec(req.label)?.[1]);
const slow: FakeRule = (req) => (req.stage === 'map' ? { text: `map summary ${req.label}`, delayMs: 5 } : null);

/** Records how many calls were in flight when each request started. */
class Tracking implements Summarizer {
  readonly starts: { label: string; inFlight: number }[] = [];
  private inFlight = 0;
  constructor(private readonly inner: FakeSummarizer) {}
  get window() {
    return this.inner.window;
  }
  get defaultMaxOutput() {
    return this.inner.defaultMaxOutput;
  }
  async summarize(req: SummaryRequest, signal: AbortSignal): Promise<SummaryCall> {
    this.starts.push({ label: req.label, inFlight: ++this.inFlight });
    try {
      return await this.inner.summarize(req, signal);
    } finally {
      this.inFlight--;
    }
  }
}

describe('layered MapReduce: whole-item segments', () => {
  it('packs the prefix to a soft target: exact ordinals, ranges and ordered ids; an oversized item alone', async () => {
    const items = Array.from({ length: 40 }, (_, i) =>
      sized(i, i % 2 === 0 ? 'user' : 'assistant', i === 10 ? 500 : i === 17 ? 200 : 100, `item-${i}`),
    );
    const fake = new FakeSummarizer([passAudit], 2_000, null);
    const res = await layered.run(input(items, fake, { window: 2_500, options: { segmentTokens: 350 } }));
    expect(res.outcome).toBe('committed');
    // The raw tail is sized by the agent's window (20 % of 2,500), not by the smaller summarizer window.
    expect(res.view?.items.slice(1).map((it) => it.id)).toEqual(['i35', 'i36', 'i37', 'i38', 'i39']);
    const segs = res.mapreduce?.segments ?? [];
    expect(segs.slice(0, 8).map((s) => [s.ordinal, s.from, s.to])).toEqual([
      [1, 0, 2],
      [2, 3, 5],
      [3, 6, 8],
      [4, 9, 9],
      [5, 10, 10],
      [6, 11, 13],
      [7, 14, 16],
      [8, 17, 18],
    ]);
    // Exactly the packer's plan over the prefix at target 350 (1 token of joining allowance per item).
    const planned = packSegments(itemTokens(items, charCounter), 0, 34, 350, 1);
    expect(segs.map((s) => ({ from: s.from, to: s.to, tokens: s.tokens }))).toEqual(planned);
    for (const s of segs) {
      expect(s).toMatchObject({ status: 'accepted', round: 0 });
      expect(s.ids).toEqual(items.slice(s.from, s.to + 1).map((it) => it.id));
    }
    // Every map request carries exactly its items, the 200-token reservation, and fits the window whole.
    const maps = mapsOf(fake.requests);
    expect(maps).toHaveLength(segs.length);
    for (const m of maps) {
      const seg = segs.find((s) => s.ordinal === ordinalOf(m));
      expect(itemsIn(m)).toEqual(Array.from({ length: (seg?.to ?? 0) - (seg?.from ?? 0) + 1 }, (_, k) => (seg?.from ?? 0) + k));
      expect(m.maxOutput).toBe(200);
      expect(tokensOf(m) + 200).toBeLessThanOrEqual(2_000);
    }
  });

  it('map/audit ceilings are 10 % of the summarizer window clamped to 64–2,000; final reductions send null', async () => {
    for (const [window, expected] of [
      [16_000, 1_600],
      [128_000, 2_000],
      [5_000, 500],
    ] as const) {
      const fake = new FakeSummarizer([passAudit], window, null);
      const res = await layered.run(input(history(40, 100), fake, { options: { forceMapReduce: true } }));
      expect(res.outcome).toBe('committed');
      for (const r of [...ofStage(fake.requests, 'map'), ...ofStage(fake.requests, 'audit')]) expect(r.maxOutput).toBe(expected);
      expect(ofStage(fake.requests, 'final-reduce').map((r) => r.maxOutput)).toEqual([null]);
    }
  });

  it('with a 400-token window (64-token reservation) a 100-token item cannot fit beside the map instructions: explicit failure', async () => {
    const fake = new FakeSummarizer([], 400, null);
    const res = await layered.run(input(history(40, 100), fake, { options: { forceMapReduce: true } }));
    expect(res.outcome).toBe('failed');
    expect(res.error).toContain(
      'item #0 (100 tokens) cannot fit a complete map request (instructions + item + 64 output tokens) in the 400-token summarizer window',
    );
    expect(fake.requests).toHaveLength(0);
  });

  it('fails explicitly, before sending anything, when one indivisible item cannot fit a map request', async () => {
    const items = history(40, 100);
    items[3] = sized(3, 'assistant', 1_900, 'huge');
    const fake = new FakeSummarizer([passAudit], 2_000, null);
    const res = await layered.run(input(items, fake, { window: 10_000 }));
    expect(res.outcome).toBe('failed');
    expect(res.error).toMatch(/item #3 \(1900 tokens\) cannot fit a complete map request .* it is never cut; accepted maps: none/);
    expect(fake.requests).toHaveLength(0);
    expect(res.mapreduce?.segments.find((s) => s.from === 3)?.status).toBe('failed');
  });
});

describe('layered MapReduce: concurrency and provider failures', () => {
  it('never runs more than 4 map calls at once (default), or the configured 1–4', async () => {
    for (const [concurrency, expected] of [
      [undefined, 4],
      [2, 2],
      [1, 1],
    ] as const) {
      const fake = new FakeSummarizer([slow, passAudit], 2_000, null);
      const options = { segmentTokens: 300, ...(concurrency ? { concurrency } : {}) };
      const res = await layered.run(input(history(40, 100), fake, { options }));
      expect(res.outcome).toBe('committed');
      expect(mapsOf(fake.requests)).toHaveLength(18); // 35 items, 2 per 300-token group
      expect(fake.maxInFlight).toBe(expected);
    }
  });

  it('a provider failure stops scheduling, drains in-flight maps, then runs the missing ones sequentially', async () => {
    let failed = false;
    const failOnce: FakeRule = (req) =>
      ordinalOf(req) === 2 && !failed ? ((failed = true), { error: { kind: 'http', status: 503, message: 'overloaded' } }) : null;
    const fake = new FakeSummarizer([failOnce, slow, passAudit], 2_000, null);
    const tracking = new Tracking(fake);
    const res = await layered.run(input(history(40, 100), tracking, { options: { segmentTokens: 300 } }));

    expect(res.outcome).toBe('committed');
    const maps = tracking.starts.filter((s) => s.label.startsWith('map '));
    // Maps 1–4 start together; 2 fails at once; 1, 3, 4 drain; then 2 and 5–18 one at a time.
    expect(maps.map((s) => Number(/^map (\d+)/.exec(s.label)?.[1]))).toEqual([
      1,
      2,
      3,
      4,
      2,
      ...Array.from({ length: 14 }, (_, k) => k + 5),
    ]);
    expect(maps.slice(4).every((s) => s.inFlight === 1)).toBe(true);
    expect(res.mapreduce?.segments.every((s) => s.status === 'accepted')).toBe(true);
    expect(res.mapreduce?.repartitions).toBe(0); // a generic error is not an overflow
    expect(res.notes.join('\n')).toMatch(/provider failure .*503.*15 missing map\(s\) run sequentially/);
  });

  it('fails with coverage when the sequential fallback fails too', async () => {
    const always: FakeRule = (req) => (ordinalOf(req) === 2 ? { error: { kind: 'network', message: 'reset' } } : null);
    const fake = new FakeSummarizer([always, slow, passAudit], 2_000, null);
    const res = await layered.run(input(history(40, 100), fake, { options: { segmentTokens: 300 } }));
    expect(res).toMatchObject({ outcome: 'failed', view: null });
    expect(res.error).toContain('map stage failed in the sequential fallback: map 2');
    expect(res.error).toContain(
      'accepted maps: 1, 3, 4 (6 items); failed: 2; pending: 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18 of 18',
    );
    const status = new Map(res.mapreduce?.segments.map((s) => [s.ordinal, s.status]));
    expect([status.get(1), status.get(2), status.get(5)]).toEqual(['accepted', 'failed', 'pending']);
    expect(ofStage(fake.requests, 'final-reduce')).toHaveLength(0);
  });
});

describe('layered MapReduce: overflow repartitions', () => {
  const overflowAbove =
    (n: number, window?: number): FakeRule =>
    (req) =>
      req.stage === 'map' && itemsIn(req).length > n
        ? { error: { kind: 'overflow', message: 'context length exceeded', ...(window ? { window } : {}) } }
        : null;

  it('re-packs only incomplete maps at a halved target; accepted maps are never regenerated', async () => {
    const fake = new FakeSummarizer([overflowAbove(3), passAudit], 2_000, null);
    const res = await layered.run(input(history(40, 100), fake));
    expect(res.outcome).toBe('committed');
    const mr = res.mapreduce;
    if (!mr) throw new Error('no trace');
    expect(mr.repartitions).toBe(2);
    // Round 0: 14 + 14 + 7 items; round 1: 7,7 | 7,7 | 3,3,1; round 2: 3,3,1 per 7-item segment.
    expect(mr.segments.filter((s) => s.round === 0).map((s) => s.to - s.from + 1)).toEqual([14, 14, 7]);
    expect(mr.segments.filter((s) => s.round === 1).map((s) => s.to - s.from + 1)).toEqual([7, 7, 7, 7, 3, 3, 1]);
    expect(mr.segments.filter((s) => s.status === 'repartitioned').map((s) => s.ordinal)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    // One request per segment: nothing is sent twice, accepted ones least of all.
    const sent = mapsOf(fake.requests).map(ordinalOf);
    expect(new Set(sent).size).toBe(sent.length);
    // The live segments cover the prefix exactly, in order.
    const live = mr.segments.filter((s) => s.status === 'accepted').sort((a, b) => a.from - b.from);
    expect(live.flatMap((s) => s.ids)).toEqual(
      history(40)
        .slice(0, 35)
        .map((it) => it.id),
    );
    // Halving the packing target does not shrink the request window or its reservation.
    expect(mapsOf(fake.requests).every((m) => m.maxOutput === 200)).toBe(true);
  });

  it('fails after 3 repartitions when overflow persists', async () => {
    const fake = new FakeSummarizer([overflowAbove(3), passAudit], 128_000, null);
    const res = await layered.run(input(history(40, 100), fake, { options: { forceMapReduce: true } }));
    expect(res.outcome).toBe('failed');
    expect(res.error).toContain('context overflow persists after 3 whole-item repartitions');
    expect(res.mapreduce?.repartitions).toBe(3);
    expect(Math.max(...(res.mapreduce?.segments.map((s) => s.round) ?? []))).toBe(3);
    expect(res.mapreduce?.segments.some((s) => s.status === 'accepted')).toBe(true);
    expect(res.error).toMatch(/accepted maps: \d/);
  });

  it('fails explicitly when a single-item segment overflows (no further item boundary)', async () => {
    const bad: FakeRule = (req) =>
      req.stage === 'map' && itemsIn(req).includes(5) ? { error: { kind: 'overflow', message: 'too long' } } : null;
    const fake = new FakeSummarizer([bad, passAudit], 2_000, null);
    const res = await layered.run(input(history(40, 100), fake, { options: { segmentTokens: 250 } }));
    expect(res.outcome).toBe('failed');
    expect(res.error).toMatch(/item #5, 100 tokens\) overflowed the summarizer and has no further item boundary/);
    expect(res.mapreduce?.repartitions).toBe(1);
    // Sent once as part of #4–#5, once alone: never an unchanged singleton retry.
    expect(
      mapsOf(fake.requests)
        .filter((m) => itemsIn(m).includes(5))
        .map(itemsIn),
    ).toEqual([[4, 5], [5]]);
  });

  it('a smaller reported window lowers the window used (and the reservation) for later requests', async () => {
    let reported = false;
    const once: FakeRule = (req) =>
      req.stage === 'map' && !reported
        ? ((reported = true), { error: { kind: 'overflow', message: 'max context 1500', window: 1_500 } })
        : null;
    const fake = new FakeSummarizer([once, passAudit], 2_000, null);
    const res = await layered.run(input(history(40, 100), fake, { options: { concurrency: 1 } }));
    expect(res.outcome).toBe('committed');
    const maps = mapsOf(fake.requests);
    expect(maps[0]?.maxOutput).toBe(200);
    for (const m of maps.slice(1)) {
      expect(m.maxOutput).toBe(150);
      expect(tokensOf(m) + 150).toBeLessThanOrEqual(1_500);
    }
    expect(res.notes.join('\n')).toContain('reported a 1500-token window (was 2000)');
  });
});

describe('layered MapReduce: cancellation and progress', () => {
  it('stops scheduling on cancellation and returns failed "cancelled" with accepted progress', async () => {
    const ac = new AbortController();
    const cancelAt3: FakeRule = (req) => (ordinalOf(req) === 3 ? (ac.abort(), { text: 'late' }) : null);
    const fake = new FakeSummarizer([cancelAt3, passAudit], 2_000, null);
    const res = await layered.run(input(history(40, 100), fake, { signal: ac.signal, options: { concurrency: 1, segmentTokens: 300 } }));
    expect(res).toMatchObject({ outcome: 'failed', error: 'cancelled', view: null });
    expect(mapsOf(fake.requests).map(ordinalOf)).toEqual([1, 2, 3]);
    const status = res.mapreduce?.segments.map((s) => s.status) ?? [];
    expect(status.slice(0, 3)).toEqual(['accepted', 'accepted', 'pending']);
    expect(res.mapreduce?.repartitions).toBe(0); // cancellation is not an overflow
    expect(res.notes.join('\n')).toContain('cancelled with progress kept: accepted maps: 1, 2 (4 items)');
  });

  it('reports map progress as done/total', async () => {
    const seen: StrategyProgress[] = [];
    const fake = new FakeSummarizer([passAudit], 2_000, null);
    await layered.run(input(history(40, 100), fake, { onProgress: (p) => seen.push(p) }));
    const maps = seen.filter((p) => p.stage === 'map');
    expect(maps[0]).toEqual({ stage: 'map', done: 0, total: 3 });
    expect(maps.at(-1)).toEqual({ stage: 'map', done: 3, total: 3 });
    expect(seen.some((p) => p.stage === 'reduce')).toBe(true);
    expect(seen.some((p) => p.stage === 'audit')).toBe(true);
  });
});
