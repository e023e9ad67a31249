/*
 * Rind: "The summary request reserves an output budget of min(8,192, window/10) and then
 * leaves 5% of the window as headroom." The window is the summarizer's own when known: cosh says
 * a summarizer's window sizes its requests, while the raw tail and the commit budget stay the agent's.
 */

export const OUTPUT_RESERVE_CAP = 8_192;
/** Reserve = min(cap, window / 10). */
export const OUTPUT_RESERVE_DIVISOR = 10;
/** Headroom = 5 % of the window. */
export const HEADROOM_PERCENT = 5;

export interface SummaryBudget {
  readonly window: number;
  /** Whose window it is: the summarizer's, or the agent's when the summarizer's is unknown. */
  readonly windowOf: 'summarizer' | 'agent';
  /** Output ceiling sent with the summary request. */
  readonly reserve: number;
  readonly headroom: number;
  /** What the request itself (instruction + history + reference tail) may take. */
  readonly input: number;
}

export function summaryBudget(summarizerWindow: number | null, agentWindow: number): SummaryBudget {
  const windowOf = summarizerWindow !== null && summarizerWindow > 0 ? 'summarizer' : 'agent';
  const window = windowOf === 'summarizer' ? (summarizerWindow as number) : agentWindow;
  // Integer arithmetic: 5 % of 100,000 is exactly 5,000, not 5,000.000000000001.
  const reserve = Math.min(OUTPUT_RESERVE_CAP, Math.floor(window / OUTPUT_RESERVE_DIVISOR));
  const headroom = Math.floor((window * HEADROOM_PERCENT) / 100);
  return { window, windowOf, reserve, headroom, input: Math.max(0, window - reserve - headroom) };
}
