import { fmt } from '../common/result';
import { shortenToolBodies, type CutRule } from '../common/shorten';
import type { SourceItem, SummaryRequest, TokenCounter } from '../types';
import type { SummaryBudget } from './budget';
import { oneShotRequest, requestTokens, type RequestShape } from './request';

/*
 * Rind's budget precheck: "The budget precheck only shortens over-long tool bodies; it never
 * deletes user text or tool arguments. If the input still does not fit, the commit is rejected."
 * Bodies are cut to their first 2,000 and last 2,000 characters with the omitted amount marked.
 * Rind is a Python CLI, where a character is a code point, so the cut counts code points (and so can
 * never split a surrogate pair).
 */

export const BODY_HEAD = 2_000;
export const BODY_TAIL = 2_000;

export const bodyMarker = (omitted: number): string => `\n[... ${fmt(omitted)} characters omitted ...]\n`;

export const RIND_BODY_RULE: CutRule = {
  threshold: BODY_HEAD + BODY_TAIL,
  head: BODY_HEAD,
  tail: BODY_TAIL,
  unit: 'codepoints',
  marker: bodyMarker,
};

export interface PrecheckResult {
  readonly fits: boolean;
  readonly request: SummaryRequest;
  /** Estimated input tokens of the (possibly shortened) request. */
  readonly tokens: number;
  /** Tool bodies shortened in the history and in the reference copy of the recent tail. */
  readonly shortenedHistory: number;
  readonly shortenedTail: number;
  /** Characters (code points) taken out over all shortened bodies. */
  readonly omitted: number;
}

/**
 * Build the request and make it fit the budget, least loss first: as is; then with the history's
 * over-long tool bodies shortened; then with the reference copy of the recent tail shortened too
 * (the tail itself stays verbatim in the view). Never touches user text or tool call arguments.
 */
export function precheck(items: readonly SourceItem[], shape: RequestShape, budget: SummaryBudget, count: TokenCounter): PrecheckResult {
  const work = [...items];
  const measure = (): { request: SummaryRequest; tokens: number } => {
    const request = oneShotRequest(work, shape, budget.reserve);
    return { request, tokens: requestTokens(request, count) };
  };
  let current = measure();
  let shortenedHistory = 0;
  let shortenedTail = 0;
  let omitted = 0;
  const passes: readonly (readonly [number, number, 'history' | 'tail'])[] = [
    [shape.from, shape.tail, 'history'],
    [shape.tail, items.length, 'tail'],
  ];
  for (const [from, to, where] of passes) {
    if (current.tokens <= budget.input) break;
    let n = 0;
    for (let i = from; i < to; i++) {
      const it = work[i] as SourceItem;
      const cut = shortenToolBodies(it.blocks, RIND_BODY_RULE);
      if (!cut) continue;
      work[i] = { ...it, blocks: cut.blocks };
      n += cut.cuts;
      omitted += cut.omitted;
    }
    if (n === 0) continue;
    if (where === 'history') shortenedHistory = n;
    else shortenedTail = n;
    current = measure();
  }
  return { fits: current.tokens <= budget.input, ...current, shortenedHistory, shortenedTail, omitted };
}
