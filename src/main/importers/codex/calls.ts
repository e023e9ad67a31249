import type { EventOf, Finish, Usage } from '../../../shared/model/event';
import type { JsonLine } from '../../reader/types';
import type { CodexState } from './state';

// Model calls.
//
// Codex logs no request: each sampling round's output items (reasoning, messages, calls) are
// followed by a `token_count` whose `last_token_usage` is that call's usage; tool outputs and
// the next turn's input come after. A call opens at its first output item (the request is
// emitted right before it, so the view at the request is the history before the call) and
// closes at the next token_count that reports new usage; an output item after inputs with no
// usage report in between starts a new call (the old one gets a response without usage). Where
// the usage comes first (Codex 0.4x writes a round's calls and their outputs interleaved, after
// it), the output item must also follow a new round's turn_context to start a new call.

export interface PendingUsage {
  readonly from: JsonLine;
  /** Written before the output items of its call (src/main/dialects/codex-usage-order.ts): the next output item's call takes it. */
  readonly ahead?: boolean;
  readonly usage: Usage | undefined;
  readonly at: string | undefined;
  /** The context size before this report (a summarizer's report must not count as the size it compacted). */
  readonly before: number | undefined;
}

export function openCall(s: CodexState): void {
  const id = `req:${++s.requestCount}`;
  s.emit({ kind: 'request', id, purpose: 'agent' });
  // A usage report written before its output items belongs to the call they open.
  const ahead = s.pending.takeAhead();
  s.call.open(id, ahead ? { usage: ahead.usage, totalKey: undefined, context: undefined } : null);
  s.turn.request();
}

/**
 * The response of a call no usage report closed (an output item after inputs, the turn's end, an
 * abort, a compaction, the end of the file). A call whose `token_usage_record` was logged gets its
 * usage from it, and the token_count that would have reported it, should it still come, is then
 * the same report again, not a new call.
 */
export function closeCall(s: CodexState, finish?: Finish): void {
  const c = s.call.take();
  if (!c) return;
  const response: EventOf<'response'> = { kind: 'response', request: c.id };
  if (finish) response.finish = finish;
  const r = c.recorded;
  if (r) {
    if (r.usage) response.usage = r.usage;
    if (r.totalKey !== undefined) s.lastUsageKey = r.totalKey;
    if (r.context !== undefined) s.lastContext = r.context;
  }
  s.emit(response);
}

/** A usage report for a call whose output items are not in the log: request and response both from its line. */
export function flushPending(s: CodexState): void {
  const p = s.pending.take();
  if (!p) return;
  const id = `req:${++s.requestCount}`;
  s.emit({ kind: 'request', id, purpose: 'agent' }, p.from, p.at);
  const response: EventOf<'response'> = { kind: 'response', request: id };
  if (p.usage) response.usage = p.usage;
  s.emit(response, p.from, p.at);
  s.turn.request();
  if (s.withoutOutput) s.withoutOutput.count++;
  else s.withoutOutput = { count: 1, line: p.from.line };
}
