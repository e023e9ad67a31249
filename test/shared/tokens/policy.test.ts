import { describe, expect, it } from 'vitest';
import {
  amount,
  evaluatePolicy,
  parseAmount,
  parsePolicySpec,
  policyFromLog,
  policyLines,
  POLICY_PRESETS,
  PolicyError,
  type PolicyInput,
} from '../../../src/shared/tokens/policy';

const preset = (id: string) => {
  const p = POLICY_PRESETS[id];
  if (!p) throw new Error(`no preset ${id}`);
  return p;
};

describe('policy presets carry the numbers of their sources', () => {
  it('cosh', () => {
    const p = preset('cosh');
    // cosh, "Model-view policy" 2: "Reserve a recent raw window (20% of the effective context budget)".
    expect(p.rawTail).toEqual({ ratio: 0.2 });
    // cosh's source: the trigger is 80% of max_tokens.
    expect(p.trigger).toEqual({ ratio: 0.8 });
    expect(policyLines(p, 100_000)).toMatchObject({ trigger: 80_000, rawTail: 20_000 });
  });

  it('DeepSeek Harness', () => {
    const p = preset('dsh');
    // DeepSeek Harness: "thresholdRatio: 0.8 triggers at 80% of its window; retainRatio: 0.16
    // reserves a token budget equal to 16% of that window, not 16% of message count."
    expect(p.trigger).toEqual({ ratio: 0.8 });
    expect(p.rawTail).toEqual({ ratio: 0.16 });
    // DeepSeek Harness: "ctx.toolResultPruner acts when text blocks exceed 8192 Unicode code points by
    // default, retaining 4096 at the head, a fixed marker, and 1024 at the tail."
    expect(p.pruner).toEqual({ over: 8192, head: 4096, tail: 1024, unit: 'codepoints' });
    // DeepSeek Harness compaction-basic: floor(contextWindow * thresholdRatio).
    expect(policyLines(p, 131_071)).toMatchObject({ trigger: Math.floor(131_071 * 0.8), rawTail: Math.floor(131_071 * 0.16) });
  });

  it('Rind', () => {
    const p = preset('rind');
    // Rind's source: context_window_tokens * auto_compact_token_limit_percent / 100, defaults
    // 200000 and 90.
    expect(p.trigger).toEqual({ ratio: 0.9 });
    expect(p.defaultWindow).toBe(200_000);
    // Rind: "The summary request reserves an output budget of min(8,192, window/10) and then
    // leaves 5% of the window as headroom."
    expect(policyLines(p, 200_000)).toMatchObject({ trigger: 180_000, outputReserve: 8192, headroom: 10_000 });
    expect(policyLines(p, 32_000)).toMatchObject({ outputReserve: 3200, headroom: 1600 });
    expect(p.reserveFor).toBe('summary');
    // Rind: "compressed to their first 2,000 characters and last 2,000 characters".
    expect(p.pruner).toMatchObject({ head: 2000, tail: 2000, unit: 'chars' });
  });

  it('the preemptive compactor of the Conversation Compaction article', () => {
    const p = preset('preemptive');
    // The Conversation Compaction article: "Run preemptive at ~70% of effective context; keep
    // reactive as a backstop at ~95%"; CompactionConfig: soft_watermark 0.70, hard_watermark 0.95,
    // tail_keep 10, output_headroom_tokens 4096, max_failures 3, cooldown_turns 5;
    // model_context_limit 200_000.
    expect(p.trigger).toEqual({ ratio: 0.7 });
    expect(p.reactive).toEqual({ ratio: 0.95 });
    expect(p.measure).toBe('projected');
    expect(p.rawTailMessages).toBe(10);
    expect(p.outputReserve).toEqual({ tokens: 4096 });
    expect(p.breaker).toEqual({ failures: 3, cooldownTurns: 5 });
    expect(policyLines(p, null)).toMatchObject({
      window: 200_000,
      windowSource: 'policy',
      trigger: 140_000,
      reactive: 190_000,
      outputReserve: 4096,
    });
  });

  it('Claude Code and Codex, with where each number comes from', () => {
    const cc = preset('claude-code');
    // window − min(max output, 20,000) − 13,000 (anthropics/claude-code#31806, mnemo v1.2.16); the real
    // 2.1.39 log compacts at preTokens 170,251.
    expect(policyLines(cc, null)).toMatchObject({ window: 200_000, trigger: 167_000, outputReserve: 20_000, headroom: 13_000 });
    const cx = preset('codex');
    // Codex logs 95 % of the model window (258,400 = 272,000 × 0.95) and compacts at 90 % of the model window.
    expect(policyLines(cx, 258_400).trigger).toBe(244_800);
    expect(cx.rawTail).toEqual({ tokens: 20_000 });
    for (const p of Object.values(POLICY_PRESETS)) {
      expect(Object.keys(p.sources).length).toBeGreaterThan(0);
      expect(p.sources.trigger).toBeTruthy();
    }
  });
});

