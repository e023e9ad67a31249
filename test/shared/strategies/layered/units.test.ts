import { describe, expect, it } from 'vitest';
import { itemTokens } from '../../../../src/shared/strategies/common/render';
import { charCounter } from '../common/char-counter';
import { mapOutputReserve, parseOptions } from '../../../../src/shared/strategies/layered/options';
import { packSegments } from '../../../../src/shared/strategies/layered/packer';
import { parseReread } from '../../../../src/shared/strategies/layered/reread';
import { parseVerdict } from '../../../../src/shared/strategies/layered/prompts';
import { planCut } from '../../../../src/shared/strategies/layered/plan';
import { staleObservations } from '../../../../src/shared/strategies/layered/stale';
import { classify } from '../../../../src/shared/strategies/layered/context';
import { missingSections, HANDOFF_SECTIONS } from '../../../../src/shared/strategies/layered/prompts';
import type { SummaryCall } from '../../../../src/shared/strategies/types';
import { call, history, result, sized, text } from './helpers';

describe('cosh numbers', () => {
  it('map output reservation is 10 % of the summarizer window clamped to 64–2,000 tokens', () => {
    expect(mapOutputReserve(16_000)).toBe(1_600);
    expect(mapOutputReserve(128_000)).toBe(2_000);
    expect(mapOutputReserve(20_000)).toBe(2_000);
    expect(mapOutputReserve(400)).toBe(64);
    expect(mapOutputReserve(640)).toBe(64);
    expect(mapOutputReserve(1_000)).toBe(100);
  });

  it('options: defaults, concurrency 1–4 only, unknown keys rejected', () => {
    expect(parseOptions(undefined)).toEqual({
      ok: true,
      options: { concurrency: 4, segmentTokens: null, audit: true, forceMapReduce: false },
    });
    expect(parseOptions({ concurrency: 2, segmentTokens: 300 })).toMatchObject({
      ok: true,
      options: { concurrency: 2, segmentTokens: 300 },
    });
    expect(parseOptions({ concurrency: 5 })).toMatchObject({ ok: false });
    expect(parseOptions({ concurrency: 0 })).toMatchObject({ ok: false });
    expect(parseOptions({ concurrency: 2.5 })).toMatchObject({ ok: false });
    expect(parseOptions({ tailRatio: 0.3 })).toMatchObject({ ok: false, error: expect.stringContaining('tailRatio') });
  });
});

describe('packSegments (whole items, soft target)', () => {
  it('moves an item that exceeds the remaining space intact to the next group, and gives an oversized item its own group', () => {
    //            0    1    2    3    4    5    6    7    8    9
    const t = [100, 100, 100, 100, 500, 100, 100, 200, 100, 50];
    // target 350, joining allowance 1 per item: [0-2] = 303; 3 alone before the 501-cost item 4; 4 alone;
    // [5-6] = 202, item 7 (201) would make 403 > 350 → moved intact; [7-8] = 302, item 9 (51) fits: 353 > 350 → next.
    expect(packSegments(t, 0, 9, 350, 1)).toEqual([
      { from: 0, to: 2, tokens: 300 },
      { from: 3, to: 3, tokens: 100 },
      { from: 4, to: 4, tokens: 500 },
      { from: 5, to: 6, tokens: 200 },
      { from: 7, to: 8, tokens: 300 },
      { from: 9, to: 9, tokens: 50 },
    ]);
  });

  it('packs only the given range and never cuts or drops an item', () => {
    const t = [10, 20, 30, 40, 50, 60];
    const groups = packSegments(t, 1, 4, 60);
    expect(groups).toEqual([
      { from: 1, to: 2, tokens: 50 },
      { from: 3, to: 3, tokens: 40 },
      { from: 4, to: 4, tokens: 50 },
    ]);
    expect(groups.flatMap((g) => Array.from({ length: g.to - g.from + 1 }, (_, k) => g.from + k))).toEqual([1, 2, 3, 4]);
  });
});

