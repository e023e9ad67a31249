import { describe, expect, it } from 'vitest';
import { renderItem, viewTokens } from '../../../../src/shared/strategies/common/render';
import { charCounter } from '../common/char-counter';
import { preemptive } from '../../../../src/shared/strategies/preemptive';
import { halfPoint } from '../../../../src/shared/strategies/preemptive/summarize';
import type { SourceItem, SourceView } from '../../../../src/shared/strategies/types';
import { FakeSummarizer } from '../fake-summarizer';
import { assistant, call, chars, input, result, sys, textOf, user, view } from '../common/build';

const SUMMARY = {
  session_intent: 'fix the build',
  files_touched: ['src/app.ts'],
  decisions: ['keep the API'],
  pending_questions: [],
  next_steps: ['run npm test'],
};
const json = () => new FakeSummarizer([() => ({ text: JSON.stringify(SUMMARY) })]);

/** n alternating user/assistant messages m0..m(n-1), each `size` characters. */
const chat = (n: number, size = 200): SourceItem[] =>
  Array.from({ length: n }, (_, i) => (i % 2 === 0 ? user(`m${i}`, `${i}: ${chars(size)}`) : assistant(`m${i}`, `${i}: ${chars(size)}`)));
const ids = (v: { items: readonly { id: string }[] } | null | undefined) => v?.items.map((i) => i.id);

describe('preemptive: watermarks on the projected next turn', () => {
  const base = [...chat(12), call('c1', 'k1', 'bash', '{"cmd":"ls"}'), result('r1', 'k1', chars(2_000, 'l')), user('u', 'next')];

  /** Pad until the projection is a multiple of 7, so the window projected × 10/7 is whole and 0.70 of it is exactly the projection. */
  function padded(): { source: SourceView; projected: number; pending: number } {
    for (let extra = 0; ; extra++) {
      const items = [...base];
      items[0] = user('m0', textOf(base[0]) + chars(extra, '.'));
      const source = view(items);
      const pending = charCounter(renderItem(items[13] as SourceItem, 13));
      const projected = viewTokens(source, charCounter) + 4_096 + pending;
      if (projected % 7 === 0) return { source, projected, pending };
    }
  }

  it('projects buffer + 4,096 output headroom + the latest tool result, and fires at exactly 0.70 of the window', async () => {
    const { source, projected, pending } = padded();
    const before = viewTokens(source, charCounter);
    const limit = (projected * 10) / 7;
    const res = await preemptive.run(input(source, { window: limit, summarizer: json() }));
    expect(res.outcome).toBe('committed');
    const f = (n: number) => n.toLocaleString('en-US');
    expect(res.notes[0]).toBe(
      `projected next turn ${f(projected)} = buffer ${f(before)} + output headroom 4,096 + expected tool result ${f(pending)}; soft ${f(projected)}, hard ${f((limit * 95) / 100)} of ${f(limit)}`,
    );
    expect(res.notes[1]).toBe('preemptive trigger');

    const below = await preemptive.run(input(source, { window: limit + 10, summarizer: json() }));
    expect(below).toMatchObject({ outcome: 'failed', error: 'below the soft watermark: no compaction', calls: [] });
  });

  it('labels a projection at or over 0.95 of the window reactive, and takes an explicit expected tool-result size', async () => {
    const source = view(base);
    const before = viewTokens(source, charCounter);
    const res = await preemptive.run(
      input(source, { window: 20_000, summarizer: json(), options: { pendingToolResult: 19_000 - before - 4_096 } }),
    );
    expect(res.notes[0]).toContain('projected next turn 19,000 = ');
    expect(res.notes[1]).toBe('reactive trigger');
  });
});

