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
