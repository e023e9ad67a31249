import { sentences } from '../text';

/*
 * Decisions: sentences that choose — "we'll use …", "I'll go with …", "decided …", "instead of …",
 * "rather than …", "the fix is …", "root cause …", "switched to …". Said by the user or the agent.
 */

const DECISION =
  /\b(?:we will|we'll|we are going to|I'll (?:use|go with|keep|switch|take|stick)|I will (?:use|go with|keep)|let'?s (?:use|go with|keep|switch|stick)|decided|decision|going with|we chose|I chose|opted for|instead of|rather than|switch(?:ed|ing)? to|the fix is|the root cause|root cause is|the approach is|plan is to)\b/i;

export function decisionsIn(text: string): string[] {
  return sentences(text, 16, 300).filter((s) => DECISION.test(s) && !/\?\s*$/.test(s));
}
