import type { StrategyDef } from '../types';
import { clearTools } from './clear-tools';
import { extractive } from './extractive';
import { truncate } from './truncate';

/** The model-free baselines every evaluation can run next to the strategies that follow a compaction system. */
export const baselines: readonly StrategyDef[] = [truncate, clearTools, extractive];
export { clearTools, extractive, truncate };
