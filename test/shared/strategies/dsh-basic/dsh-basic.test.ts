import { describe, expect, it } from 'vitest';
import { itemTokens, renderItem, viewTokens } from '../../../../src/shared/strategies/common/render';
import { charCounter } from '../common/char-counter';
import { dshBasic } from '../../../../src/shared/strategies/dsh-basic';
import { PRUNE_MARKER } from '../../../../src/shared/strategies/dsh-basic/pruner';
import { DSH_INSTRUCTION } from '../../../../src/shared/strategies/dsh-basic/request';
import type { SourceItem, SourceView } from '../../../../src/shared/strategies/types';
import { FakeSummarizer } from '../fake-summarizer';
import { assistant, call, chars, hasLoneSurrogate, input, result, sys, textOf, user, view } from '../common/build';

const SUMMARY = 'The user asked for a build fix in src/app.ts; the import was repaired.';
const EMOJI = '😀';
const sum = (xs: readonly number[], from: number, to: number): number => xs.slice(from, to).reduce((a, b) => a + b, 0);
const answer = () => new FakeSummarizer([() => ({ text: SUMMARY })]);

/** Pad the first user message until the view's token count is a multiple of 4, so 0.8 × (1.25 × T) is exactly T. */
function padToMultipleOf4(items: SourceItem[], system: string | null = null): SourceView {
  const i = items.findIndex((it) => it.role === 'user');
  for (let extra = 0; ; extra++) {
    const padded = [...items];
    padded[i] = user(items[i]?.id ?? 'u', textOf(items[i]) + chars(extra, '.'));
    const v = view(padded, system);
    if (viewTokens(v, charCounter) % 4 === 0) return v;
  }
}

describe('dsh-basic: pressure gate (0.8 × window)', () => {
  const items = [
    sys('s0', 'You are DSH.'),
    user('u1', chars(4_000)),
    call('c1', 'k1'),
    result('r1', 'k1', chars(9_000, 'r')),
    assistant('a1', 'done'),
    user('u2', 'next'),
  ];

  it('compacts at exactly 0.8 × window, and does nothing one step below it (not even pruning)', async () => {
    const source = padToMultipleOf4(items);
    const t = viewTokens(source, charCounter);
    const atTrigger = await dshBasic.run(input(source, { window: (t * 5) / 4, summarizer: answer() }));
    expect(atTrigger.notes[0]).toBe(
      `envelope ${t.toLocaleString('en-US')} tokens; trigger ${t.toLocaleString('en-US')} (0.8 × ${((t * 5) / 4).toLocaleString('en-US')}); under pressure`,
    );
    expect(atTrigger.outcome).toBe('committed');

    const fake = answer();
    const below = await dshBasic.run(input(source, { window: (t * 5) / 4 + 5, summarizer: fake }));
    expect(below).toMatchObject({
      outcome: 'failed',
      error: 'below pressure: no compaction',
      view: null,
      tokens: { before: t, after: null },
    });
    expect(fake.requests).toHaveLength(0);
  });

  it('force: true compacts below pressure (a manual compaction)', async () => {
    const fake = answer();
    const res = await dshBasic.run(
      input(view(items, null), { window: 1_000_000, summarizer: fake, options: { force: true, retainRatio: 0.000001 } }),
    );
    expect(res.outcome).toBe('committed');
    expect(fake.requests).toHaveLength(1);
  });
});

describe('dsh-basic: tool-result pruner first (8,192 code points -> 4,096 + marker + 1,024)', () => {
  it('commits the pruning alone when it brings the envelope under the trigger; no summary call', async () => {
    const body = Array.from({ length: 20_000 }, (_, i) => String.fromCharCode(65 + (i % 26))).join('');
    const items = [
      sys('s0', 'You are DSH.'),
      user('u1', 'Read the log.'),
      call('c1', 'k1', 'read_file', '{"path":"build.log"}'),
      result('r1', 'k1', body),
      assistant('a1', 'Read it.'),
      user('u2', 'Summarise.'),
    ];
    const source = view(items, null);
    const fake = answer();
    // 20,000 characters ≈ 5,000 tokens: over 4,800 (0.8 × 6,000); pruned, the view is ≈ 1,330.
    const res = await dshBasic.run(input(source, { window: 6_000, summarizer: fake }));
    expect(res.outcome).toBe('committed');
    expect(fake.requests).toHaveLength(0);
    expect(res.summary).toBeNull();
    expect(res.view?.items.map((i) => i.id)).toEqual(['s0', 'u1', 'c1', 'dsh-basic:1', 'a1', 'u2']);
    expect(res.view?.items[3]).toEqual({
      id: 'dsh-basic:1',
      role: 'tool',
      blocks: [
        {
          type: 'tool_result',
          callId: 'k1',
          content: [{ type: 'text', text: body.slice(0, 4_096) + PRUNE_MARKER + body.slice(20_000 - 1_024) }],
        },
      ],
      derivation: {
        kind: 'pruned',
        of: 'r1',
        head: 4_096,
        tail: 1_024,
        omitted: 14_880,
        unit: 'codepoints',
        shadowedTokens: charCounter(renderItem(items[3] as SourceItem, 3)),
      },
    });
    expect(res.tokens.after).toBe(viewTokens(res.view ?? source, charCounter));
    expect(res.notes).toContain('safe after pruning: no summary request');
  });

  it('leaves 8,192 astral code points alone and cuts 8,193 without splitting a surrogate pair', async () => {
    const items = [
      user('u1', 'go'),
      call('c1', 'k1'),
      result('r1', 'k1', EMOJI.repeat(8_192)),
      call('c2', 'k2'),
      result('r2', 'k2', EMOJI.repeat(8_193)),
      user('u2', 'next'),
    ];
    const res = await dshBasic.run(input(view(items, null), { window: 10_000, summarizer: answer() }));
    expect(res.outcome).toBe('committed');
    expect(res.view?.items.map((i) => i.id)).toEqual(['u1', 'c1', 'r1', 'c2', 'dsh-basic:1', 'u2']);
    const pruned = res.view?.items[4];
    expect(pruned?.derivation).toMatchObject({ kind: 'pruned', of: 'r2', head: 4_096, tail: 1_024, omitted: 3_073, unit: 'codepoints' });
    expect(textOf(pruned)).toBe(EMOJI.repeat(4_096) + PRUNE_MARKER + EMOJI.repeat(1_024));
    expect(hasLoneSurrogate(textOf(pruned))).toBe(false);
  });
});

