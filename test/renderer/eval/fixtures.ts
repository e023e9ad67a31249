import type { EvalDelta, EvalMatrixCell, EvalRunRow, EvalStat } from '../../../src/shared/api/contract';
import type { EvalResults } from '../../../src/renderer/eval/store';

/** Small eval results for the renderer's tests: 2 strategies × 2 models, one trace, a baseline. */

export const TRACE = 'traces/a.jsonl';

export const stat = (mean: number, spread = 0, n = 1): EvalStat => ({ mean, min: mean - spread, max: mean + spread, stddev: spread, n });

export function cell(strategy: string, model: string, recall: number | null, over: Partial<EvalMatrixCell> = {}): EvalMatrixCell {
  const q = recall === null ? null : stat(recall);
  return {
    strategy,
    model,
    trace: null,
    runs: 1,
    quality: { recall: q, constraint: q, decision: null, open_work: null, evidence: q, staleRejection: stat(1), provenance: stat(1) },
    judge: null,
    failures: { count: 0, of: 1, rate: 0 },
    fallbacks: 0,
    recovery: { committed: 0, of: 0, rate: null },
    structural: { error: 0, warning: 0, info: 0, maxErrorsPerRun: 0, rules: {} },
    spend: { runs: 1, requests: 1, input: 100, output: 10, cacheRead: 0, cacheWrite: 0, costUsd: 0, costPerRun: 0 },
    latency: { p50: 20, p95: 30, calls: 1 },
    wall: { p50: 40, p95: 40 },
    mock: model.startsWith('mock:'),
    missed: {},
    ...over,
  };
}

export function delta(
  c: EvalMatrixCell,
  metric: EvalDelta['metric'],
  baseline: number | null,
  current: number | null,
  words: string | null = null,
): EvalDelta {
  return {
    strategy: c.strategy,
    model: c.model,
    trace: c.trace,
    metric,
    baseline,
    current,
    delta: baseline === null || current === null ? null : current - baseline,
    regression: words !== null,
    words,
  };
}

export function runRow(strategy: string, model: string, runId: string, over: Partial<EvalRunRow> = {}): EvalRunRow {
  return {
    runId,
    key: `k-${runId}`,
    trace: TRACE,
    target: { compaction: 'cmp_1' },
    strategy,
    strategyId: strategy,
    model,
    fault: null,
    repeat: 0,
    of: 1,
    at: '2026-01-01T00:00:00Z',
    outcome: 'committed',
    error: null,
    mock: model.startsWith('mock:'),
    failed: false,
    fallback: false,
    recall: 0.5,
    staleRejection: 1,
    provenance: 1,
    structuralErrors: 0,
    missed: ['c2'],
    tokens: { before: 900, after: 300 },
    totals: { requests: 1, costUsd: 0, latencyMs: 30, wallMs: 40 },
    ...over,
  };
}

/** truncate × none 0.25; extractive × none 0.5 (regressed from 0.8); one-shot × mock:a 0.75 (missed minRecall 0.8); one-shot × mock:b = baseline. */
export function results(withBaseline: boolean): EvalResults {
  const overall = [
    cell('truncate', 'none', 0.25),
    cell('extractive', 'none', 0.5),
    cell('one-shot', 'mock:a', 0.75, {
      quality: { ...cell('x', 'y', 0.75).quality, recall: stat(0.75, 0.05, 2) },
      missed: { [`${TRACE}::c2`]: 2 },
    }),
    cell('one-shot', 'mock:b', 0.6),
  ];
  const perTrace = overall.map((c) => ({ ...c, trace: TRACE }));
  const cells = [...perTrace, ...overall];
  const [t, e, a, b] = overall as [EvalMatrixCell, EvalMatrixCell, EvalMatrixCell, EvalMatrixCell];
  const regression = delta(e, 'recall', 0.8, 0.5, 'extractive × none: recall fell from 80.0 % to 50.0 % (more than the 1.0 % tolerance)');
  const deltas = [
    delta(t, 'recall', 0.25, 0.25),
    delta(t, 'latencyP95', 10, 30),
    regression,
    delta(e, 'latencyP95', 10, 30),
    delta(a, 'recall', 0.7, 0.75),
    delta(a, 'latencyP95', 30, 30),
    delta(b, 'recall', 0.6, 0.6),
    delta(b, 'latencyP95', 10, 30),
  ];
  return {
    file: '/data/evals/x.results.jsonl',
    specName: 'demo <b>spec</b>',
    specNames: ['demo <b>spec</b>'],
    spec: { file: '/specs/demo.spec.yaml', name: 'demo <b>spec</b>', description: null, thresholds: true },
    lines: 5,
    problems: [],
    aggregate: {
      cells,
      strategies: ['truncate', 'extractive', 'one-shot'],
      models: ['none', 'mock:a', 'mock:b'],
      traces: [TRACE],
      runs: 5,
    },
    misses: [
      {
        strategy: 'one-shot',
        model: 'mock:a',
        threshold: 'minRecall',
        actual: 0.75,
        limit: 0.8,
        words: 'one-shot × mock:a: recall 75.0 % is below minRecall 80.0 %',
      },
    ],
    comparison: withBaseline ? { deltas, regressions: [regression], onlyCurrent: [], onlyBaseline: [] } : null,
    baseline: withBaseline ? { file: '/data/evals/base.results.jsonl', lines: 5, problems: [] } : null,
    runs: [
      runRow('truncate', 'none', 'r1'),
      runRow('extractive', 'none', 'r2'),
      runRow('one-shot', 'mock:a', 'r3', { missed: ['c2'] }),
      runRow('one-shot', 'mock:a', 'r4', { repeat: 1, of: 2 }),
      runRow('one-shot', 'mock:b', 'r5'),
    ],
    truncated: false,
    facts: [{ trace: TRACE, id: 'c2', category: 'constraint', text: 'Never <script>alert(1)</script> touch billing.' }],
    notes: [],
  };
}
