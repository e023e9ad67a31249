import { describe, expect, it } from 'vitest';
import { ChainSummarizer } from '../../../src/main/providers/chain';
import { Limiter, ProviderLimiters } from '../../../src/main/providers/limiter';
import { fixedKey, pin, request, startMock } from './helpers';

/* The per-endpoint concurrency limiter: never above its limit, FIFO, and abortable while queued. */

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('Limiter', () => {
  it('never runs more than its limit and hands slots over in arrival order', async () => {
    const l = new Limiter(2);
    const signal = new AbortController().signal;
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    const gates = Array.from({ length: 6 }, deferred);
    const tasks = gates.map(async (g, i) => {
      const release = await l.acquire(signal);
      if (!release) throw new Error('not aborted, so a slot must come');
      order.push(i);
      running++;
      peak = Math.max(peak, running);
      await g.promise;
      running--;
      release();
    });
    await Promise.resolve();
    expect(l.running).toBe(2);
    expect(l.waiting).toBe(4);
    for (const g of gates) {
      g.resolve();
      await new Promise((r) => setTimeout(r, 1));
    }
    await Promise.all(tasks);
    expect(peak).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
    expect(l.running).toBe(0);
  });

  it('a caller aborted while queued leaves the queue at once and takes no slot', async () => {
    const l = new Limiter(1);
    const first = await l.acquire(new AbortController().signal);
    const ctl = new AbortController();
    const queued = l.acquire(ctl.signal);
    const after = l.acquire(new AbortController().signal);
    expect(l.waiting).toBe(2);
    ctl.abort();
    expect(await queued).toBeNull();
    expect(l.waiting).toBe(1);
    first?.();
    const next = await after;
    expect(next).not.toBeNull();
    expect(l.running).toBe(1);
    next?.();
    next?.(); // a second release is ignored
    expect(l.running).toBe(0);
    expect(await l.acquire(ctl.signal)).toBeNull();
  });

  it('is keyed by provider and baseUrl, with per-key and per-provider limits', () => {
    const p = new ProviderLimiters({ defaultLimit: 3, limits: { gemini: 1, 'openai|http://127.0.0.1:11434/v1': 2 } });
    expect(p.for({ provider: 'anthropic', baseUrl: undefined }).limit).toBe(3);
    expect(p.for({ provider: 'gemini', baseUrl: undefined }).limit).toBe(1);
    expect(p.for({ provider: 'openai', baseUrl: 'http://127.0.0.1:11434/v1' }).limit).toBe(2);
    expect(p.for({ provider: 'openai', baseUrl: undefined })).not.toBe(p.for({ provider: 'openai', baseUrl: 'http://127.0.0.1:11434/v1' }));
    expect(p.for({ provider: 'anthropic', baseUrl: undefined })).toBe(p.for({ provider: 'anthropic', baseUrl: undefined }));
    expect(new Limiter(0).limit).toBe(1);
  });

  it('holds concurrent summary calls to one endpoint at the limit (measured at the server)', async () => {
    const m = await startMock(
      { steps: [], fallback: { content: [{ type: 'text', text: 'Objective: slow but complete.' }] } },
      { eventDelayMs: 20 },
    );
    const s = new ChainSummarizer([pin('anthropic', m)], { keys: fixedKey(), limiters: new ProviderLimiters({ defaultLimit: 2 }) });
    let peak = 0;
    const probe = setInterval(() => {
      peak = Math.max(peak, m.active);
    }, 2);
    const calls = await Promise.all(
      Array.from({ length: 6 }, (_, i) => s.summarize(request({ label: `map ${i}` }), new AbortController().signal)),
    );
    clearInterval(probe);
    expect(calls.every((c) => c.text === 'Objective: slow but complete.')).toBe(true);
    expect(m.requests).toHaveLength(6);
    expect(peak).toBe(2);
  });
});