describe('planCut (20 % raw tail of the agent window, at unit boundaries)', () => {
  it('reserves 20 % of the agent window and never splits a tool call from its result', () => {
    // agent window 1,000 → tail budget 200.
    const items = [
      sized(0, 'user', 100),
      sized(1, 'assistant', 100),
      call(2, 'c1', 'read_file', { path: 'a.ts', note: 'n'.repeat(200) }),
      result(3, 'c1', 'x'.repeat(480)),
      sized(4, 'assistant', 50),
    ];
    const tokens = itemTokens(items, charCounter);
    // The result alone would still fit beside the last item, but not with its call: an item-level cut
    // would keep #3 without #2. The tail starts at #4 instead.
    expect((tokens[3] ?? 0) + 50).toBeLessThanOrEqual(200);
    expect((tokens[2] ?? 0) + (tokens[3] ?? 0) + 50).toBeGreaterThan(200);
    const plan = planCut(items, tokens, 1_000);
    expect(plan).toMatchObject({ tailBudget: 200, from: 0, to: 3, tailFrom: 4 });

    const small = [
      sized(0, 'user', 150),
      sized(1, 'assistant', 150),
      call(2, 'c1', 'read_file', { path: 'a.ts' }),
      result(3, 'c1', 'ok'),
      sized(4, 'assistant', 50),
    ];
    const p2 = planCut(small, itemTokens(small, charCounter), 1_000);
    // 50 + the small pair fit under 200: the pair is in the tail whole.
    expect(p2.tailFrom).toBe(2);
  });

  it('keeps unanswered user messages at the end verbatim even beyond the tail budget', () => {
    const items = [...history(10, 100), sized(10, 'user', 150, 'steer-1'), sized(11, 'user', 150, 'steer-2')];
    const plan = planCut(items, itemTokens(items, charCounter), 1_000);
    expect(plan.tailFrom).toBe(10);
    expect(plan.notes.join(' ')).toContain('unanswered user message');
  });

  it('folds the whole eligible source when the newest unit exceeds the tail', () => {
    const items = [...history(4, 100), sized(4, 'user', 100), sized(5, 'assistant', 900)];
    const plan = planCut(items, itemTokens(items, charCounter), 1_000);
    expect(plan.tailFrom).toBe(6);
    expect(plan.to).toBe(5);
    expect(plan.notes.join(' ')).toContain('whole eligible source');
  });

  it('keeps an open tool call unit raw, and leading system items before the checkpoint', () => {
    const items = [
      text(0, 'system', 'rules'),
      ...history(6, 100).map((it, k) => ({ ...it, id: `h${k}` })),
      call(7, 'open', 'bash', { cmd: 'x'.repeat(2_000) }),
    ];
    const plan = planCut(items, itemTokens(items, charCounter), 1_000);
    expect(plan.headEnd).toBe(1);
    expect(plan.from).toBe(1);
    expect(plan.tailFrom).toBe(7);
  });
});

describe('REREAD parsing', () => {
  const avail = { from: 0, to: 29 };
  it('accepts up to three inclusive ranges within the compacted items', () => {
    expect(parseReread('2-3, 10-12,#20-#20', avail)).toEqual({
      ok: true,
      ranges: [
        [2, 3],
        [10, 12],
        [20, 20],
      ],
    });
  });
  it('rejects malformed, more than three, and unavailable ranges with a reason', () => {
    expect(parseReread('two-three', avail)).toMatchObject({ ok: false, reason: expect.stringContaining('malformed') });
    expect(parseReread('', avail)).toMatchObject({ ok: false });
    expect(parseReread('5-2', avail)).toMatchObject({ ok: false, reason: expect.stringContaining('start after end') });
    expect(parseReread('1-1,2-2,3-3,4-4', avail)).toMatchObject({ ok: false, reason: expect.stringContaining('at most 3') });
    expect(parseReread('25-40', avail)).toMatchObject({ ok: false, reason: expect.stringContaining('unavailable') });
  });
});

