import { baselines } from './baselines';
import { dshBasic } from './dsh-basic';
import { layered } from './layered';
import { oneShot } from './one-shot';
import { preemptive } from './preemptive';
import type { StrategyDef } from './types';

export type * from './types';

/** Every strategy a re-run or an eval can choose, in the order lists show them. */
export const STRATEGIES: readonly StrategyDef[] = [oneShot, layered, dshBasic, preemptive, ...baselines];

export function strategyById(id: string): StrategyDef | null {
  return STRATEGIES.find((s) => s.id === id) ?? null;
}

export const STRATEGY_IDS: readonly string[] = STRATEGIES.map((s) => s.id);
