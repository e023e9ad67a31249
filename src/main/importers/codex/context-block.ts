import type { JsonLine } from '../../reader/types';
import { mapResponseItem } from './blocks';
import { flushPending } from './calls';
import { readRecord } from './dispatch';
import { isObj, str } from './json';
import { type RolloutRecord, classify, payloadType } from './records';
import { ensureSession } from './session-meta';
import type { CodexState } from './state';
import { endCompaction } from './token-counts';

/**
 * Messages logged outside a turn. Right before `task_started`, Codex records the turn's context:
 * the full initial context (permissions, developer instructions, AGENTS.md, environment) the
 * first time and whenever its baseline was lost — after a resume, or after a compaction that
 * does not re-inject it — or only the settings that changed. A full block (two or more
 * developer messages, or a developer and a user message) after an ended turn, with no
 * compaction since, is a resume: a new process took the session up again in the same file.
 */
export function flushBlock(s: CodexState, next: RolloutRecord | null): void {
  const lines = s.block;
  s.block = [];
  const beforeTurn =
    next !== null && next.type === 'event_msg' && (payloadType(next) === 'task_started' || payloadType(next) === 'turn_started');
  let developer = 0;
  let user = 0;
  for (const l of lines) {
    const p = isObj(l.value.payload) ? l.value.payload : l.value;
    if (p.role === 'developer') developer++;
    else if (p.role === 'user') user++;
  }
  const first = lines[0];
  if (first && beforeTurn && s.turn.resumable && (developer >= 2 || (developer >= 1 && user >= 1))) {
    s.cur = first;
    s.at = str(first.value.timestamp);
    ensureSession(s);
    flushPending(s);
    endCompaction(s);
    s.turn.markResume();
    s.emit({ kind: 'lifecycle', boundary: 'resume' });
  }
  const head = beforeTurn ? lines.length : openingContext(s, lines);
  s.contextBlock = head > 0;
  s.contextIds = [];
  for (const l of lines.slice(0, head)) readRecord(s, l, classify(l.value, false));
  if (s.contextIds.length > 0) {
    s.initialContext = s.contextIds;
    s.initialContextLine = first?.line;
  }
  s.contextBlock = false;
  s.contextIds = [];
  for (const l of lines.slice(head)) readRecord(s, l, classify(l.value, false));
}

/**
 * A Codex that logs no turn start (0.47 to 0.7x): its initial context (user instructions, environment) is
 * the run of context messages that opens the session, before its first user message. How many
 * of the block's lines are that; 0 when something was placed already or a context is known.
 */
function openingContext(s: CodexState, lines: readonly JsonLine[]): number {
  if (s.live.length > 0 || s.initialContext.length > 0) return 0;
  let n = 0;
  for (const l of lines) {
    const p = l.value.payload;
    const m = isObj(p) ? mapResponseItem(p, '') : null;
    if (!m?.ok || !(m.item.contextual || m.item.role0 === 'developer')) break;
    n++;
  }
  return n;
}
