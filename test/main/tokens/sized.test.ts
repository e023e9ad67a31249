import { describe, expect, it } from 'vitest';
import type { EncodingName } from '../../../src/shared/tokens/encoding';
import { newStats } from '../../../src/main/tokens/encoder';
import { InlineCounter, type BatchResult, type TokenCounter } from '../../../src/main/tokens/pool';
import { createCommandCounter, SizedCounter } from '../../../src/main/tokens/sized';

/** A counter that records the batches it was given. */
class Recording implements TokenCounter {
  readonly batches: string[][] = [];
  disposed = false;
  constructor(
    readonly kind: TokenCounter['kind'],
    readonly threads: number,
  ) {}
  warm(): void {}
  async count(_encoding: EncodingName, texts: readonly string[]): Promise<BatchResult> {
    this.batches.push([...texts]);
    const zeros = new Int32Array(texts.length);
    return { tokens: zeros, estimated: new Int32Array(texts.length), stats: newStats(), ms: 0 };
  }
  async dispose(): Promise<void> {
    this.disposed = true;
  }
}

describe('sized token counter', () => {
  it('counts on the calling thread up to its size, and starts the pool only past it', async () => {
    const inline = new Recording('inline', 1);
    const pool = new Recording('workers', 2);
    let started = 0;
    const c = new SizedCounter(inline, () => (started++, pool), 10);
    expect([c.kind, c.threads]).toEqual(['inline', 1]);
    await c.count('o200k_base', ['abcd', 'efgh']);
    await c.count('o200k_base', ['ij']);
    expect(started).toBe(0);
    await c.count('o200k_base', ['k']);
    await c.count('o200k_base', ['l']);
    expect(started).toBe(1);
    expect(inline.batches).toEqual([['abcd', 'efgh'], ['ij']]);
    expect(pool.batches).toEqual([['k'], ['l']]);
    expect([c.kind, c.threads]).toEqual(['workers', 2]);
    await c.dispose();
    expect([inline.disposed, pool.disposed]).toEqual([true, true]);
  });

  it('never starts a pool for a short session, and counts as the inline counter does', async () => {
    const c = createCommandCounter();
    const texts = ['hello world', 'Größe café 日本語 🚀'];
    try {
      const [a, b] = await Promise.all([c.count('o200k_base', texts), new InlineCounter().count('o200k_base', texts)]);
      expect([...a.tokens]).toEqual([...b.tokens]);
      expect(c.kind).toBe('inline');
    } finally {
      await c.dispose();
    }
  }, 60_000);
});
