import type { EventOf, Finish, Usage } from '../../../shared/model/event';
import type { JsonLine } from '../../reader/types';
import { mapUsage, readTokenUsage } from './blocks';
import { closeCall, flushPending } from './calls';
import { readRecord } from './dispatch';
import { type Obj, isObj, str } from './json';
import { SUMMARY_PREFIX_HEAD } from './known';
import type { Hold } from './held-lines';
import { type RolloutRecord, payloadType } from './records';
import type { CodexState } from './state';
import { endCompaction } from './token-counts';

/**
 * Codex 0.171's compaction summarizer calls, told apart from agent calls by the lines that follow
 * them (see `Hold` in ./held-lines.ts): a logged reply taken as a local compaction's output by the
 * `compacted` line after it (./compacted.ts places it), and a failed compaction left only as a
 * usage record.
 */

/** The summarizer's logged reply, taken from a `reply` hold by the `compacted` line that follows it. */
export interface SummarizerReply {
  readonly line: JsonLine;
  readonly payload: Obj;
  /** Its `token_usage_record` (per response, exact), when one followed it. */
  readonly usage: { readonly from: JsonLine; readonly usage: Usage | undefined } | undefined;
}

/** Start holding lines back (see `Hold`), or not. */
export function startHold(s: CodexState, l: JsonLine, rec: RolloutRecord): boolean {
  if (!s.turn.open || s.pending.current) return false;
  const p = rec.payload;
  if (rec.type === 'response_item' && isObj(p) && p.type === 'message' && p.role === 'assistant' && (!s.call.isOpen || s.call.sawInput)) {
    return s.held.start('reply', l, rec);
  }
  if (rec.type === 'token_usage_record' && isObj(p) && !s.call.isOpen && s.turn.untouched) {
    return s.held.start('failed', l, rec);
  }
  return false;
}

/** The next line while lines are held (s.held.kind is not null): held too (true), or it decides what they are (false: read it as usual). */
export function holdLine(s: CodexState, l: JsonLine, rec: RolloutRecord): boolean {
  const pt = payloadType(rec);
  const usageLine = rec.type === 'token_usage_record' || (rec.type === 'event_msg' && pt === 'token_count');
  if (s.held.kind === 'reply') {
    if (usageLine && s.held.add(l, rec)) return true;
    const h = s.held.take() as Hold;
    const [first] = h.lines;
    if (
      rec.type === 'compacted' &&
      isObj(rec.payload) &&
      isObj(first.rec.payload) &&
      isSummaryReply(first.l, first.rec.payload, rec.payload)
    ) {
      const usageRec = h.lines.find((x) => x.rec.type === 'token_usage_record');
      const u = usageRec && isObj(usageRec.rec.payload) ? readTokenUsage(usageRec.rec.payload.usage) : undefined;
      s.summarizer = {
        line: first.l,
        payload: first.rec.payload,
        usage: usageRec ? { from: usageRec.l, usage: u ? mapUsage(u) : undefined } : undefined,
      };
      closeCall(s);
      for (const x of h.lines.slice(1)) readRecord(s, x.l, x.rec);
      return false;
    }
    release(s, h);
    return false;
  }
  if (rec.type === 'event_msg' && (pt === 'task_complete' || pt === 'turn_complete') && isObj(rec.payload) && isObj(rec.payload.error)) {
    failedCompaction(s, s.held.take() as Hold, l, rec.payload.error);
    return false;
  }
  const p = rec.payload;
  const waits =
    (rec.type === 'event_msg' &&
      (pt === 'token_count' || pt === 'item_completed' || pt === 'user_message' || pt === 'thread_settings_applied')) ||
    rec.type === 'world_state' ||
    rec.type === 'turn_context' ||
    (rec.type === 'response_item' && isObj(p) && p.type === 'message' && p.role === 'user');
  if (waits && s.held.add(l, rec)) return true;
  release(s, s.held.take() as Hold);
  return false;
}

/** Held lines that are not a summarizer's: read them as usual. */
export function release(s: CodexState, h: Hold): void {
  for (const x of h.lines) {
    if (!s.turn.open && x.rec.type === 'response_item' && payloadType(x.rec) === 'message') s.block.push(x.l);
    else readRecord(s, x.l, x.rec);
  }
}

