import type { Usage } from '../model/event';
import type { ModelPrices } from './pinned';

/*
 * The cost of a provider's usage report under the prices a user pinned. Prices are never looked up
 * or guessed: without prices, or when the report has a token class the prices do not cover (cache
 * reads without a cache-read price), the cost is unknown (null) rather than an invented number.
 *
 * `Usage.input` excludes cache reads and writes (Anthropic's counting; the adapters normalise the
 * others to it). Reasoning tokens are not added: every provider already counts them inside output
 * (OpenAI's completion/output tokens, Anthropic's output_tokens; the Gemini adapter folds thoughts
 * into output).
 */

export interface CostBreakdown {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly total: number;
}

const PER = 1_000_000;

/** Cost in USD, per token class; null when it cannot be known from what was reported and pinned. */
export function costBreakdown(usage: Usage | null | undefined, prices: ModelPrices | null | undefined): CostBreakdown | null {
  if (!usage || !prices) return null;
  // A missing input or output count is an unknown, not zero.
  if (usage.input === undefined || usage.output === undefined) return null;
  const cacheRead = usage.cacheRead ?? 0;
  const cacheWrite = usage.cacheWrite ?? 0;
  if (cacheRead > 0 && prices.cacheRead === undefined) return null;
  if (cacheWrite > 0 && prices.cacheWrite === undefined) return null;
  const b = {
    input: (usage.input * prices.input) / PER,
    output: (usage.output * prices.output) / PER,
    cacheRead: (cacheRead * (prices.cacheRead ?? 0)) / PER,
    cacheWrite: (cacheWrite * (prices.cacheWrite ?? 0)) / PER,
  };
  return { ...b, total: b.input + b.output + b.cacheRead + b.cacheWrite };
}

/** Total cost in USD, or null when unknown (see costBreakdown). */
export function costOf(usage: Usage | null | undefined, prices: ModelPrices | null | undefined): number | null {
  return costBreakdown(usage, prices)?.total ?? null;
}

/** Sum of costs; null as soon as one is unknown (a partial sum would under-report). */
export function sumCosts(costs: readonly (number | null)[]): number | null {
  let t = 0;
  for (const c of costs) {
    if (c === null) return null;
    t += c;
  }
  return t;
}
