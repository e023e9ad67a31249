import { describe, expect, it } from 'vitest';
import type { Usage } from '../../../src/shared/model/event';
import { breakTotals, findCacheBreaks, MIN_BREAK_TOKENS, type BreakInput } from '../../../src/shared/tokens/cache-break';
import type { ChangeCause, PrefixAnalysis } from '../../../src/shared/tokens/prefix';

const MIN = 60_000;
const T0 = Date.parse('2026-03-01T10:00:00Z');

function prefix(previous: number | null, change?: ChangeCause): PrefixAnalysis {
  return {
    previous,
    sharedUnits: 0,
    sharedTokens: 0,
    firstChange: change ? { position: 3, unit: 'item 3', cause: change } : null,
    cacheBreak: change !== undefined && change !== 'append',
    where: change ? 'mid' : null,
    invalidatedTokens: 0,
    recomputedTokens: 0,
    appendedTokens: 0,
    appendedUnits: 0,
    reportedCacheRead: null,
    cacheReadRatio: null,
  };
}

/** Anthropic-style usage: input, cache reads, cache writes (5-minute unless `long`). */
function anth(read: number, write: number, long?: boolean): Usage {
  return { input: 3, cacheRead: read, cacheWrite: write, output: 100, ...(long === undefined ? {} : { cacheWrite1h: long ? write : 0 }) };
}

/** OpenAI-style usage: the prompt, the part read from the cache (no writes reported). */
function openai(prompt: number, cached: number): Usage {
  return { input: prompt - cached, cacheRead: cached, output: 100 };
}

function row(index: number, usage: Usage | null, atMin: number | null, change?: ChangeCause, model = 'm'): BreakInput {
  return { index, model, usage, at: atMin === null ? null : T0 + atMin * MIN, cache: prefix(index === 0 ? null : index - 1, change) };
}

