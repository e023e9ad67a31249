import { describe, expect, it } from 'vitest';
import { microcompactRule } from '../../../src/shared/compat/claude-unlogged';
import { type McCall, type McInput, MC_NONE, evaluate, resultTokens, selectClearing } from '../../../src/main/dialects/claude-microcompact';

/*
 * Claude Code's microcompact rule as read from its code (src/shared/compat/claude-unlogged.ts), on
 * the numbers of the saved 2.1.9 run (fixtures/fidelity/logs/claude-code-2.1.9/microcompact): nine
 * Bash results of 28,013 characters, then a reply reporting 141,001 tokens. On the wire the client
 * cleared the four oldest before the next call, and none after the resume.
 */

const RULE = microcompactRule('2.1.9');
if (!RULE) throw new Error('2.1.9 has a microcompact rule');
const DUMP = resultTokens([{ type: 'text', text: 'x'.repeat(28_013) }], RULE.imageTokens);
const calls = (n: number, name = 'Bash'): McCall[] => Array.from({ length: n }, (_, i) => ({ id: `c${i + 1}`, name, tokens: DUMP }));
// The bracket the fidelity runs saw for 2.1.9 and claude-sonnet-4-5 (src/shared/compat/versions.ts).
const TRIGGER = { below: 153_000, at: 157_000 };
const input = (over: Partial<McInput>): McInput => ({
  rule: RULE,
  calls: calls(9),
  usage: { low: 141_001, high: 141_000 + 64_000 },
  trigger: TRIGGER,
  sameProcess: true,
  state: MC_NONE,
  ...over,
});

describe('the client estimate and its selection', () => {
  it('estimates a result as its length / 4, rounded, and an image at a fixed amount', () => {
    expect(DUMP).toBe(7003);
    expect(resultTokens([{ type: 'text', text: 'abcdef' }, { type: 'image' }], 2000)).toBe(2 + 2000);
  });

  it('clears the oldest results, never the last three, until 40,000 remain', () => {
    const { ids, saved } = selectClearing(RULE, calls(9), new Set());
    expect([...ids]).toEqual(['c1', 'c2', 'c3', 'c4']);
    expect(saved).toBe(4 * DUMP);
  });

  it('skips tools it does not clear and results already cleared', () => {
    const mixed: McCall[] = [...calls(2, 'TodoWrite'), ...calls(9)].map((c, i) => ({ ...c, id: `k${i}` }));
    expect([...selectClearing(RULE, mixed, new Set()).ids]).toEqual(['k2', 'k3', 'k4', 'k5']);
    expect([...selectClearing(RULE, calls(9), new Set(['c1'])).ids]).toEqual(['c2', 'c3', 'c4']);
  });
});

describe('evaluate', () => {
  it('is certain where the last reply was past the warning threshold and the clearing saves enough', () => {
    const r = evaluate(input({}));
    expect([...r.certain]).toEqual(['c1', 'c2', 'c3', 'c4']);
    expect(r.maybe.size).toBe(0);
  });

  it('clears nothing, certainly, where the last reply was well under the threshold', () => {
    const r = evaluate(input({ calls: calls(8), usage: { low: 67_962, high: 67_961 + 64_000 } }));
    expect(r.certain.size + r.maybe.size).toBe(0);
  });

  it('names the results maybe cleared where the reply is too close to a threshold known only as a bracket', () => {
    const r = evaluate(input({ usage: { low: 135_000, high: 135_000 } }));
    expect(r.certain.size).toBe(0);
    expect([...r.maybe]).toEqual(['c1', 'c2', 'c3', 'c4']);
  });

  it('names them maybe cleared for a model whose trigger is not known, and for a version whose code was not read', () => {
    expect([...evaluate(input({ trigger: null })).maybe]).toEqual(['c1', 'c2', 'c3', 'c4']);
    const unread = microcompactRule('2.1.50');
    expect(unread?.read).toBe(false);
    if (unread) expect(evaluate(input({ rule: unread })).certain.size).toBe(0);
  });

  it('after a prompt, what the process cleared may be back (a resumed session starts afresh)', () => {
    const first = evaluate(input({}));
    const next = evaluate(input({ usage: { low: 63_001, high: 63_000 + 64_000 }, sameProcess: false, state: first.state }));
    expect(next.certain.size).toBe(0);
    expect([...next.maybe]).toEqual(['c1', 'c2', 'c3', 'c4']);
    // Within one turn the same process keeps them cleared.
    const same = evaluate(input({ usage: { low: 63_001, high: 63_000 + 64_000 }, sameProcess: true, state: first.state }));
    expect([...same.certain]).toEqual(['c1', 'c2', 'c3', 'c4']);
  });
});

describe('versions', () => {
  it('2.1.9 logs a clearing only interactively, 2.0.77 never, and 2.1.70 and later have no such rule', () => {
    expect(microcompactRule('2.1.9')?.logged).toBe('interactive');
    expect(microcompactRule('2.1.39')?.read).toBe(true);
    expect(microcompactRule('2.0.77')?.logged).toBe('never');
    expect(microcompactRule('2.1.70')).toBeNull();
    expect(microcompactRule('2.1.97')).toBeNull();
    expect(microcompactRule('2.1.332')).toBeNull();
    expect(microcompactRule(undefined)).toBeNull();
  });
});
