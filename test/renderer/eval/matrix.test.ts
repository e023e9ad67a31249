import { describe, expect, it } from 'vitest';
import {
  cellDelta,
  cellKey,
  cellMisses,
  cellRegressions,
  cellValue,
  deltaText,
  differs,
  formatValue,
  grid,
  METRICS,
  spreadText,
} from '../../../src/renderer/eval/matrix';
import { cell, results, stat, TRACE } from './fixtures';

describe('eval matrix logic', () => {
  it('reads each metric from its own figure of the cell', () => {
    const c = cell('one-shot', 'mock:a', 0.75, {
      quality: { ...cell('x', 'y', 0.75).quality, provenance: stat(0.5), staleRejection: null },
      structural: { error: 3, warning: 0, info: 0, maxErrorsPerRun: 2, rules: { R: 3 } },
      failures: { count: 1, of: 4, rate: 0.25 },
      recovery: { committed: 1, of: 2, rate: 0.5 },
      spend: { runs: 4, requests: 4, input: 1, output: 1, cacheRead: 0, cacheWrite: 0, costUsd: 0.02, costPerRun: 0.005 },
      latency: { p50: 10, p95: 1234, calls: 4 },
    });
    expect(cellValue(c, 'recall').value).toBe(0.75);
    expect(cellValue(c, 'provenance').value).toBe(0.5);
    expect(cellValue(c, 'staleRejection')).toEqual({ value: null, spread: null });
    expect(cellValue(c, 'decision').value).toBeNull();
    expect(cellValue(c, 'structuralErrors').value).toBe(2);
    expect(cellValue(c, 'failureRate').value).toBe(0.25);
    expect(cellValue(c, 'recovery').value).toBe(0.5);
    expect(cellValue(c, 'cost').value).toBe(0.005);
    expect(cellValue(c, 'latencyP95').value).toBe(1234);
    expect(METRICS.map((m) => m.id)).toEqual([
      'recall',
      'constraint',
      'decision',
      'open_work',
      'evidence',
      'staleRejection',
      'provenance',
      'structuralErrors',
      'failureRate',
      'recovery',
      'cost',
      'latencyP95',
    ]);
  });

  it("formats values in the metric's unit, and unknown as a dash (never 0)", () => {
    expect(formatValue('recall', 0.7532)).toBe('75.3 %');
    expect(formatValue('recall', null)).toBe('—');
    expect(formatValue('structuralErrors', 2)).toBe('2');
    expect(formatValue('cost', 0)).toBe('$0');
    expect(formatValue('cost', 0.005)).toBe('$0.0050');
    expect(formatValue('latencyP95', 1234)).toBe('1.2 s');
    expect(formatValue('latencyP95', 31)).toBe('31 ms');
    expect(spreadText(stat(0.5, 0.1, 3))).toBe('± 10.0 pts · 40.0–60.0 % · 3 repeats');
    expect(spreadText(stat(0.5))).toBe('1 repeat');
    expect(spreadText(null)).toBeNull();
    expect(deltaText('recall', -0.3)).toBe('−30.0 pts');
    expect(deltaText('latencyP95', 20)).toBe('+20 ms');
    expect(deltaText('recall', 0)).toBe('±0');
    expect(deltaText('recall', null)).toBeNull();
  });

  it('marks a threshold miss only on the metric it gates, and only on overall cells', () => {
    const r = results(false);
    const a = r.aggregate.cells.find((c) => c.trace === null && c.model === 'mock:a');
    const aTrace = r.aggregate.cells.find((c) => c.trace === TRACE && c.model === 'mock:a');
    if (!a || !aTrace) throw new Error('fixture');
    expect(cellMisses(r.misses, a, 'recall').map((m) => m.threshold)).toEqual(['minRecall']);
    expect(cellMisses(r.misses, a, 'provenance')).toEqual([]);
    expect(cellMisses(r.misses, a)).toHaveLength(1);
    expect(cellMisses(r.misses, aTrace, 'recall')).toEqual([]);
    expect(cellMisses(null, a, 'recall')).toEqual([]);
  });

  it("finds a cell's regression and delta for the metric shown", () => {
    const r = results(true);
    const e = r.aggregate.cells.find((c) => c.trace === null && c.strategy === 'extractive');
    if (!e) throw new Error('fixture');
    expect(cellRegressions(r.comparison, e, 'recall').map((d) => d.words)).toEqual([
      expect.stringMatching(/recall fell from 80.0 % to 50.0 %/),
    ]);
    expect(cellRegressions(r.comparison, e, 'latencyP95')).toEqual([]);
    expect(cellDelta(r.comparison, e, 'recall')?.delta).toBeCloseTo(-0.3);
    expect(cellDelta(r.comparison, e, 'recovery')).toBeNull();
    expect(cellDelta(null, e, 'recall')).toBeNull();
  });

  it('"different from baseline": keeps changed and regressed cells, hides equal ones, and ignores timing unless it is the metric shown', () => {
    const r = results(true);
    const overall = r.aggregate.cells.filter((c) => c.trace === null);
    const by = (s: string, m: string) => overall.find((c) => c.strategy === s && c.model === m);
    const [t, e, a, b] = [by('truncate', 'none'), by('extractive', 'none'), by('one-shot', 'mock:a'), by('one-shot', 'mock:b')];
    if (!t || !e || !a || !b) throw new Error('fixture');
    expect([t, e, a, b].map((c) => differs(r.comparison, c, 'recall'))).toEqual([false, true, true, false]);
    // Every latency moved between the runs: that counts only when latency is what is shown.
    expect([t, e, a, b].map((c) => differs(r.comparison, c, 'latencyP95'))).toEqual([true, true, false, true]);
    // A cell the baseline does not have is different.
    expect(differs({ deltas: [], regressions: [], onlyCurrent: [], onlyBaseline: [] }, t, 'recall')).toBe(true);
    expect(differs(null, e, 'recall')).toBe(false);

    const all = grid(r.aggregate, null, r.comparison, 'recall', false);
    expect(all.strategies).toEqual(['truncate', 'extractive', 'one-shot']);
    expect(all.models).toEqual(['none', 'mock:a', 'mock:b']);
    expect(all.cells.size).toBe(4);
    const diff = grid(r.aggregate, null, r.comparison, 'recall', true);
    expect(diff.strategies).toEqual(['extractive', 'one-shot']);
    expect(diff.models).toEqual(['none', 'mock:a']);
    expect([...diff.cells.keys()]).toEqual([cellKey('extractive', 'none'), cellKey('one-shot', 'mock:a')]);
    expect(diff.hidden).toBe(2);
    // Without a baseline the filter has nothing to compare with: everything stays.
    expect(grid(r.aggregate, null, null, 'recall', true).cells.size).toBe(4);
  });

  it("shows one trace's cells when a trace is chosen", () => {
    const r = results(false);
    const g = grid(r.aggregate, TRACE, null, 'recall', false);
    expect([...g.cells.values()].every((c) => c.trace === TRACE)).toBe(true);
    expect(g.cells.size).toBe(4);
    expect(grid(r.aggregate, 'other.jsonl', null, 'recall', false).strategies).toEqual([]);
  });
});
