import { defaultPolicyFor } from '../../shared/tokens/policy';
import type { AgentBudget, SourceView } from '../../shared/strategies/types';

/**
 * The receiving agent's budget for a re-run. The window comes from, in order: the user (`--window`),
 * the route the log records, the harness's documented window (its policy preset). Never guessed
 * beyond that: without any of them the re-run asks for `--window`.
 */
export type BudgetResult =
  | { readonly ok: true; readonly budget: AgentBudget; readonly windowFrom: 'option' | 'log' | 'preset' }
  | { readonly ok: false; readonly error: string };

export function agentBudget(source: SourceView, format: string, window?: number, maxOutput?: number): BudgetResult {
  const out = maxOutput ?? source.route?.maxOutput ?? null;
  if (window !== undefined) return { ok: true, budget: { window, maxOutput: out }, windowFrom: 'option' };
  if (source.route?.window) return { ok: true, budget: { window: source.route.window, maxOutput: out }, windowFrom: 'log' };
  const preset = defaultPolicyFor(format);
  if (preset.defaultWindow) return { ok: true, budget: { window: preset.defaultWindow, maxOutput: out }, windowFrom: 'preset' };
  return { ok: false, error: 'The log does not record the context window of this session; pass --window N.' };
}
