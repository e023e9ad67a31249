import { afterEach, describe, expect, it } from 'vitest';
import {
  createTokenCounter,
  defaultWorkerSpec,
  InlineCounter,
  PoolClosedError,
  PoolFullError,
  WorkerPool,
} from '../../../src/main/tokens/pool';

const pools: { dispose(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.dispose()));
});

const TEXTS = ['hello world', 'export const x = 1;', 'Größe café 日本語 🚀', ''];

describe('token worker pool', () => {
  it('starts nothing until the first batch, and counts like the inline counter', async () => {
    const pool = new WorkerPool({ size: 2 });
    pools.push(pool);
    expect(pool.started).toBe(0);
    const inline = new InlineCounter();
    pools.push(inline);
    const [a, b] = await Promise.all([pool.count('o200k_base', TEXTS), inline.count('o200k_base', TEXTS)]);
    expect([...a.tokens]).toEqual([...b.tokens]);
    expect([...a.tokens]).toEqual([2, 7, expect.any(Number), 0]);
    expect(pool.started).toBe(1);
    // Two batches at once use both workers.
    await Promise.all([pool.count('cl100k_base', TEXTS), pool.count('o200k_base', TEXTS)]);
    expect(pool.started).toBe(2);
  }, 60_000);

  it('warm starts every thread ahead of the first count, once, and counts the same after', async () => {
    const pool = new WorkerPool({ size: 2 });
    pools.push(pool);
    pool.warm('o200k_base');
    expect(pool.started).toBe(2);
    pool.warm('o200k_base');
    expect(pool.started).toBe(2);
    expect(pool.queued).toBe(0);
    const inline = new InlineCounter();
    pools.push(inline);
    const [a, b] = await Promise.all([pool.count('o200k_base', TEXTS), inline.count('o200k_base', TEXTS)]);
    expect([...a.tokens]).toEqual([...b.tokens]);
  }, 60_000);

  it('a warm-up that fails is not reported by itself; the first count reports the failure', async () => {
    const pool = new WorkerPool({ size: 1, worker: { url: new URL('file:///nowhere/worker.js') } });
    pools.push(pool);
    pool.warm('o200k_base');
    await expect(pool.count('o200k_base', TEXTS)).rejects.toThrow();
  }, 60_000);

  it('is bounded: batches past the queue limit are refused, not buffered', async () => {
    const pool = new WorkerPool({ size: 1, maxQueued: 2 });
    pools.push(pool);
    const running = pool.count('o200k_base', TEXTS);
    const queued = [pool.count('o200k_base', TEXTS)];
    // One batch runs, the queue holds two: the fourth is refused.
    queued.push(pool.count('o200k_base', TEXTS));
    await expect(pool.count('o200k_base', TEXTS)).rejects.toBeInstanceOf(PoolFullError);
    await Promise.all([running, ...queued]);
  }, 60_000);

  it('cancels a queued batch with its AbortSignal and a running one without waiting for it', async () => {
    const pool = new WorkerPool({ size: 1 });
    pools.push(pool);
    const first = new AbortController();
    const second = new AbortController();
    const running = pool.count('o200k_base', TEXTS, first.signal);
    const waiting = pool.count('o200k_base', TEXTS, second.signal);
    expect(pool.queued).toBe(1);
    second.abort(new Error('user moved on'));
    await expect(waiting).rejects.toThrow('user moved on');
    expect(pool.queued).toBe(0);
    first.abort();
    await expect(running).rejects.toThrow();
    // The pool still works afterwards.
    expect((await pool.count('o200k_base', ['still here'])).tokens[0]).toBe(2);
    const aborted = new AbortController();
    aborted.abort();
    await expect(pool.count('o200k_base', TEXTS, aborted.signal)).rejects.toThrow();
  }, 60_000);

  it('rejects what is pending when closed, and everything after', async () => {
    const pool = new WorkerPool({ size: 1 });
    const settled = Promise.allSettled([pool.count('o200k_base', TEXTS), pool.count('o200k_base', TEXTS)]);
    await pool.dispose();
    for (const r of await settled) {
      expect(r.status).toBe('rejected');
      if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(PoolClosedError);
    }
    await expect(pool.count('o200k_base', TEXTS)).rejects.toBeInstanceOf(PoolClosedError);
    expect(pool.started).toBe(0);
    await pool.dispose();
  }, 60_000);

  it('finds its worker from source, and falls back to inline where there is none', () => {
    expect(defaultWorkerSpec()?.url.pathname.endsWith('/src/main/tokens/worker.ts')).toBe(true);
    expect(defaultWorkerSpec('file:///nowhere/dist/cli.js')).toBeNull();
    const c = createTokenCounter({ worker: undefined, inline: true });
    expect(c.kind).toBe('inline');
  });

  it('importing the token modules creates no pool', async () => {
    const before = process.getActiveResourcesInfo().filter((r) => r === 'MessagePort' || r === 'Worker').length;
    for (const m of ['cache', 'encoder', 'pool', 'service']) await import(`../../../src/main/tokens/${m}.ts`);
    await import('../../../src/main/tokens/worker');
    const after = process.getActiveResourcesInfo().filter((r) => r === 'MessagePort' || r === 'Worker').length;
    expect(after).toBe(before);
  });
});