describe('prompt-cache breaks', () => {
  it('finds none when every request reads what the one before left cacheable', () => {
    // Real Claude Code pattern: each request reads the previous read + write and writes its new tail.
    const rows = [row(0, anth(17_842, 8_216), 0), row(1, anth(26_058, 1_533), 0.2), row(2, anth(27_591, 1_128), 0.3)];
    expect(findCacheBreaks(rows)).toEqual([null, null, null]);
    expect(breakTotals(findCacheBreaks(rows))).toEqual({ count: 0, tokens: 0, cost: 0, byCause: {} });
  });

  it('names a compaction that rewrote the history before the cached prefix ended, with the tokens not read', () => {
    const rows = [row(0, anth(70_000, 2_000), 0), row(1, anth(21_496, 10_519), 0.5, 'compaction')];
    const [, b] = findCacheBreaks(rows);
    // Its own size: 3 input + 21,496 read + 10,519 written.
    expect(b).toMatchObject({ cause: 'compaction', tokens: 32_018 - 21_496, expected: 32_018, read: 21_496, previous: 0, certain: true });
  });

  it('bounds what was cacheable by the request’s own size', () => {
    const rows = [row(0, openai(180_000, 179_000), 0), row(1, openai(20_000, 5_504), 1, 'compaction')];
    expect(findCacheBreaks(rows)[1]).toMatchObject({ expected: 20_000, tokens: 14_496 });
  });

  it('blames the 5-minute lifetime only when the writes were 5-minute ones, and not a 1-hour cache', () => {
    const short = [row(0, anth(50_000, 1_000, false), 0), row(1, anth(20_000, 31_500, false), 7)];
    expect(findCacheBreaks(short)[1]).toMatchObject({ cause: 'ttl', certain: true, gapMs: 7 * MIN });
    // The same gap under a 1-hour cache: the lifetime did not pass, so the cause is not the TTL.
    const long = [row(0, anth(50_000, 1_000, true), 0), row(1, anth(20_000, 31_500, true), 7)];
    expect(findCacheBreaks(long)[1]).toMatchObject({ cause: 'unexplained', certain: false });
    // A lifetime the log does not record: past 5 minutes is an uncertain TTL, past an hour a certain one.
    const unknown = [row(0, anth(50_000, 1_000), 0), row(1, anth(20_000, 31_500), 7), row(2, anth(20_000, 31_500), 70)];
    const [, u1, u2] = findCacheBreaks(unknown);
    expect(u1).toMatchObject({ cause: 'ttl', certain: false });
    expect(u2).toMatchObject({ cause: 'ttl', certain: true });
  });

  it('names the first request on a model after another as a model change', () => {
    const rows = [
      row(0, anth(40_000, 2_000), 0, undefined, 'opus'),
      { ...row(1, anth(0, 42_500), 0.5, undefined, 'sonnet'), cache: prefix(null) },
    ];
    expect(findCacheBreaks(rows)[1]).toMatchObject({ cause: 'model', previous: null, tokens: 42_000 });
  });

  it('maps the log’s first change to system, tools, masked, rewind; nothing logged is unexplained', () => {
    const causes = (['system', 'tools', 'mask', 'prune', 'shorter', 'append', 'extend'] as ChangeCause[]).map(
      (c) => findCacheBreaks([row(0, openai(100_000, 90_000), 0), row(1, openai(101_000, 5_504), 1, c)])[1]?.cause,
    );
    expect(causes).toEqual(['system', 'tools', 'masked', 'masked', 'rewind', 'unexplained', 'unexplained']);
  });

  it('ignores shortfalls below the smallest cacheable prefix, and requests that report no cache read', () => {
    const small = [row(0, openai(100_000, 99_000), 0), row(1, openai(100_500, 100_000 - (MIN_BREAK_TOKENS - 1)), 0.1)];
    expect(findCacheBreaks(small)[1]).toBeNull();
    const none = [row(0, openai(100_000, 99_000), 0), row(1, { input: 100_500, output: 10 }, 0.1)];
    expect(findCacheBreaks(none)[1]).toBeNull();
  });

  it('finds none on a model whose provider never reads from a cache', () => {
    // As a real Codex 0.121 session on a third-party model writes it: cached_input_tokens is 0 on
    // every request, so a request's whole prompt was never cacheable as far as the log shows.
    const rows = [row(0, openai(20_000, 0), 0), row(1, openai(25_000, 0), 0.5), row(2, openai(31_000, 0), 1)];
    expect(findCacheBreaks(rows)).toEqual([null, null, null]);
    // The same shortfall on a model that did read from its cache is a break.
    const cached = [row(0, openai(20_000, 0), 0), row(1, openai(25_000, 19_000), 0.5), row(2, openai(31_000, 0), 1)];
    expect(findCacheBreaks(cached)[2]).toMatchObject({ cause: 'unexplained', tokens: 25_000, read: 0 });
  });

  it('prices a break as the re-computed tokens beyond a cache read, and leaves it unpriced without prices', () => {
    const rows = [row(0, anth(70_000, 2_000), 0), row(1, anth(22_000, 60_000), 1, 'system')];
    // 50,000 tokens not read, all written again: (3.75 − 0.30) per million each.
    const prices = new Map([['m', { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }]]);
    expect(findCacheBreaks(rows, prices)[1]?.cost).toBeCloseTo((50_000 * (3.75 - 0.3)) / 1e6, 10);
    expect(findCacheBreaks(rows)[1]?.cost).toBeNull();
    // An OpenAI-style break is re-read at the input price; `*` prices every model.
    const o = [row(0, openai(100_000, 90_000), 0), row(1, openai(101_000, 5_504), 1, 'append')];
    const all = new Map([['*', { input: 1.25, output: 10, cacheRead: 0.125 }]]);
    expect(findCacheBreaks(o, all)[1]?.cost).toBeCloseTo((94_496 * (1.25 - 0.125)) / 1e6, 10);
    // A session total with one unpriced break has no total cost (a partial sum would under-report).
    expect(breakTotals([...findCacheBreaks(o, all), ...findCacheBreaks(rows)]).cost).toBeNull();
  });
});
