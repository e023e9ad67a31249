import type { RunRecord } from '../rerun/record';
import type { Limits } from './spec';
import { grouped } from '../grouped';

/*
 * Spending limits (docs/eval.md, "Limits"). Before it schedules a cell, the runner asks whether
 * the spend so far (finished runs plus the expected spend of the cells in flight) plus the expected
 * spend of this cell would pass a limit; if so it schedules nothing more, lets the cells in flight
 * finish, and says which limit stopped it. A cell's expected spend is the mean of the finished runs
 * of the same strategy × model; before any has finished it is zero, so the first cell of each
 * group always runs — a limit is a budget, not a guarantee against one cell's overshoot.
 * Tokens count everything the provider reported: input + output + cache reads + cache writes.
 * Runs whose cost is unknown (no prices pinned) add to `unknownCostRuns`, not to costUsd.
 */

export interface Spend {
  readonly runs: number;
  readonly requests: number;
  readonly tokens: number;
  readonly costUsd: number;
  readonly unknownCostRuns: number;
}

export const NO_SPEND: Spend = { runs: 0, requests: 0, tokens: 0, costUsd: 0, unknownCostRuns: 0 };

export function spendOf(t: RunRecord['totals']): Spend {
  return {
    runs: 1,
    requests: t.requests,
    tokens: t.input + t.output + t.cacheRead + t.cacheWrite,
    costUsd: t.costUsd ?? 0,
    unknownCostRuns: t.costUsd === null && t.requests > 0 ? 1 : 0,
  };
}

export function addSpend(a: Spend, b: Spend): Spend {
  return {
    runs: a.runs + b.runs,
    requests: a.requests + b.requests,
    tokens: a.tokens + b.tokens,
    costUsd: a.costUsd + b.costUsd,
    unknownCostRuns: a.unknownCostRuns + b.unknownCostRuns,
  };
}

/** The mean spend of one run of a group, from its finished runs; nothing when none has finished. */
export function expectedSpend(finished: readonly Spend[]): Spend {
  if (finished.length === 0) return NO_SPEND;
  const sum = finished.reduce(addSpend, NO_SPEND);
  const n = finished.length;
  return { runs: 1, requests: sum.requests / n, tokens: sum.tokens / n, costUsd: sum.costUsd / n, unknownCostRuns: 0 };
}

const fmt = (n: number, digits = 0): string => grouped(n, digits);

/** Why the next cell must not be scheduled, or null when it may. `spent` includes the cells in flight. */
export function limitStop(limits: Limits, spent: Spend, next: Spend): string | null {
  const check = (name: string, limit: number | undefined, used: number, more: number, digits: number, unit: string): string | null => {
    if (limit === undefined) return null;
    if (used >= limit)
      return `stopped scheduling new cells: limits.${name} ${unit}${fmt(limit, digits)} reached (${unit}${fmt(used, digits)} spent, cells in flight included)`;
    if (used + more > limit)
      return `stopped scheduling new cells: the next cell (about ${unit}${fmt(more, digits)}) would pass limits.${name} ${unit}${fmt(limit, digits)} (${unit}${fmt(used, digits)} spent, cells in flight included)`;
    return null;
  };
  return (
    check('requests', limits.requests, spent.requests, next.requests, 0, '') ??
    check('tokens', limits.tokens, spent.tokens, next.tokens, 0, '') ??
    check('costUsd', limits.costUsd, spent.costUsd, next.costUsd, 4, '$')
  );
}
