import { renderItems } from '../common/render';
import type { SourceItem, SummaryRequest, TokenCounter } from '../types';

/*
 * The one-shot handoff request. Rind: "The summary request keeps history and
 * retained_recent_messages separate, retaining the latter for reference without duplicating it in
 * the handoff." The two sections are tagged so the summarizer cannot mistake one for the other.
 */

export const ONE_SHOT_SYSTEM = [
  'You are compacting the history of an agent session so that its tool loop can continue.',
  'Write a handoff that replaces <history>. The agent will see: your handoff, then the messages in',
  '<retained_recent_messages> verbatim. Those recent messages are for reference only: do not repeat or',
  'summarise them in the handoff.',
  'Keep: the objective; every user requirement and constraint, word for word; decisions and their',
  'reasons; files, paths, identifiers, commands and error messages exactly as written; work completed,',
  'in progress and blocked; the next action. Write plain text, no preamble.',
].join('\n');

export const ONE_SHOT_INSTRUCTION = 'Write the handoff for <history> now.';

/** The user continuation message that opens the compacted view (Rind's pair: continuation + handoff). */
export const CONTINUATION_TEXT = [
  'This session continues from an earlier conversation that was compacted.',
  'The handoff that follows summarises that history; the messages after it are the most recent ones, kept verbatim.',
  'Continue the task from where it stands.',
].join(' ');

export interface RequestShape {
  /** First item of the history to summarise. */
  readonly from: number;
  /** First item of the retained recent tail (== items.length when there is none). */
  readonly tail: number;
}

export function oneShotRequest(items: readonly SourceItem[], shape: RequestShape, maxOutput: number): SummaryRequest {
  const history = renderItems(items, shape.from, shape.tail - 1);
  const recent = shape.tail < items.length ? renderItems(items, shape.tail) : '(none)';
  const text = `<history>\n${history}\n</history>\n\n<retained_recent_messages>\n${recent}\n</retained_recent_messages>\n\n${ONE_SHOT_INSTRUCTION}`;
  return { stage: 'one-shot', label: 'one-shot handoff', system: ONE_SHOT_SYSTEM, messages: [{ role: 'user', text }], maxOutput };
}

/** Estimated input tokens of a request: its system text and every message text. */
export function requestTokens(req: SummaryRequest, count: TokenCounter): number {
  return (req.system === null ? 0 : count(req.system)) + req.messages.reduce((n, m) => n + count(m.text), 0);
}
