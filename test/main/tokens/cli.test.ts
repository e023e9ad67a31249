import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseArgs, UsageError } from '../../../src/main/command/args';
import { estimateRequestTokens, tokensCommand, TOKENS_SPEC } from '../../../src/main/cli/tokens';
import { SessionInspector } from '../../../src/main/session/inspector';
import { loadSession } from '../../../src/main/session/load';
import { InlineCounter } from '../../../src/main/tokens/pool';

const fixture = (p: string): string => fileURLToPath(new URL(`../../../fixtures/${p}`, import.meta.url));
const FILE = fixture('tokens/cache-breaks.jsonl');

async function run(...argv: string[]): Promise<{ code: number; out: string }> {
  const out: string[] = [];
  const code = await tokensCommand(parseArgs(argv, TOKENS_SPEC), { out: (t) => out.push(t), err: (t) => out.push(t) });
  return { code, out: out.join('\n') };
}

/** A real Claude Code session (2.1.x): a compaction, long pauses, 5-minute cache writes. */
const REAL = fixture('claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl');

interface BreakJson {
  cause: string;
  tokens: number;
  cost: number | null;
  expected: number;
  read: number;
  certain: boolean;
}

describe('palimpsest tokens: prompt-cache breaks', () => {
  it('--json: each request’s break with its cause and tokens, and the session total', async () => {
    const { out } = await run(REAL, '--json', '--estimate');
    const j = JSON.parse(out) as {
      requests: { index: number; cacheBreak: BreakJson | null }[];
      cacheBreaks: { count: number; tokens: number; cost: number | null; byCause: Record<string, { count: number }> };
    };
    const breaks = j.requests.filter((r) => r.cacheBreak !== null);
    // 4 h and 19 min pauses (the cache written for 5 minutes), the compaction, and one the log cannot explain.
    expect(breaks.map((r) => [r.index, r.cacheBreak?.cause])).toEqual([
      [18, 'ttl'],
      [61, 'compaction'],
      [113, 'ttl'],
      [137, 'unexplained'],
    ]);
    expect(breaks.every((r) => r.cacheBreak && r.cacheBreak.tokens === r.cacheBreak.expected - r.cacheBreak.read)).toBe(true);
    expect(breaks.find((r) => r.index === 137)?.cacheBreak?.certain).toBe(false);
    expect(j.cacheBreaks.count).toBe(4);
    expect(j.cacheBreaks.tokens).toBe(breaks.reduce((n, r) => n + (r.cacheBreak?.tokens ?? 0), 0));
    // No prices given: the cost is unknown, never 0.
    expect(j.cacheBreaks.cost).toBeNull();
    expect(j.requests.filter((r) => r.cacheBreak === null).length).toBe(j.requests.length - 4);
  });

  it('--price prices each break; a malformed price is a usage error', async () => {
    const { out } = await run(REAL, '--json', '--estimate', '--price', 'claude-opus-4-6=5,25,0.5,6.25');
    const j = JSON.parse(out) as { requests: { cacheBreak: BreakJson | null }[]; cacheBreaks: { cost: number } };
    const costs = j.requests.flatMap((r) => (r.cacheBreak ? [r.cacheBreak.cost] : []));
    expect(costs.every((c) => c !== null && c > 0)).toBe(true);
    expect(j.cacheBreaks.cost).toBeCloseTo(costs.reduce((a, b) => (a as number) + (b as number), 0) as number, 9);
    // Between a cache read (0.5) and a cache write (6.25) per million, per token not read.
    for (const r of j.requests) if (r.cacheBreak) expect((r.cacheBreak.cost as number) / r.cacheBreak.tokens).toBeLessThanOrEqual(5.75e-6);
    await expect(run(REAL, '--price', 'opus=lots')).rejects.toThrow(UsageError);
  });

  it('text: the session line and a mark on each request that broke the cache', async () => {
    const { out } = await run(REAL, '--estimate');
    expect(out).toMatch(/cache {7}4 prompt-cache breaks: [0-9,]+ tokens not read from the cache — ttl 2 \([0-9,]+\), compaction 1/);
    expect(out).toContain('cost unknown (give prices with --price)');
    expect(out.split('\n').filter((l) => l.includes('CACHE BREAK'))).toHaveLength(4);
  });
});