describe('dsh-basic: one <compacted-summary> checkpoint', () => {
  // Window 10,000: trigger 8,000, recent tail reserve 1,600 tokens.
  const items = [
    sys('s0', 'You are DSH.'),
    user('u1', `Port the parser. ${chars(20_000, 'p')}`),
    assistant('a1', chars(2_000, 'a')),
    call('c1', 'k1', 'read_file', '{"path":"src/parser.ts"}'),
    result('r1', 'k1', chars(8_000, 'r')), // under 8,192 code points: not pruned
    assistant('a2', 'ok'),
    user('u2', chars(4_000, 'q')),
    assistant('a3', chars(2_000, 'b')),
  ];

  it('replaces the oldest non-head units and keeps a 0.16 × window tail; the system item at position 0 never enters the range', async () => {
    const t = itemTokens(items, charCounter);
    // The tail a2, u2, a3 fits the 1,600-token reserve; the c1/r1 unit does not fit beside it.
    expect(sum(t, 5, 8)).toBeLessThanOrEqual(1_600);
    expect(sum(t, 3, 8)).toBeGreaterThan(1_600);
    const fake = answer();
    const source = view(items, null);
    const res = await dshBasic.run(input(source, { window: 10_000, summarizer: fake }));
    expect(res.outcome).toBe('committed');
    expect(res.view?.items.map((i) => i.id)).toEqual(['s0', 'dsh-basic:1', 'a2', 'u2', 'a3']);
    expect(res.view?.items[1]).toEqual({
      id: 'dsh-basic:1',
      role: 'user',
      blocks: [{ type: 'text', text: `<compacted-summary>\n${SUMMARY}\n</compacted-summary>` }],
      derivation: { kind: 'checkpoint', compactionId: 'rerun', covers: ['u1', 'a1', 'c1', 'r1'], part: 'summary' },
    });
    expect(res.summary).toBe(SUMMARY);
    expect(res.tokens).toEqual({ before: viewTokens(source, charCounter), after: viewTokens(res.view ?? source, charCounter) });

    // DeepSeek Harness: system head, then the shadowed-region messages, then the compaction
    // instruction.
    const req = fake.requests[0];
    expect(req?.system).toBe('You are DSH.');
    expect(req?.maxOutput).toBeNull();
    expect(req?.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'assistant', 'user', 'user']);
    expect(req?.messages[0]?.text).toBe(textOf(items[1]));
    expect(req?.messages[2]?.text).toBe('[tool call read_file id=k1] {"path":"src/parser.ts"}');
    expect(req?.messages[4]?.text).toBe(DSH_INSTRUCTION);
  });

  it('takes the system head from the envelope when the surface has no system item', async () => {
    const fake = answer();
    const res = await dshBasic.run(input(view(items.slice(1), 'Envelope system.'), { window: 10_000, summarizer: fake }));
    expect(res.view?.items[0]?.id).toBe('dsh-basic:1');
    expect(fake.requests[0]?.system).toBe('Envelope system.');
    expect(fake.requests[0]?.messages).toHaveLength(5);
  });

  it('declines while the tail ends in an unanswered tool call', async () => {
    const fake = answer();
    const res = await dshBasic.run(input(view([...items, call('c9', 'k9', 'bash', '{}')], null), { window: 10_000, summarizer: fake }));
    expect(res.outcome).toBe('failed');
    expect(res.error).toMatch(/^declined: the tail ends in an unanswered tool call/);
    expect(fake.requests).toHaveLength(0);
  });

  it('rejects a summary that is not smaller than its source', async () => {
    const fake = new FakeSummarizer([() => ({ text: chars(40_000, 's') })]);
    const res = await dshBasic.run(input(view(items, null), { window: 10_000, summarizer: fake }));
    const t = itemTokens(items, charCounter);
    expect(res.outcome).toBe('failed');
    // "[#1 user]\n" + "<compacted-summary>\n" + 40,000 + "\n</compacted-summary>" = 40,051 chars = 10,013 tokens.
    expect(res.error).toBe(
      `summary rejected: the checkpoint (10,013 tokens) is not smaller than its source (${sum(t, 1, 5).toLocaleString('en-US')} tokens)`,
    );
    expect(res.calls).toHaveLength(1);
  });

  it('rejects an incomplete summary and keeps its usage', async () => {
    const fake = new FakeSummarizer([
      () => ({ text: 'partial', finish: { raw: 'length', reason: 'length' }, usage: { input: 5_000, output: 700 } }),
    ]);
    const res = await dshBasic.run(input(view(items, null), { window: 10_000, summarizer: fake }));
    expect(res).toMatchObject({
      outcome: 'failed',
      error: 'summary rejected: summary call failed (incomplete: finish reason: length)',
      view: null,
    });
    expect(res.calls[0]?.usage).toEqual({ input: 5_000, output: 700 });
  });
});
