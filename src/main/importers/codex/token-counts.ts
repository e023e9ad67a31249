import type { EventOf } from '../../../shared/model/event';
import type { ClosedBracket } from './compaction-bracket';
import { type TokenUsage, isEstimate, mapUsage, readTokenUsage, usageKey } from './blocks';
import { type Obj, isObj, pos, str } from './json';
import { closeCall, flushPending } from './calls';
import type { CodexState } from './state';

/**
 * `event_msg/token_count`: the usage of the model call it closes, the model window, and Codex's
 * own re-estimates of the history — the one right after a `compacted` line closes the
 * compaction's bracket with its post-compaction size.
 */

export function isEstimateCount(p: Obj): boolean {
  const info = isObj(p.info) ? p.info : undefined;
  const last = info ? readTokenUsage(info.last_token_usage) : undefined;
  return last !== undefined && isEstimate(last);
}

export function tokenCount(s: CodexState, p: Obj): void {
  const info = isObj(p.info) ? p.info : undefined;
  if (!info) {
    s.record('event_msg/token_count', 'rate limits only, no usage');
    return;
  }
  const last = readTokenUsage(info.last_token_usage);
  const total = readTokenUsage(info.total_token_usage);
  const window = pos(info.model_context_window);
  if (!last) {
    s.record('event_msg/token_count', 'no last_token_usage');
    setWindow(s, window);
    return;
  }
  if (isEstimate(last)) {
    const total0 = last.total ?? 0;
    s.record('event_msg/token_count', `Codex's own estimate of the history: ${total0} tokens (not a provider count)`);
    writeEnd(s, s.compaction.estimated({ total: total0, line: s.cur.line }, s.window));
    setWindow(s, window);
    return;
  }
  const key = total ? usageKey(total) : usageKey(last);
  if (key === s.lastUsageKey) {
    s.record('event_msg/token_count', 'the previous usage report again (no new model call)');
    setWindow(s, window);
    return;
  }
  s.lastUsageKey = key;
  if (s.absorbing) {
    s.record('event_msg/token_count', "usage of the compaction's summarizer call (shown on its request)");
    setWindow(s, window);
    return;
  }
  const before = s.lastContext;
  s.lastContext = contextOf(last);
  s.compaction.counted();
  const usage = mapUsage(last);
  reportEstimate(s, last.input);
  // The first report says, for a version whose order is not known, which order the rollout uses:
  // a call whose output items are logged and not yet answered is closed by its usage.
  s.usageOrder ??= s.call.isOpen && !s.call.sawInput ? 'after-output' : 'before-output';
  if (s.usageOrder === 'before-output') {
    // The open call's usage came before it; this one belongs to the call whose items follow. An
    // earlier report still waiting had no output logged: a call of its own.
    flushPending(s);
    closeCall(s);
    s.pending.wait({ from: s.cur, usage, at: s.at, before, ahead: true });
  } else {
    const c = s.call.take();
    if (c) {
      const response: EventOf<'response'> = { kind: 'response', request: c.id };
      if (usage) response.usage = usage;
      s.emit(response);
    } else s.pending.wait({ from: s.cur, usage, at: s.at, before });
  }
  setWindow(s, window);
}

/**
 * `token_usage_record` (Codex 0.171+): the exact usage of one response (`usage`, by its
 * `response_id`; also the turn's and the thread's running totals), written as the response
 * completes — after the call's output items, before its tool outputs and before the token_count
 * that reports the same usage and closes the call. It is kept on the open call, so a call that no
 * token_count closes (a turn aborted while a tool ran, a log cut short) still gets its usage
 * (./calls.ts, `closeCall`). The records of a compaction's summarizer call are read by
 * ./summarizer.ts.
 */
export function usageRecord(s: CodexState, p: unknown): void {
  const rid = isObj(p) ? str(p.response_id) : undefined;
  s.record('token_usage_record', rid !== undefined ? `usage of ${rid}` : undefined);
  if (!s.call.isOpen || !isObj(p)) return;
  const u = readTokenUsage(p.usage);
  if (!u) return;
  const thread = readTokenUsage(p.thread_token_usage);
  s.call.record({
    usage: mapUsage(u),
    totalKey: thread ? usageKey(thread) : undefined,
    context: contextOf(u),
  });
}

/** The context size of a model call: its `total_tokens`, or input + output. */
function contextOf(u: TokenUsage): number | undefined {
  return u.total ?? (u.input !== undefined ? u.input + (u.output ?? 0) : undefined);
}

/** Explain a post-compaction estimate that was not used, with the provider's next count when there is one. */
export function reportEstimate(s: CodexState, nextInput: number | undefined | null): void {
  const note = s.compaction.takeNote();
  if (!note) return;
  const next =
    nextInput === null
      ? ' No model call follows it in the log.'
      : ` The first provider count after it (line ${s.cur.line}) is ${nextInput ?? '?'} input tokens.`;
  s.report(
    'CODEX_TOKEN_ESTIMATE',
    'info',
    `Line ${note.estimate.line}: after the compaction at line ${note.compactionLine}, Codex's own estimate of the history is ${note.estimate.total} tokens, more than the model window (${s.window ?? '?'}); it is not used as the compaction's post-compaction size.${next}`,
    [],
    note.estimate.line,
  );
}

export function setWindow(s: CodexState, window: number | undefined): void {
  if (window === undefined || window === s.window) return;
  s.window = window;
  s.emit({ kind: 'header', route: { window } });
}

/** Close the open bracket (if any) with no re-estimate after its line: its size is the estimate before it, if any. */
export function endCompaction(s: CodexState): void {
  writeEnd(s, s.compaction.close(s.window));
}

/** The `compaction/end` of a bracket just closed, at its `compacted` line. */
function writeEnd(s: CodexState, c: ClosedBracket | null): void {
  if (!c) return;
  const end: EventOf<'compaction/end'> = { kind: 'compaction/end', id: c.id, outcome: 'committed' };
  if (c.postTokens !== undefined) end.postTokens = c.postTokens;
  s.emit(end, c.from, str(c.from.value.timestamp));
}