/**
 * A compaction that failed (Codex 0.171+): a summarizer call logged only by its
 * `token_usage_record`, before the turn's user message, and a turn that ends with an error and
 * no output. Codex fails the turn when the summary is cut at the output limit, and writes no
 * `compacted`; the history stays as it was.
 */
export function failedCompaction(s: CodexState, h: Hold, endLine: JsonLine, err: Obj): void {
  const [first] = h.lines;
  s.cur = first.l;
  s.at = first.rec.timestamp;
  flushPending(s);
  endCompaction(s);
  closeCall(s);
  const id = `cmp:L${first.l.line}`;
  // Copies: the live list grows as the turn goes on, and events are never mutated.
  const source = [...s.live];
  const start: EventOf<'compaction/start'> = { kind: 'compaction/start', id, trigger: 'unknown', strategy: 'local', source };
  if (s.lastContext !== undefined) start.preTokens = s.lastContext;
  if (s.window !== undefined) start.policy = { window: s.window };
  s.emit(start);
  const reqId = `req:${++s.requestCount}`;
  s.emit({ kind: 'request', id: reqId, purpose: 'compaction', compactionId: id, input: { items: [...source], instruction: null } });
  const u = isObj(first.rec.payload) ? readTokenUsage(first.rec.payload.usage) : undefined;
  const usage = u ? mapUsage(u) : undefined;
  const message = str(err.message) ?? 'the turn failed';
  const code = str(err.codex_error_info);
  const error: { code?: string; message: string } = { message };
  if (code !== undefined) error.code = code;
  const finish: Finish | undefined = /max_output_tokens/.test(message) ? { raw: 'max_output_tokens', reason: 'length' } : undefined;
  const response: EventOf<'response'> = { kind: 'response', request: reqId, error };
  if (finish) response.finish = finish;
  if (usage) response.usage = usage;
  s.emit(response);
  const endAt = str(endLine.value.timestamp);
  const summaryError: EventOf<'compaction/summary-error'> = { kind: 'compaction/summary-error', id, error };
  if (finish) summaryError.finish = finish;
  if (usage) summaryError.usage = usage;
  s.emit(summaryError, endLine, endAt);
  s.emit({ kind: 'compaction/end', id, outcome: 'failed', error }, endLine, endAt);
  s.record(
    'token_usage_record',
    `usage of the failed compaction's summarizer call${str(isObj(first.rec.payload) ? first.rec.payload.response_id : undefined) !== undefined ? ` (${String((first.rec.payload as Obj).response_id)})` : ''}`,
  );
  s.absorbing = true;
  for (const x of h.lines.slice(1)) readRecord(s, x.l, x.rec);
  s.absorbing = false;
}

/** Text of a message's text parts, joined. */
function messageText(p: Obj): string {
  if (typeof p.content === 'string') return p.content;
  if (!Array.isArray(p.content)) return '';
  return p.content.map((c) => (isObj(c) && typeof c.text === 'string' ? c.text : '')).join('');
}

/**
 * An assistant reply is a local compaction's summarizer output when the `compacted` line right
 * after it carries its text as the summary (`message`, or the SUMMARY_PREFIX user message of
 * `replacement_history`), or when Codex marked it (`metadata.compaction_output`, 0.171).
 */
export function isSummaryReply(line: JsonLine, reply: Obj, compacted: Obj): boolean {
  const meta = line.value.metadata;
  if (isObj(meta) && meta.compaction_output === true) return true;
  const text = messageText(reply).trim();
  if (text === '') return false;
  const ends = (s: string): boolean => s.trim() === text || s.trimEnd().endsWith(`\n${text}`);
  const message = str(compacted.message);
  if (message !== undefined && ends(message)) return true;
  if (!Array.isArray(compacted.replacement_history)) return false;
  return compacted.replacement_history.some(
    (r) => isObj(r) && r.type === 'message' && r.role === 'user' && messageText(r).startsWith(SUMMARY_PREFIX_HEAD) && ends(messageText(r)),
  );
}