describe('editing a policy', () => {
  it('parses amounts', () => {
    expect(parseAmount('0.7')).toEqual({ ratio: 0.7 });
    expect(parseAmount('70%')).toEqual({ ratio: 0.7 });
    expect(parseAmount('150k')).toEqual({ tokens: 150_000 });
    expect(parseAmount('150000')).toEqual({ tokens: 150_000 });
    expect(parseAmount('none')).toBeNull();
    expect(() => parseAmount('lots')).toThrow(PolicyError);
    expect(amount({ ratio: 0.1, max: 8192 }, 200_000)).toBe(8192);
    expect(amount({ ratio: 1, tokens: -33_000 }, 200_000)).toBe(167_000);
    expect(amount({ ratio: 0.5 }, null)).toBeNull();
  });

  it('edits a preset and records what was edited', () => {
    const p = parsePolicySpec('dsh,trigger=0.6,window=64000,tail=none');
    expect(p.trigger).toEqual({ ratio: 0.6 });
    expect(p.defaultWindow).toBe(64_000);
    expect(p.rawTail).toBeNull();
    expect(p.edited).toEqual(['trigger', 'window', 'tail']);
    expect(p.id).toBe('dsh*');
    expect(parsePolicySpec('cosh')).toBe(POLICY_PRESETS.cosh);
    expect(() => parsePolicySpec('nope')).toThrow(/no policy "nope"/);
    expect(() => parsePolicySpec('cosh,colour=blue')).toThrow(/unknown policy field/);
    expect(() => parsePolicySpec('logged')).toThrow(/no compaction in this log/);
  });

  it('changes which requests would have triggered', () => {
    const sizes = [20_000, 40_000, 60_000, 75_000, 85_000, 30_000, 50_000, 70_000, 90_000];
    const inputs: PolicyInput[] = sizes.map((size, index) => ({
      index,
      window: 100_000,
      size,
      sizeSource: 'reported',
      next: size + 5_000,
      compactedAfter: index === 4 ? 'c1' : null,
    }));
    const base = evaluatePolicy(preset('cosh'), inputs);
    // cosh measures the next context (size + 5,000 here) against 80,000: #3 (80,000) starts a run
    // that #4 continues and the log's compaction after #4 ends; #8 (95,000) starts another.
    expect(base.triggers).toEqual([3, 8]);
    expect(base.compactions).toEqual([4]);
    expect(base.matched).toEqual([4]);
    expect(base.extra).toEqual([8]);

    const earlier = evaluatePolicy(parsePolicySpec('cosh,trigger=0.6'), inputs);
    expect(earlier.triggers).toEqual([2, 7]);
    expect(earlier.matched).toEqual([4]);
    expect(earlier.extra).toEqual([2, 7]);

    const onContext = evaluatePolicy(parsePolicySpec('cosh,measure=context'), inputs);
    expect(onContext.triggers).toEqual([4, 8]);

    const never = evaluatePolicy(parsePolicySpec('cosh,trigger=0.99'), inputs);
    expect(never.triggers).toEqual([]);
    expect(never.unpredicted).toEqual([4]);
  });

  it('uses the policy a log recorded, filling the rest from the harness preset', () => {
    const p = policyFromLog(
      { name: 'cosh (COMPACT_PCT 80, RECENT_RAW_PCT 20)', triggerRatio: 0.8, rawTailRatio: 0.2, window: 64_000 },
      preset('cosh'),
    );
    expect(p).not.toBeNull();
    expect(policyLines(p as NonNullable<typeof p>, null)).toMatchObject({ window: 64_000, trigger: 51_200, rawTail: 12_800 });
    expect(policyFromLog({ window: 258_400 }, preset('codex'))).toBeNull();
    const spec = parsePolicySpec('logged,trigger=0.5', p);
    expect(spec.trigger).toEqual({ ratio: 0.5 });
  });
});
