import type { Route } from '../../../shared/model/event';
import { closeCall } from './calls';
import { rollback } from './history';
import { isObj, oneLine, pos, str } from './json';
import { EVENT_MSG_TYPES } from './known';
import type { CodexState } from './state';
import { setWindow, tokenCount } from './token-counts';

/**
 * `turn_context` (the route of the next sampling rounds) and `event_msg` (turn starts and ends,
 * aborts, rollbacks, usage; the rest are records).
 */

export function turnContext(s: CodexState, p: unknown): void {
  if (!isObj(p)) {
    s.bad('turn_context', 'turn_context has no payload object');
    return;
  }
  // Codex writes one before each sampling round: the open call's round, if inputs came, is over.
  s.call.round();
  const model = str(p.model);
  const effort = str(p.effort);
  const change: Route = {};
  if (model !== undefined && model !== s.route.model) change.model = model;
  if (effort !== undefined && effort !== s.route.reasoning) change.reasoning = effort;
  if (Object.keys(change).length > 0) {
    s.route = { ...s.route, ...change };
    s.emit({ kind: 'header', route: change, reason: 'turn_context' });
    return;
  }
  // Codex writes one per sampling round, nearly always the same: one summary string for all.
  const key = `${model ?? ''}\u0000${effort ?? ''}`;
  if (key !== s.contextSummary.key) s.contextSummary = { key, text: [model, effort].filter((x) => x !== undefined).join(', ') };
  s.record('turn_context', s.contextSummary.text || undefined);
}

export function eventMsg(s: CodexState, p: unknown): void {
  const t = isObj(p) ? str(p.type) : undefined;
  if (!isObj(p) || t === undefined) {
    s.bad('event_msg', 'event_msg has no payload object with a string "type"');
    return;
  }
  switch (t) {
    case 'token_count':
      return tokenCount(s, p);
    case 'task_started':
    case 'turn_started':
      closeCall(s);
      s.emit({ kind: 'lifecycle', boundary: 'turn-start', turn: s.turn.start() });
      setWindow(s, pos(p.model_context_window));
      return;
    case 'task_complete':
    case 'turn_complete':
      closeCall(s);
      turnError(s, t, p.error);
      endTurn(s);
      return;
    case 'turn_aborted': {
      // A call whose usage was written before its items had completed: the abort came after it.
      const completed = s.usageOrder === 'before-output' && s.call.recorded?.usage !== undefined;
      closeCall(s, completed ? undefined : { raw: 'turn_aborted', reason: 'cancelled' });
      const reason = str(p.reason);
      s.record('event_msg/turn_aborted', reason !== undefined ? `turn aborted: ${reason}` : 'turn aborted');
      endTurn(s);
      return;
    }
    case 'thread_rolled_back':
      return rollback(s, p);
    case 'user_message':
    case 'agent_message': {
      const m = str(p.message);
      s.record(`event_msg/${t}`, m !== undefined ? oneLine(m) : undefined);
      return;
    }
    case 'agent_reasoning': {
      const m = str(p.text);
      s.record(`event_msg/${t}`, m !== undefined ? oneLine(m) : undefined);
      return;
    }
    default:
      if (EVENT_MSG_TYPES.has(t)) s.record(`event_msg/${t}`);
      else s.unknownEvent(`event_msg/${t}`);
  }
}

/**
 * A turn that ended with an error (0.171: `task_complete.error`, e.g. a summarizer answered 503 on
 * every retry) is kept as a record: it is the only trace such a failure leaves in the rollout, and
 * the diagnostics read it (TURN_FAILED_BEFORE_RESPONSE_INFERRED).
 */
function turnError(s: CodexState, type: string, err: unknown): void {
  if (!isObj(err)) return;
  const message = str(err.message);
  const info = str(err.codex_error_info);
  const text = message !== undefined ? oneLine(message) : 'no message';
  s.record(`event_msg/${type}`, `error: ${text}${info !== undefined ? ` (${oneLine(info, 60)})` : ''}`);
}

function endTurn(s: CodexState): void {
  s.emit({ kind: 'lifecycle', boundary: 'turn-end', turn: s.turn.end() });
}