describe('audit verdict protocol', () => {
  it('PASS on the first line passes; FAIL lists problems; anything else is not a pass', () => {
    expect(parseVerdict('PASS')).toEqual({ pass: true });
    expect(parseVerdict('\n**PASS**\n')).toEqual({ pass: true });
    expect(parseVerdict('FAIL\n- missing constraint X (map 2)\n- invented Y')).toEqual({
      pass: false,
      findings: ['missing constraint X (map 2)', 'invented Y'],
    });
    expect(parseVerdict('FAIL')).toMatchObject({ pass: false, findings: [expect.stringContaining('without listing')] });
    expect(parseVerdict('Looks good to me')).toMatchObject({ pass: false, findings: [expect.stringContaining('unparseable')] });
    expect(parseVerdict('PASSABLE')).toMatchObject({ pass: false });
  });

  it('knows the ten handoff sections', () => {
    expect(HANDOFF_SECTIONS).toHaveLength(10);
    const all = HANDOFF_SECTIONS.map((s) => `## ${s}\nNone.`).join('\n');
    expect(missingSections(all)).toEqual([]);
    expect(missingSections('## Objective\nx')).toHaveLength(9);
  });
});

describe('stale observations (deterministic post-check)', () => {
  it('flags a file read in the prefix and written or edited later, not one only read', () => {
    const items = [
      call(0, 'a', 'read_file', { path: 'src/a.ts' }),
      result(1, 'a', 'old a'),
      call(2, 'b', 'read_file', { path: 'src/b.ts' }),
      result(3, 'b', 'b'),
      call(4, 'c', 'str_replace_based_edit_tool', { command: 'view', path: 'src/c.ts' }),
      result(5, 'c', 'c'),
      call(6, 'd', 'edit_file', { file_path: 'src/a.ts', old: 'x', new: 'y' }),
      result(7, 'd', 'ok'),
      call(8, 'e', 'apply_patch', { input: '*** Begin Patch\n*** Update File: src/c.ts\n@@\n-a\n+b\n*** End Patch' }),
      result(9, 'e', 'ok'),
    ];
    expect(staleObservations(items, 0, 5)).toEqual([
      { path: 'src/a.ts', readAt: 0, changedAt: 6 },
      { path: 'src/c.ts', readAt: 4, changedAt: 8 },
    ]);
  });
});

describe('answer classification', () => {
  const req = { stage: 'map' as const, label: 'map 1 (#0–#3)', system: null, messages: [], maxOutput: 200 };
  const base: SummaryCall = {
    request: req,
    model: 'fake:m',
    text: 'ok',
    finish: { raw: 'end_turn', reason: 'stop' },
    usage: null,
    latencyMs: 0,
    attempts: 1,
    error: null,
  };
  const live = new AbortController().signal;

  it('accepts only a natural finish with text (completion integrity)', () => {
    expect(classify(base, live)).toMatchObject({ ok: true, text: 'ok' });
    expect(classify({ ...base, finish: { raw: 'max_tokens', reason: 'length' } }, live)).toMatchObject({
      ok: false,
      kind: 'failed',
      reason: expect.stringContaining('max_tokens'),
    });
    expect(classify({ ...base, finish: null }, live)).toMatchObject({ ok: false, kind: 'failed' });
    expect(classify({ ...base, text: '  ' }, live)).toMatchObject({ ok: false, kind: 'failed' });
  });

  it('only an overflow error is an overflow; a cancelled answer is a cancellation only when we aborted', () => {
    const err = (e: SummaryCall['error']): SummaryCall => ({ ...base, text: null, error: e });
    expect(classify(err({ kind: 'overflow', message: 'too long', window: 8_000 }), live)).toEqual({
      ok: false,
      kind: 'overflow',
      reason: 'map 1 (#0–#3): context overflow: too long',
      window: 8_000,
    });
    expect(classify(err({ kind: 'http', status: 413, message: 'payload too large' }), live)).toMatchObject({ kind: 'failed' });
    expect(classify(err({ kind: 'cancelled', message: 'stream closed' }), live)).toMatchObject({ kind: 'failed' });
    const ac = new AbortController();
    ac.abort();
    expect(classify(err({ kind: 'cancelled', message: 'cancelled' }), ac.signal)).toMatchObject({ kind: 'cancelled' });
  });
});
