import { describe, expect, it } from 'vitest';
import { layered } from '../../../../src/shared/strategies/layered';
import type { SummaryRequest } from '../../../../src/shared/strategies/types';
import { byStage, FakeSummarizer, type FakeRule } from '../fake-summarizer';
import { history, input, itemsIn, ofStage, passAudit } from './helpers';

/*
 * Reduction, REREAD and audit. Source: 40 items of 100 tokens, agent window 2,500 (prefix #0–#34);
 * summarizer window 2,000 (reservation 200 for maps, intermediate reductions and audits).
 */

const HANDOFF = '## Objective\nShip it.\n## Next action\nRun the tests.';
const hasRaw = (req: SummaryRequest) => req.messages.length > 1;
const finalRule =
  (first: string, second = HANDOFF): FakeRule =>
  (req) =>
    req.stage === 'final-reduce' ? { text: hasRaw(req) ? second : first } : null;
const run = (rules: FakeRule[], options: Record<string, unknown> = {}) => {
  const fake = new FakeSummarizer(rules, 2_000, null);
  return layered.run(input(history(40, 100), fake, { options })).then((res) => ({ res, fake }));
};

describe('layered: recursive reduction', () => {
  it('groups ordered summaries into levels until one final reduction fits', async () => {
    // 18 maps (segmentTokens 300) answering 600-token summaries; intermediate reductions answer 600 too:
    // two per request → levels of 9, 5, 3 and 2 reductions, then the final one at level 5.
    const rules = [
      byStage('map', { text: 'M'.repeat(2_400) }),
      byStage('reduce', { text: 'R'.repeat(2_400) }),
      byStage('final-reduce', { text: HANDOFF }),
      passAudit,
    ];
    const { res, fake } = await run(rules, { segmentTokens: 300 });
    expect(res.outcome).toBe('committed');
    const red = res.mapreduce?.reductions ?? [];
    const perLevel = [1, 2, 3, 4, 5].map((l) => red.filter((r) => r.level === l).length);
    expect(perLevel).toEqual([9, 5, 3, 2, 1]);
    expect(red.every((r) => r.ok)).toBe(true);
    // Level 1 cites map ordinals, in order; later levels cite the reductions below them.
    expect(red.filter((r) => r.level === 1).flatMap((r) => r.inputs)).toEqual(Array.from({ length: 18 }, (_, k) => k + 1));
    expect(red.filter((r) => r.level === 2).flatMap((r) => r.inputs)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(red.at(-1)).toEqual({ level: 5, inputs: [17, 18], ok: true });
    expect(ofStage(fake.requests, 'reduce').every((r) => r.maxOutput === 200)).toBe(true);
    expect(ofStage(fake.requests, 'final-reduce').map((r) => r.maxOutput)).toEqual([null]);
  });

  it('fails when the summaries still do not fit one final reduction after 8 levels', async () => {
    // Each intermediate reduction answers 1,000 tokens: one per request, so the count never drops.
    const rules = [byStage('map', { text: 'M'.repeat(2_400) }), byStage('reduce', { text: 'R'.repeat(4_000) }), passAudit];
    const { res, fake } = await run(rules, { segmentTokens: 300 });
    expect(res.outcome).toBe('failed');
    expect(res.error).toContain('9 summaries still do not fit one final reduction after 8 reduction levels');
    expect(Math.max(...(res.mapreduce?.reductions.map((r) => r.level) ?? []))).toBe(7);
    expect(ofStage(fake.requests, 'final-reduce')).toHaveLength(0);
    expect(res.error).toMatch(/accepted maps: 1, 2, .*18 \(35 items\) of 18/);
  });
});

describe('layered: REREAD', () => {
  it('re-sends the reduction once with the raw items of the requested ranges appended', async () => {
    const { res, fake } = await run([finalRule('REREAD: 2-3, 10-11'), passAudit]);
    expect(res.outcome).toBe('committed');
    const finals = ofStage(fake.requests, 'final-reduce');
    expect(finals).toHaveLength(2);
    expect(finals.map((r) => r.maxOutput)).toEqual([null, null]);
    const raw = finals[1]?.messages.at(-1)?.text ?? '';
    expect(raw).toContain('Complete raw items #2–#3');
    expect(raw).toContain('Complete raw items #10–#11');
    expect(itemsIn(finals[1] as SummaryRequest)).toEqual([2, 3, 10, 11]);
    expect(finals[1]?.messages[0]).toEqual(finals[0]?.messages[0]);
    expect(res.mapreduce?.rereads).toEqual([
      {
        ranges: [
          [2, 3],
          [10, 11],
        ],
        ok: true,
      },
    ]);
    expect(res.summary).toContain(HANDOFF);
  });

  it('allows one reread per reduction request: a second REREAD fails the reduction', async () => {
    const { res, fake } = await run([finalRule('REREAD: 2-3', 'REREAD: 4-5'), passAudit]);
    expect(res).toMatchObject({ outcome: 'failed', view: null });
    expect(res.error).toContain('a second REREAD in one reduction request');
    expect(ofStage(fake.requests, 'final-reduce')).toHaveLength(2);
    expect(res.mapreduce?.rereads).toEqual([{ ranges: [[2, 3]], ok: false, reason: expect.stringContaining('second REREAD') }]);
    expect(res.mapreduce?.reductions.at(-1)?.ok).toBe(false);
  });

  it.each([
    ['malformed', 'REREAD: items two to three', 'malformed REREAD range'],
    ['more than three ranges', 'REREAD: 1-1,2-2,3-3,4-4', 'at most 3 are allowed'],
    ['unavailable (the raw tail is not compacted)', 'REREAD: 30-37', 'unavailable'],
    ['oversized', 'REREAD: 0-20', 'oversized REREAD'],
  ])('fails explicitly on a %s reread', async (_name, answer, reason) => {
    const { res, fake } = await run([finalRule(answer), passAudit]);
    expect(res.outcome).toBe('failed');
    expect(res.error).toContain(reason);
    expect(ofStage(fake.requests, 'final-reduce')).toHaveLength(1);
    expect(res.mapreduce?.rereads).toEqual([expect.objectContaining({ ok: false, reason: expect.stringContaining(reason) })]);
  });

  it('each reduction request has its own reread', async () => {
    // 550-token map summaries: three do not fit a final reduction; two per intermediate request leave room for 2 raw items.
    const rules: FakeRule[] = [
      byStage('map', { text: 'M'.repeat(2_200) }),
      (req) => (req.stage === 'reduce' ? { text: hasRaw(req) ? 'merged' : 'REREAD: 1-2' } : null),
      finalRule('REREAD: 5-6'),
      passAudit,
    ];
    const { res } = await run(rules);
    expect(res.outcome).toBe('committed');
    expect(res.mapreduce?.rereads).toEqual([
      { ranges: [[1, 2]], ok: true },
      { ranges: [[1, 2]], ok: true },
      { ranges: [[5, 6]], ok: true },
    ]);
    expect(res.mapreduce?.reductions.map((r) => r.level)).toEqual([1, 1, 2]);
  });
});

describe('layered: audit and corrections', () => {
  it('corrects a failed audit and revalidates the correction', async () => {
    const audit: FakeRule = (req) =>
      req.stage === 'audit'
        ? { text: req.messages[0]?.text.includes('CORRECTED') ? 'PASS' : 'FAIL\n- missing constraint: no network (map 1, #4)' }
        : null;
    const { res, fake } = await run([finalRule(HANDOFF), audit, byStage('correction', { text: `${HANDOFF}\nCORRECTED` })]);
    expect(res.outcome).toBe('committed');
    expect(res.summary).toContain('CORRECTED');
    expect(res.mapreduce?.audits).toEqual([
      { ok: false, corrections: 0, findings: 'missing constraint: no network (map 1, #4)' },
      { ok: true, corrections: 1 },
    ]);
    const [corr] = ofStage(fake.requests, 'correction');
    expect(corr?.maxOutput).toBeNull();
    expect(corr?.messages[0]?.text).toContain('- missing constraint: no network (map 1, #4)');
    expect(corr?.messages[0]?.text).toContain('[map 1: items #0–#13]');
    expect(ofStage(fake.requests, 'audit').every((r) => r.maxOutput === 200)).toBe(true);
    // The audit checks the candidate against the map summaries.
    expect(ofStage(fake.requests, 'audit')[0]?.messages[0]?.text).toContain('summary of map 3 (#28–#34)');
  });

  it('fails after 2 corrections when the audit does not converge', async () => {
    const { res, fake } = await run([finalRule(HANDOFF), byStage('audit', { text: 'FAIL\n- still wrong' })]);
    expect(res).toMatchObject({ outcome: 'failed', view: null });
    expect(res.error).toContain('still fails after 2 corrections');
    expect(ofStage(fake.requests, 'correction')).toHaveLength(2);
    expect(res.mapreduce?.audits.map((a) => [a.ok, a.corrections])).toEqual([
      [false, 0],
      [false, 1],
      [false, 2],
    ]);
  });

  it('an answer outside the PASS/FAIL protocol is not a pass', async () => {
    const { res } = await run([finalRule(HANDOFF), byStage('audit', { text: 'Looks fine overall.' })]);
    expect(res.outcome).toBe('failed');
    expect(res.mapreduce?.audits[0]?.findings).toContain('unparseable verdict');
  });

  it('cancellation during the audit returns failed "cancelled", not an audit failure', async () => {
    const ac = new AbortController();
    const fake = new FakeSummarizer(
      [finalRule(HANDOFF), (req) => (req.stage === 'audit' ? (ac.abort(), { text: 'PASS' }) : null)],
      2_000,
      null,
    );
    const res = await layered.run(input(history(40, 100), fake, { signal: ac.signal }));
    expect(res).toMatchObject({ outcome: 'failed', error: 'cancelled', view: null });
    expect(res.mapreduce?.segments.every((s) => s.status === 'accepted')).toBe(true);
    expect(ofStage(fake.requests, 'correction')).toHaveLength(0);
  });

  it('audit: false skips the validator', async () => {
    const { res, fake } = await run([finalRule(HANDOFF)], { audit: false });
    expect(res.outcome).toBe('committed');
    expect(ofStage(fake.requests, 'audit')).toHaveLength(0);
    expect(res.mapreduce?.audits).toEqual([]);
  });
});
