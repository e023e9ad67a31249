import { describe, expect, it } from 'vitest';
import { costBreakdown, costOf, sumCosts } from '../../../src/shared/rerun/cost';

/* Cost from pinned prices only: unknown stays null, never an invented number. */

describe('costOf', () => {
  const prices = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

  it('prices each token class per million', () => {
    expect(
      costBreakdown({ input: 1_000_000, output: 100_000, cacheRead: 2_000_000, cacheWrite: 400_000, reasoning: 50_000 }, prices),
    ).toEqual({
      input: 3,
      output: 1.5,
      cacheRead: 0.6,
      cacheWrite: 1.5,
      total: 6.6,
    });
    expect(costOf({ input: 1000, output: 500 }, { input: 2, output: 8 })).toBeCloseTo(0.006, 10);
  });

  it('is null without prices, without counts, or with a cache class the prices do not cover', () => {
    expect(costOf({ input: 1, output: 1 }, undefined)).toBeNull();
    expect(costOf(null, prices)).toBeNull();
    expect(costOf({ output: 10 }, prices)).toBeNull();
    expect(costOf({ input: 10, output: 10, cacheRead: 5 }, { input: 1, output: 1 })).toBeNull();
    expect(costOf({ input: 10, output: 10, cacheRead: 0 }, { input: 1, output: 1 })).toBeCloseTo(0.00002, 12);
  });

  it('a sum with any unknown cost is unknown', () => {
    expect(sumCosts([0.5, 0.25])).toBe(0.75);
    expect(sumCosts([0.5, null])).toBeNull();
    expect(sumCosts([])).toBe(0);
  });
});
