import type { Aggregate, MatrixCell, QualityMetric } from './aggregate';
import { RECALL_CATEGORIES } from './facts';
import type { Thresholds } from './spec';

/*
 * Pass thresholds of a spec, checked against the overall matrix cells (all traces) that
 * `appliesTo` selects. Quality thresholds compare the mean over repeats. A threshold on a metric
 * the cell could not measure (every run failed, or no confirmed fact of that category) is a miss:
 * a gate that cannot be checked must not pass silently. The CLI exits non-zero on any miss.
 */

export interface Miss {
  readonly strategy: string;
  readonly model: string;
  /** The threshold's name in the spec: minRecall, minRecallByCategory.decision, maxFailureRate… */
  readonly threshold: string;
  readonly actual: number | null;
  readonly limit: number;
  readonly words: string;
}

const pct = (x: number): string => `${(x * 100).toFixed(1)} %`;

function applies(t: Thresholds, c: MatrixCell): boolean {
  const a = t.appliesTo;
  return (
    c.trace === null &&
    (a?.strategies === undefined || a.strategies.includes(c.strategy)) &&
    (a?.models === undefined || a.models.includes(c.model))
  );
}

export function checkThresholds(agg: Aggregate, t: Thresholds): Miss[] {
  const misses: Miss[] = [];
  for (const c of agg.cells) {
    if (!applies(t, c)) continue;
    const who = `${c.strategy} × ${c.model}`;
    const miss = (threshold: string, actual: number | null, limit: number, words: string): void => {
      misses.push({ strategy: c.strategy, model: c.model, threshold, actual, limit, words: `${who}: ${words}` });
    };
    const atLeast = (threshold: string, metric: QualityMetric, limit: number | undefined, name: string): void => {
      if (limit === undefined) return;
      const s = c.quality[metric];
      if (s === null)
        miss(
          threshold,
          null,
          limit,
          `${name} could not be measured (${c.failures.count === c.failures.of ? 'every run failed' : 'no confirmed facts for it'}); ${threshold} is ${pct(limit)}`,
        );
      else if (s.mean < limit) miss(threshold, s.mean, limit, `${name} ${pct(s.mean)} is below ${threshold} ${pct(limit)}`);
    };
    atLeast('minRecall', 'recall', t.minRecall, 'recall');
    for (const cat of RECALL_CATEGORIES)
      atLeast(`minRecallByCategory.${cat}`, cat, t.minRecallByCategory?.[cat], `${cat.replace('_', ' ')} recall`);
    atLeast('minStaleRejection', 'staleRejection', t.minStaleRejection, 'stale-fact rejection');
    atLeast('minProvenance', 'provenance', t.minProvenance, 'provenance');
    if (t.maxStructuralErrors !== undefined) {
      const worst = c.structural.maxErrorsPerRun;
      if (worst === null) miss('maxStructuralErrors', null, t.maxStructuralErrors, 'no clean run to check structural errors on');
      else if (worst > t.maxStructuralErrors)
        miss(
          'maxStructuralErrors',
          worst,
          t.maxStructuralErrors,
          `a run has ${worst} error-level diagnostics, more than maxStructuralErrors ${t.maxStructuralErrors}`,
        );
    }
    if (t.maxFailureRate !== undefined) {
      const r = c.failures.rate;
      if (r === null) miss('maxFailureRate', null, t.maxFailureRate, 'no clean run to measure failures on');
      else if (r > t.maxFailureRate)
        miss(
          'maxFailureRate',
          r,
          t.maxFailureRate,
          `${c.failures.count} of ${c.failures.of} runs failed (${pct(r)}), above maxFailureRate ${pct(t.maxFailureRate)}`,
        );
    }
    // Recovery only applies where faults were injected (mock models); elsewhere there is nothing to check.
    if (t.minRecovery !== undefined && c.recovery.rate !== null && c.recovery.rate < t.minRecovery) {
      miss(
        'minRecovery',
        c.recovery.rate,
        t.minRecovery,
        `${c.recovery.committed} of ${c.recovery.of} runs under injected faults committed (${pct(c.recovery.rate)}), below minRecovery ${pct(t.minRecovery)}`,
      );
    }
  }
  return misses;
}
