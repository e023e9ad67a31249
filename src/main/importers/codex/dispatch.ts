import type { JsonLine } from '../../reader/types';
import { flushPending } from './calls';
import { compacted } from './compacted';
import { isObj } from './json';
import type { RolloutRecord } from './records';
import { responseItem } from './response-items';
import { ensureSession, sessionMeta } from './session-meta';
import type { CodexState } from './state';
import { endCompaction, isEstimateCount, usageRecord } from './token-counts';
import { eventMsg, turnContext } from './turns';

/** Commentary Codex logs between a usage report written first and the output items it belongs to. */
const BETWEEN = new Set(['agent_reasoning', 'agent_reasoning_raw_content', 'agent_reasoning_section_break', 'agent_message', 'token_count']);

/**
 * Whether a record leaves a usage report written before its call's output items waiting for them:
 * an output item (it opens the call), an item never sent (a ghost snapshot), commentary. An input
 * (a user message, a tool output) or a turn boundary says the call's output is not in the log.
 */
function awaitsOutput(rec: RolloutRecord): boolean {
  const p = rec.payload;
  if (!isObj(p)) return false;
  if (rec.type === 'event_msg') return typeof p.type === 'string' && BETWEEN.has(p.type);
  if (rec.type !== 'response_item') return false;
  if (p.type === 'message') return p.role === 'assistant';
  return typeof p.type === 'string' && !p.type.endsWith('_output');
}

/**
 * One record, read as usual (no longer held back): what a new record ends first (a pending usage
 * report becomes its own call, an open compaction bracket closes), then its handler by type.
 */
export function readRecord(s: CodexState, l: JsonLine, rec: RolloutRecord): void {
  s.cur = l;
  s.at = rec.timestamp;
  if (rec.type !== 'session_meta') ensureSession(s);
  if (s.pending && rec.type !== 'compacted' && !(s.pending.ahead === true && awaitsOutput(rec))) flushPending(s);
  if (s.closing && !(rec.type === 'event_msg' && isObj(rec.payload) && rec.payload.type === 'token_count' && isEstimateCount(rec.payload))) {
    endCompaction(s, null);
  }
  const p = rec.payload;
  switch (rec.type) {
    case 'session_meta':
      return sessionMeta(s, p);
    case 'response_item':
      return responseItem(s, p);
    case 'turn_context':
      return turnContext(s, p);
    case 'event_msg':
      return eventMsg(s, p);
    case 'compacted':
      return compacted(s, p);
    case 'state':
      s.record('state');
      return;
    case 'token_usage_record':
      return usageRecord(s, p);
    case '':
      s.report('CODEX_BAD_RECORD', 'error', `Line ${l.line}: a line with no string "type"; it is kept as an unknown record.`);
      s.emit({ kind: 'unknown', type: '(no type)' });
      return;
    default:
      s.unknownEvent(rec.type);
  }
}
