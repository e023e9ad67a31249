import type { Item } from '../../model/item';
import type { CandidateView, MapReduceTrace, SourceItem, StrategyInput, StrategyResult, SummaryCall } from '../types';
import { RERUN_COMPACTION_ID } from '../common/result';
import type { CutPlan } from './plan';

export const STRATEGY_ID = 'layered';

/** A source item kept verbatim: same id, same blocks. */
function keep(it: SourceItem): Item {
  return { id: it.id, role: it.role, blocks: [...it.blocks], ...(it.meta !== undefined ? { meta: it.meta } : {}) };
}

/**
 * The text actually installed: a one-line frame saying what the checkpoint covers, then the handoff.
 * cosh: "All commit paths measure the annotated text they actually install."
 */
export function annotate(summary: string, plan: CutPlan, tailLength: number): string {
  const n = plan.to - plan.from + 1;
  return `[Checkpoint (layered): summary of items #${plan.from}–#${plan.to} (${n} items); the ${tailLength} most recent item(s) follow verbatim]\n\n${summary}`;
}

/**
 * The candidate view: system + leading system items + one checkpoint + the raw tail. The checkpoint
 * is composed before the raw tail (cosh: "the checkpoint is composed before the raw tail even
 * though its event was appended afterward").
 */
export function candidateView(input: StrategyInput, plan: CutPlan, installed: string): CandidateView {
  const items = input.source.items;
  const covers = items.slice(plan.from, plan.to + 1).map((it) => it.id);
  // The same run-local compaction id every strategy uses, so a candidate written as a log has one bracket.
  const compactionId = RERUN_COMPACTION_ID;
  const checkpoint: Item = {
    id: `${STRATEGY_ID}:checkpoint`,
    role: 'user',
    blocks: [{ type: 'text', text: installed }],
    derivation: { kind: 'checkpoint', compactionId, covers, part: 'summary' },
    origin: `strategy:${STRATEGY_ID}`,
  };
  return {
    system: input.source.system,
    tools: input.source.tools,
    items: [...items.slice(0, plan.headEnd).map(keep), checkpoint, ...items.slice(plan.tailFrom).map(keep)],
  };
}

/**
 * The commit budget: the agent's window less the output it reserves for its next reply. cosh:
 * "Checkpoint commit still respects the agent's budget"; "A handoff that still exceeds the commit
 * budget is rejected without changing the committed view."
 */
export function commitBudget(input: StrategyInput): number {
  return input.budget.window - (input.budget.maxOutput ?? 0);
}

export interface Records {
  readonly calls: readonly SummaryCall[];
  readonly notes: readonly string[];
  readonly mapreduce: MapReduceTrace | null;
  readonly before: number;
}

export function committed(view: CandidateView, installed: string, r: Records, after: number): StrategyResult {
  return {
    strategy: STRATEGY_ID,
    outcome: 'committed',
    view,
    summary: installed,
    calls: r.calls,
    error: null,
    notes: r.notes,
    mapreduce: r.mapreduce,
    tokens: { before: r.before, after },
  };
}

/** The source stands: no view, the reason, and whatever progress was made (calls, trace). */
export function failed(error: string, r: Records): StrategyResult {
  return {
    strategy: STRATEGY_ID,
    outcome: 'failed',
    view: null,
    summary: null,
    calls: r.calls,
    error,
    notes: r.notes,
    mapreduce: r.mapreduce,
    tokens: { before: r.before, after: null },
  };
}
