import { describe, expect, it } from 'vitest';
import { aggregate, findCell, type ScoredRun } from '../../../src/shared/eval/aggregate';
import { compareToBaseline } from '../../../src/shared/eval/baseline';
import { checkThresholds } from '../../../src/shared/eval/thresholds';
import { hash32 } from '../../../src/shared/eval/hash';
import { addSpend, expectedSpend, limitStop, NO_SPEND, spendOf } from '../../../src/shared/eval/limits';
import { percentile, stat } from '../../../src/shared/eval/stats';
import { callRecord, scored } from './helpers';

const S = 'one-shot';
const M = 'mock:m';

/** Two traces, two repeats: per-repeat means over targets are (0.5+0.7)/2 = 0.6 and (0.9+0.7)/2 = 0.8. */
function runs(): ScoredRun[] {
  return [
    scored(
      { trace: 't1', strategy: S, model: M, repeat: 0 },
      { recall: { overall: 0.5, constraint: 0.5 } },
      { calls: [callRecord(100, 0.01)], costUsd: 0.01, mock: true },
    ),
    scored(
      { trace: 't2', strategy: S, model: M, repeat: 0 },
      { recall: { overall: 0.7, constraint: 1 } },
      { calls: [callRecord(300, 0.02)], costUsd: 0.02, mock: true },
    ),
    scored(
      { trace: 't1', strategy: S, model: M, repeat: 1 },
      { recall: { overall: 0.9, constraint: 1 }, structural: { error: 2, warning: 1, info: 0, rules: { R1: 2, R2: 1 } } },
      { calls: [callRecord(200, 0.01)], costUsd: 0.01, mock: true },
    ),
    scored(
      { trace: 't2', strategy: S, model: M, repeat: 1 },
      { recall: { overall: 0.7 }, facts: { constraint: { total: 1, ok: [], missed: ['c1'] } } },
      { calls: [callRecord(400, 0.02), callRecord(1000, 0.02)], costUsd: 0.04, mock: true },
    ),
    scored(
      { trace: 't1', strategy: S, model: M, repeat: 0, fault: 'rate' },
      { recall: { overall: 0 } },
      { calls: [callRecord(5000, 0.01)], costUsd: 0.01, mock: true },
    ),
    scored(
      { trace: 't1', strategy: S, model: M, repeat: 1, fault: 'rate' },
      { failed: true, outcome: 'failed' },
      { items: null, calls: [callRecord(9000, null)], costUsd: null, mock: true },
    ),
    scored({ trace: 't1', strategy: 'truncate', model: 'none' }, { failed: true, outcome: 'failed' }, { items: null }),
    scored({ trace: 't2', strategy: 'truncate', model: 'none' }, { recall: { overall: 0.4 } }),
  ];
}

describe('aggregate', () => {
  const agg = aggregate(runs());
  const all = findCell(agg, S, M);

  it('has per-trace cells first, then the overall cells', () => {
    expect(agg.cells.map((c) => `${c.trace ?? '*'} ${c.strategy} ${c.model}`)).toEqual([
      't1 one-shot mock:m',
      't1 truncate none',
      't2 one-shot mock:m',
      't2 truncate none',
      '* one-shot mock:m',
      '* truncate none',
    ]);
    expect(agg.strategies).toEqual([S, 'truncate']);
  });

  it('spreads quality over repeats of the per-repeat mean over targets, clean runs only', () => {
    const r = all?.quality.recall;
    expect(r?.n).toBe(2);
    expect(r?.mean).toBeCloseTo(0.7);
    expect(r?.min).toBeCloseTo(0.6);
    expect(r?.max).toBeCloseTo(0.8);
    expect(r?.stddev).toBeCloseTo(Math.SQRT2 * 0.1);
    expect(findCell(agg, S, M, 't1')?.quality.recall).toMatchObject({ mean: 0.7, min: 0.5, max: 0.9 });
    expect(all?.quality.decision).toBeNull();
  });

  it('counts failures over clean runs and recovery over faulted runs', () => {
    expect(all?.failures).toEqual({ count: 0, of: 4, rate: 0 });
    expect(all?.recovery).toEqual({ committed: 1, of: 2, rate: 0.5 });
    const t = findCell(agg, 'truncate', 'none');
    expect(t?.failures).toEqual({ count: 1, of: 2, rate: 0.5 });
    expect(t?.quality.recall).toMatchObject({ mean: 0.4, n: 1 });
  });

  it('sums spend over every run and makes cost unknown when one run that made requests has no price', () => {
    expect(all?.spend.requests).toBe(7);
    expect(all?.spend.costUsd).toBeNull();
    expect(findCell(agg, S, M, 't2')?.spend.costUsd).toBeCloseTo(0.06);
    expect(findCell(agg, S, M, 't2')?.spend.costPerRun).toBeCloseTo(0.03);
    expect(findCell(agg, 'truncate', 'none')?.spend.costUsd).toBe(0);
  });

  it("takes latency percentiles from clean runs' calls (nearest rank)", () => {
    expect(all?.latency).toEqual({ p50: 300, p95: 1000, calls: 5 });
  });

  it('counts structural findings and missed facts of clean runs', () => {
    expect(all?.structural).toMatchObject({ error: 2, warning: 1, maxErrorsPerRun: 2, rules: { R1: 2, R2: 1 } });
    expect(all?.missed).toEqual({ 't2::c1': 1 });
    expect(all?.mock).toBe(true);
  });
});