describe('palimpsest tokens', () => {
  it('--json: every request with its account, the policy and the envelope', async () => {
    const { code, out } = await run(FILE, '--json', '--workers', '0');
    expect(code).toBe(0);
    const j = JSON.parse(out) as Record<string, unknown> & {
      requests: Record<string, unknown>[];
      policy: Record<string, unknown>;
      encoding: Record<string, unknown>;
    };
    expect(j.palimpsest).toBe(1);
    expect(j.encoding).toMatchObject({ name: 'o200k_base', exact: true });
    expect(j.requests).toHaveLength(6);
    const r = j.requests[4] as {
      estimatedTokens: number;
      counted: boolean;
      reportedTokens: number;
      byCategory: Record<string, number>;
      cache: { firstChange: { cause: string } };
      policy: { state: string };
    };
    expect(r.counted).toBe(true);
    expect(r.reportedTokens).toBe(510);
    expect(Object.values(r.byCategory).reduce((a, b) => a + b, 0)).toBe(r.estimatedTokens);
    expect(r.cache.firstChange.cause).toBe('mask');
    expect(r.policy.state).toBe('below');
    expect(j.policy).toMatchObject({ id: 'cosh', measure: 'next' });
    expect(j.view).toBeNull();
  });

  it('--request N: the view with its categories, policy lines and prompt cache', async () => {
    const { out } = await run(FILE, '--request', '4', '--workers', '0');
    expect(out).toContain('Request #4 (req-5)');
    expect(out).toContain('masked references');
    expect(out).toContain('BREAK mask at 4 (mid)');
    expect(out).toMatch(/trigger 102,400/);
    const j = JSON.parse((await run(FILE, '--request', '4', '--json', '--workers', '0')).out) as {
      view: { units: { label: string }[]; total: number; byCategory: Record<string, number> };
    };
    expect(j.view.units.map((u) => u.label)).toContain('t1');
    expect(Object.values(j.view.byCategory).reduce((a, b) => a + b, 0)).toBe(j.view.total);
  });

  it('--policy: a preset, edited, changes which requests would trigger', async () => {
    const low = JSON.parse((await run(FILE, '--json', '--workers', '0', '--policy', 'dsh,window=1000,trigger=0.7')).out) as {
      policy: { id: string; edited: string[]; triggers: number[] };
    };
    expect(low.policy.id).toBe('dsh*');
    expect(low.policy.edited).toEqual(['window', 'trigger']);
    // The log records a 128k window; the edited default only applies where a request has none.
    expect(low.policy.triggers).toEqual([]);
    const tight = JSON.parse((await run(FILE, '--json', '--workers', '0', '--policy', 'dsh,trigger=600')).out) as {
      policy: { triggers: number[] };
    };
    expect(tight.policy.triggers.length).toBeGreaterThan(0);
  });

  it('--estimate: figures at once from characters, labelled', async () => {
    const { out } = await run(FILE, '--estimate');
    expect(out).toContain('counted     nothing (--estimate)');
    expect(out).toMatch(/~/);
  });

  it('refuses bad usage', async () => {
    await expect(run(FILE, '--policy', 'nope', '--workers', '0')).rejects.toBeInstanceOf(UsageError);
    await expect(run(FILE, '--request', '99', '--workers', '0')).rejects.toThrow(/no request 99/);
    await expect(run(FILE, '--encoding', 'p50k')).rejects.toThrow(/--encoding/);
    await expect(run()).rejects.toThrow(/one <file>/);
  });

  it('estimateRequestTokens gives inspect its per-request counts', async () => {
    const s = await loadSession(FILE);
    try {
      const counts = await estimateRequestTokens(new SessionInspector(s), { counter: new InlineCounter() });
      expect(counts).toHaveLength(6);
      expect(counts.every((n) => typeof n === 'number' && n > 0)).toBe(true);
    } finally {
      await s.dispose();
    }
  });
});
