import { describe, expect, it } from 'vitest';
import { aboveShare, aggregateHealth, filterRows, groupKey, UNKNOWN_KEY } from '../../../src/shared/health/aggregate';
import { healthReport } from '../../../src/shared/health/report';
import { type CompactionHealth, SessionHealth } from '../../../src/shared/health/row';

/*
 * The aggregation is pure arithmetic over rows, so these rows are written out: each figure below
 * is worked out by hand from them. The rows of real sessions are tested in
 * test/main/health/row.test.ts.
 */

const compaction = (over: Partial<CompactionHealth> & { id: string }): CompactionHealth => ({
  seq: 10,
  trigger: 'auto',
  outcome: 'committed',
  inferredFailed: false,
  preTokens: null,
  postTokens: null,
  ...over,
});

const row = (over: Partial<SessionHealth> & { key: string }): SessionHealth =>
  SessionHealth.parse({
    path: over.key,
    sessionId: null,
    harness: 'claude-code',
    project: '/p/a',
    clientVersion: null,
    models: ['m1'],
    day: '2026-03-01',
    requests: 10,
    judged: 10,
    aboveTrigger: 0,
    peakContext: 1000,
    cacheReadTokens: 500,
    cacheBreaks: 0,
    cacheBreakTokens: 0,
    compactions: [],
    inferredFailures: [],
    findings: [],
    ...over,
  });

const ROWS: SessionHealth[] = [
  row({
    key: 's1',
    aboveTrigger: 2,
    peakContext: 160_000,
    cacheBreaks: 1,
    cacheBreakTokens: 4000,
    compactions: [
      compaction({ id: 'c1', preTokens: 150_000, postTokens: 10_000 }),
      compaction({ id: 'c2', trigger: 'manual', outcome: 'failed', preTokens: 90_000 }),
    ],
    findings: [{ rule: 'TRIGGER_MISSED', severity: 'info', count: 2 }],
  }),
  row({
    key: 's2',
    day: '2026-03-02',
    harness: 'codex',
    project: '/p/b',
    models: ['m2', 'm1'],
    requests: 4,
    judged: 0,
    peakContext: null,
    cacheReadTokens: null,
    compactions: [
      compaction({ id: 'c3', outcome: 'fallback', preTokens: 200_000, postTokens: 50_000 }),
      compaction({ id: 'c4', outcome: null, trigger: 'overflow' }),
      compaction({ id: 'c5', inferredFailed: true }),
    ],
    inferredFailures: [{ rule: 'PROMPT_UNANSWERED_INFERRED', seq: 40 }],
    findings: [
      { rule: 'TRIGGER_MISSED', severity: 'warning', count: 1 },
      { rule: 'EMPTY_SUMMARY', severity: 'error', count: 1 },
    ],
  }),
  row({ key: 's3', day: null, project: null, models: [], requests: 2, judged: 2, aboveTrigger: 1, peakContext: 90_000 }),
];

describe('aggregateHealth', () => {
  it('sums every metric over all sessions in the total', () => {
    const { total } = aggregateHealth(ROWS, 'day');
    expect(total.sessions).toBe(3);
    expect(total.requests).toBe(16);
    expect(total.judged).toBe(12);
    expect(total.aboveTrigger).toBe(3);
    expect(aboveShare(total)).toBeCloseTo(3 / 12);
    expect(total.compactions).toBe(5);
    expect(total.byTrigger).toMatchObject({ auto: 3, manual: 1, overflow: 1 });
    expect(total.byOutcome).toMatchObject({ committed: 2, failed: 1, fallback: 1, open: 1, rejected: 0 });
    expect(total.failed).toBe(2);
    // c5 flagged, plus one failure with no compaction in the log.
    expect(total.inferredFailed).toBe(2);
    // Only c1 and c3 record both sizes.
    expect(total.measured).toBe(2);
    expect(total.tokensBefore).toBe(350_000);
    expect(total.tokensAfter).toBe(60_000);
    expect(total.peakContext).toBe(160_000);
    // A session that reports no cache read adds nothing (null is not 0, but the sum skips it).
    expect(total.cacheReadTokens).toBe(1000);
    expect(total.cacheBreaks).toBe(1);
    expect(total.cacheBreakTokens).toBe(4000);
    expect(total.findings).toEqual({
      TRIGGER_MISSED: { error: 0, warning: 1, info: 2 },
      EMPTY_SUMMARY: { error: 1, warning: 0, info: 0 },
    });
  });

  it('groups by day in order, with sessions of no day last', () => {
    const { buckets } = aggregateHealth(ROWS, 'day');
    expect(buckets.map((b) => b.key)).toEqual(['2026-03-01', '2026-03-02', UNKNOWN_KEY]);
    expect(buckets.map((b) => b.sessions)).toEqual([1, 1, 1]);
  });

  it('counts a session once, under its most used model', () => {
    const { buckets } = aggregateHealth(ROWS, 'model');
    expect(buckets.map((b) => [b.key, b.sessions])).toEqual([
      ['m1', 1],
      ['m2', 1],
      [UNKNOWN_KEY, 1],
    ]);
    expect(groupKey(ROWS[1] as SessionHealth, 'model')).toBe('m2');
  });

  it('orders other groupings by sessions, most first', () => {
    const { buckets } = aggregateHealth(ROWS, 'harness');
    expect(buckets.map((b) => [b.key, b.sessions])).toEqual([
      ['claude-code', 2],
      ['codex', 1],
    ]);
  });

  it('keeps the sessions and compactions behind each bucket for drill-down', () => {
    const { buckets } = aggregateHealth(ROWS, 'project');
    const b = buckets.find((x) => x.key === '/p/b');
    expect(b?.sessionKeys).toEqual(['s2']);
    expect(b?.compactionRefs.map((r) => r.id)).toEqual(['c3', 'c4', 'c5']);
    expect(b?.failedRefs).toEqual([{ session: 's2', id: 'c3', seq: 10 }]);
    expect(b?.inferredRefs.map((r) => r.id)).toEqual(['c5']);
    const all = buckets.flatMap((x) => x.sessionKeys).sort();
    expect(all).toEqual(['s1', 's2', 's3']);
  });

  it('leaves out sessions before --since, and those with no day', () => {
    expect(filterRows(ROWS, { since: '2026-03-02' }).map((r) => r.key)).toEqual(['s2']);
    const a = aggregateHealth(ROWS, 'day', { since: '2026-03-02' });
    expect(a.total.sessions).toBe(1);
    expect(a.buckets.map((b) => b.key)).toEqual(['2026-03-02']);
  });

  it('says nothing of the share when no request was judged', () => {
    const { buckets } = aggregateHealth([ROWS[1] as SessionHealth], 'day');
    expect(aboveShare(buckets[0] as { judged: number; aboveTrigger: number })).toBeNull();
    expect(buckets[0]?.peakContext).toBeNull();
  });
});

describe('healthReport', () => {
  it('keeps the rows the buckets count and passes problems on', () => {
    const r = healthReport({ rows: ROWS, problems: [{ path: 'x', error: 'bad' }], cached: 1, built: 2, notes: [] }, 'day', {
      since: '2026-03-02',
    });
    expect(r.sessions.map((s) => s.key)).toEqual(['s2']);
    expect(r.problems).toEqual([{ path: 'x', error: 'bad' }]);
    expect(r.since).toBe('2026-03-02');
  });
});