describe('checkThresholds', () => {
  const agg = aggregate(runs());

  it('reports each miss with its words, on overall cells only', () => {
    const misses = checkThresholds(agg, { minRecall: 0.75, maxFailureRate: 0.25, maxStructuralErrors: 1, minRecovery: 0.9 });
    expect(misses.map((m) => `${m.strategy}/${m.threshold}`).sort()).toEqual([
      'one-shot/maxStructuralErrors',
      'one-shot/minRecall',
      'one-shot/minRecovery',
      'truncate/maxFailureRate',
      'truncate/minRecall',
    ]);
    expect(misses.find((m) => m.strategy === S && m.threshold === 'minRecall')?.words).toBe(
      'one-shot × mock:m: recall 70.0 % is below minRecall 75.0 %',
    );
  });

  it('treats a threshold on an unmeasured metric as a miss', () => {
    const misses = checkThresholds(agg, { minRecallByCategory: { decision: 0.5 }, appliesTo: { strategies: [S] } });
    expect(misses).toHaveLength(1);
    expect(misses[0]?.words).toMatch(/decision recall could not be measured \(no confirmed facts for it\)/);
  });

  it('applies only to the cells appliesTo selects', () => {
    expect(checkThresholds(agg, { minRecall: 0.99, appliesTo: { models: ['nobody'] } })).toEqual([]);
    expect(checkThresholds(agg, { minRecall: 0.5, appliesTo: { strategies: ['truncate'] } })).toHaveLength(1);
  });
});

describe('compareToBaseline', () => {
  const base = aggregate(runs());

  it('does not call a drop inside the spread a regression', () => {
    const now = aggregate(
      runs().map((r) =>
        r.cell.strategy === S && r.cell.repeat === 0 && r.cell.trace === 't1'
          ? { ...r, score: { ...r.score, recall: { ...r.score.recall, overall: 0.45 } } }
          : r,
      ),
    );
    const d = compareToBaseline(now, base).deltas.find((x) => x.trace === null && x.strategy === S && x.metric === 'recall');
    expect(d?.delta).toBeCloseTo(-0.0125);
    expect(d?.regression).toBe(false);
  });

  it('marks a drop beyond the spread, a metric lost, a new failure and more structural errors', () => {
    const now = aggregate(
      runs().map((r): ScoredRun => {
        if (r.cell.strategy === S && r.cell.fault === null)
          return {
            ...r,
            score: { ...r.score, recall: { ...r.score.recall, overall: 0.1 }, structural: { error: 3, warning: 0, info: 0, rules: {} } },
          };
        if (r.cell.strategy === 'truncate')
          return { ...r, score: { ...r.score, failed: true, recall: { ...r.score.recall, overall: null } } };
        return r;
      }),
    );
    const cmp = compareToBaseline(now, base);
    const overall = cmp.regressions
      .filter((d) => d.trace === null)
      .map((d) => `${d.strategy}:${d.metric}`)
      .sort();
    expect(overall).toEqual(['one-shot:recall', 'one-shot:structuralErrors', 'truncate:failureRate', 'truncate:recall']);
    expect(cmp.regressions.find((d) => d.strategy === 'truncate' && d.metric === 'recall' && d.trace === null)?.words).toMatch(
      /can no longer be measured/,
    );
    expect(cmp.regressions.find((d) => d.strategy === 'truncate' && d.metric === 'failureRate' && d.trace === null)?.words).toMatch(
      /failure rate rose from 50\.0 % to 100\.0 %/,
    );
  });

  it('lists cells only one side has', () => {
    const now = aggregate(runs().filter((r) => r.cell.strategy === S));
    const cmp = compareToBaseline(now, base);
    expect(cmp.onlyBaseline).toEqual(['truncate × none [t1]', 'truncate × none [t2]', 'truncate × none']);
    expect(cmp.onlyCurrent).toEqual([]);
  });
});

describe('statistics, spend and the hash', () => {
  it('uses the sample stddev and nearest-rank percentiles', () => {
    expect(stat([1, 2, 3, 4])).toMatchObject({ mean: 2.5, min: 1, max: 4 });
    expect(stat([1, 2, 3, 4])?.stddev).toBeCloseTo(1.29099, 4);
    expect(stat([5])?.stddev).toBe(0);
    expect(stat([])).toBeNull();
    expect(percentile([10, 20, 30, 40, 50, 60, 70, 80, 90, 100], 95)).toBe(100);
    expect(percentile([10, 20, 30, 40, 50, 60, 70, 80, 90, 100], 50)).toBe(50);
    expect(percentile([], 50)).toBeNull();
  });

  it('stops scheduling when the next cell would pass a limit, and says which', () => {
    const r = scored({}, {}, { calls: [callRecord(1), callRecord(1)], costUsd: 0.5 }).run;
    const spent = addSpend(spendOf(r.totals), spendOf(r.totals));
    expect(spent).toEqual({ runs: 2, requests: 4, tokens: 440, costUsd: 1, unknownCostRuns: 0 });
    const next = expectedSpend([spendOf(r.totals)]);
    expect(limitStop({ requests: 10 }, spent, next)).toBeNull();
    expect(limitStop({ requests: 5 }, spent, next)).toBe(
      'stopped scheduling new cells: the next cell (about 2) would pass limits.requests 5 (4 spent, cells in flight included)',
    );
    expect(limitStop({ costUsd: 1 }, spent, next)).toMatch(/^stopped scheduling new cells: limits\.costUsd \$1 reached/);
    expect(limitStop({ tokens: 1 }, NO_SPEND, expectedSpend([]))).toBeNull();
    expect(spendOf(scored({}, {}, { calls: [callRecord(1)], costUsd: null }).run.totals).unknownCostRuns).toBe(1);
  });

  it('hashes the same on every machine (cell keys and shards depend on it)', () => {
    expect(hash32('')).toBe(hash32(''));
    expect(hash32('["cell/1","a.jsonl","compaction:c1","truncate",{},"none",null,0]')).toMatchInlineSnapshot(`3398844099`);
  });
});