describe('preemptive: summary block and tail', () => {
  it('replaces all but the last 10 messages with the PRIOR SESSION SUMMARY block; the system item stays first', async () => {
    const items = [sys('s0', 'You are an agent.'), ...chat(14)];
    const fake = json();
    const res = await preemptive.run(input(view(items, null), { window: 5_000, summarizer: fake, options: { force: true } }));
    expect(res.outcome).toBe('committed');
    expect(ids(res.view)).toEqual(['s0', 'preemptive:1', ...items.slice(5).map((i) => i.id)]);
    const block = res.view?.items[1];
    expect(textOf(block)).toBe(
      'PRIOR SESSION SUMMARY (immutable until next compaction):\n{\n  "session_intent": "fix the build",\n  "files_touched": [\n    "src/app.ts"\n  ],\n  "decisions": [\n    "keep the API"\n  ],\n  "pending_questions": [],\n  "next_steps": [\n    "run npm test"\n  ]\n}',
    );
    expect(block).toMatchObject({
      role: 'user',
      derivation: { kind: 'checkpoint', compactionId: 'rerun', covers: ['m0', 'm1', 'm2', 'm3'], part: 'summary' },
    });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({ stage: 'one-shot', maxOutput: 1_024, system: null });
    expect(fake.requests[0]?.messages[0]?.text).toContain('MESSAGES:\n[#1 user]\n0: ');
    expect(fake.requests[0]?.messages[0]?.text).not.toContain('[#5 ');
  });

  it('moves the 10-message cut back to the start of a tool unit instead of orphaning a result', async () => {
    const items = [...chat(5), call('c1', 'k1'), result('r1', 'k1', 'ok'), ...chat(9).map((m) => ({ ...m, id: `t${m.id}` }))];
    const res = await preemptive.run(input(view(items), { window: 5_000, summarizer: json(), options: { force: true } }));
    // items.length 16: the last 10 start at r1 (index 6); the tail starts at its call c1 (index 5).
    expect(ids(res.view)).toEqual(['preemptive:1', 'c1', 'r1', ...items.slice(7).map((i) => i.id)]);
  });
});

describe('preemptive: failures fall back to loud head/tail truncation', () => {
  const items = [sys('s0', 'You are an agent.'), ...chat(14)];
  const run = (fake: FakeSummarizer | null, options: Record<string, unknown> = {}) =>
    preemptive.run(input(view(items, null), { window: 5_000, summarizer: fake, options: { force: true, ...options } }));

  it('malformed JSON: system + marker + last 10, outcome fallback, call recorded, breaker counts 1 of 3', async () => {
    const fake = new FakeSummarizer([() => ({ text: 'Sure! Here is the summary.' })]);
    const res = await run(fake);
    expect(res.outcome).toBe('fallback');
    expect(res.error).toMatch(/^summary: malformed JSON from the summarizer: /);
    expect(ids(res.view)).toEqual(['s0', 'preemptive:1', ...items.slice(5).map((i) => i.id)]);
    expect(res.view?.items[1]).toEqual({
      id: 'preemptive:1',
      role: 'user',
      blocks: [{ type: 'text', text: '[earlier history truncated; compactor unavailable]' }],
      derivation: { kind: 'marker', of: ['m0', 'm1', 'm2', 'm3'], fallback: 'truncation' },
    });
    expect(res.calls).toHaveLength(1);
    expect(res.notes).toContain('circuit breaker closed (1 of 3 consecutive failures)');
    expect(res.tokens.after).toBe(viewTokens(res.view ?? view([]), charCounter));
  });

  it('missing keys and an unavailable summarizer are failures too', async () => {
    const missing = await run(new FakeSummarizer([() => ({ text: '{"session_intent": "x"}' })]));
    expect(missing).toMatchObject({
      outcome: 'fallback',
      error: 'summary: summarizer missing keys: files_touched, decisions, pending_questions, next_steps',
    });
    expect(await run(null)).toMatchObject({ outcome: 'fallback', error: 'summarizer unavailable', calls: [] });
  });

  it('empty load-bearing fields fail above 20 summarised messages only', async () => {
    const empty = () => new FakeSummarizer([() => ({ text: JSON.stringify({ ...SUMMARY, files_touched: [], decisions: [] }) })]);
    const many = [...chat(31)]; // 21 summarised + 10 kept
    const failed = await preemptive.run(input(view(many), { window: 5_000, summarizer: empty(), options: { force: true } }));
    expect(failed.error).toBe(
      'summary: summarizer returned empty load-bearing fields (no decisions and no files_touched after 21 messages)',
    );
    const ok = await preemptive.run(input(view(many.slice(1)), { window: 5_000, summarizer: empty(), options: { force: true } }));
    expect(ok.outcome).toBe('committed');
  });

  it('the third consecutive failure trips the breaker; an open breaker truncates without a call; the cool-down resets it', async () => {
    const bad = () => new FakeSummarizer([() => ({ text: 'nope' })]);
    const third = await run(bad(), { breaker: { turn: 2, consecutiveFailures: 2, trippedAtTurn: null } });
    expect(third.notes).toContain('circuit breaker tripped at turn 3');
    const openFake = json();
    const open = await run(openFake, { breaker: { turn: 3, consecutiveFailures: 3, trippedAtTurn: 3 } });
    expect(open).toMatchObject({ outcome: 'fallback', error: 'circuit breaker open: compaction not attempted' });
    expect(openFake.requests).toHaveLength(0);
    const reset = await run(json(), { breaker: { turn: 7, consecutiveFailures: 3, trippedAtTurn: 3 } });
    expect(reset.outcome).toBe('committed');
    expect(reset.notes).toContain('circuit breaker reset after 5 turns of cool-down');
  });
});

