import type { JsonLine } from '../../reader/types';
import { flushPending } from './calls';
import { compacted } from './compacted';
import { isObj } from './json';
import type { RolloutRecord } from './records';
import { responseItem } from './response-items';
import { ensureSession, sessionMeta } from './session-meta';
import type { CodexState } from './state';
import { awaitsOutput } from '../../dialects/codex-usage-order';
import { endCompaction, isEstimateCount, usageRecord } from './token-counts';
import { eventMsg, turnContext } from './turns';

function aheadWaits(rec: RolloutRecord): boolean {
  const p = rec.payload;
  return (
    isObj(p) && awaitsOutput(rec.type, typeof p.type === 'string' ? p.type : undefined, typeof p.role === 'string' ? p.role : undefined)
  );
}

/**
 * One record, read as usual (no longer held back): what a new record ends first (a pending usage
 * report becomes its own call, an open compaction bracket closes), then its handler by type.
 */
export function readRecord(s: CodexState, l: JsonLine, rec: RolloutRecord): void {
  s.cur = l;
  s.at = rec.timestamp;
  if (rec.type !== 'session_meta') ensureSession(s);
  const estimate = rec.type === 'event_msg' && isObj(rec.payload) && rec.payload.type === 'token_count' && isEstimateCount(rec.payload);
  // A local compaction's summarizer reports its usage, then Codex re-estimates the new history
  // before it logs `compacted` (0.77: `recompute_token_usage` comes first): the report still waits
  // for the `compacted` line past that estimate.
  const waiting = s.pending.current;
  if (waiting && rec.type !== 'compacted' && !estimate && !(waiting.ahead === true && aheadWaits(rec))) flushPending(s);
  if (s.compaction.isOpen && !estimate) endCompaction(s);
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