describe('preemptive: wedged buffer -> chunk-and-merge', () => {
  it('summarises two halves, then merges the two partial summaries', async () => {
    const items = chat(30, 400);
    const half = (intent: string) => JSON.stringify({ ...SUMMARY, session_intent: intent });
    const fake = new FakeSummarizer(
      [
        (req) => (req.label === 'chunk 1/2' ? { text: half('first') } : null),
        (req) => (req.label === 'chunk 2/2' ? { text: half('second') } : null),
        () => ({ text: half('merged') }),
      ],
      3_000,
    );
    const res = await preemptive.run(input(view(items), { window: 100_000, summarizer: fake, options: { force: true } }));
    expect(res.outcome).toBe('committed');
    expect(fake.requests.map((r) => r.stage)).toEqual(['chunk', 'chunk', 'merge']);
    expect(fake.requests[0]?.messages[0]?.text).toContain('[#0 user]');
    expect(fake.requests[0]?.messages[0]?.text).not.toContain('[#10 user]');
    expect(fake.requests[1]?.messages[0]?.text).toContain('MESSAGES:\n[#10 user]');
    expect(fake.requests[2]?.messages[0]?.text).toContain(
      '[#0 user]\nPARTIAL SUMMARY (first half):\n{"session_intent": "first", "files_touched": ["src/app.ts"], "decisions": ["keep the API"], "pending_questions": [], "next_steps": ["run npm test"]}\n\n[#1 user]\nPARTIAL SUMMARY (second half):\n{"session_intent": "second"',
    );
    expect(textOf(res.view?.items[0])).toContain('"session_intent": "merged"');
    expect(res.notes.some((n) => n.endsWith('summarizer window 3,000: wedged, chunk-and-merge'))).toBe(true);
  });

  it('splits at the unit boundary nearest the middle', () => {
    const items = [
      user('u0', 'a'),
      call('c1', 'k1'),
      result('r1', 'k1', 'x'),
      call('c2', 'k2'),
      result('r2', 'k2', 'y'),
      assistant('a5', 'b'),
    ];
    // Middle of [0, 6) is 3, a unit boundary; of [0, 5) it is 2, inside c1/r1, so 1 or 3: 1 is nearer first.
    expect(halfPoint(items, 0, 6)).toBe(3);
    expect(halfPoint(items, 0, 5)).toBe(1);
    expect(halfPoint([call('c', 'k'), result('r', 'k', 'z')], 0, 2)).toBe(1);
  });
});
