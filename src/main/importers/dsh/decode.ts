import { type Obj, isObj, nat, num, str } from './json';
import { HEADER_TYPE, PACKED_ROW_TYPES, STREAM_EVENT_TYPE, STREAM_OTHER_TYPES } from './known-types';
import { expandPackedRow } from './packed';
import { shown } from '../shown';

/**
 * One parsed line → what it stores: the header, one session event, the members of a packed chunk
 * row, or (in headless stream-json output) a wrapper line that is no session event. Pure; the
 * importer and rehydrate both read lines through it.
 */

/** One DSH `SessionEvent` as stored, its fields unchecked except the envelope's types. */
export interface DshEvent {
  readonly type: string;
  /** The seq the file writes; undefined in normalised snapshots (seq is then the running count). */
  readonly seq: number | undefined;
  readonly time: number | undefined;
  readonly data: unknown;
  readonly ignorable: boolean;
  readonly sourceEventSeqs: unknown;
  readonly surfaceOp: unknown;
  /** Set on members expanded from a packed chunk row. */
  readonly packed?: { readonly row: string; readonly member: number };
}

export type DecodedLine =
  | { readonly kind: 'header'; readonly header: Obj }
  | {
      readonly kind: 'events';
      /** Empty only when a packed row could not be expanded at all (see `problem`). */
      readonly events: DshEvent[];
      /** Set when the line came from a packed chunk row (its tag). */
      readonly packedRow?: string;
      /** What is wrong with the line's envelope, when something is. */
      readonly problem?: string;
      /** The stream-json wrapper's session id, when the line was wrapped. */
      readonly sessionId?: string;
    }
  | { readonly kind: 'stream'; readonly type: string; readonly value: Obj; readonly sessionId?: string };

function eventOf(v: Obj): { event: DshEvent; problem?: string } {
  const type = str(v.type);
  const seq = v.seq === undefined ? undefined : nat(v.seq);
  const event: DshEvent = {
    type: type ?? '',
    seq,
    time: num(v.time),
    data: v.data,
    ignorable: v.ignorable === true,
    sourceEventSeqs: v.sourceEventSeqs,
    surfaceOp: v.surfaceOp,
  };
  if (type === undefined || type === '') return { event, problem: 'the record has no "type"' };
  if (v.seq !== undefined && seq === undefined) return { event, problem: `"seq" must be a non-negative integer, not ${shown(v.seq)}` };
  return { event };
}

function decodeRecord(v: Obj, sessionId?: string): DecodedLine {
  const type = str(v.type);
  if (type !== undefined && PACKED_ROW_TYPES.has(type)) {
    const x = expandPackedRow(v);
    const base = { kind: 'events' as const, events: x.events, packedRow: type };
    return x.problem === undefined ? base : { ...base, problem: x.problem };
  }
  const { event, problem } = eventOf(v);
  const out = { kind: 'events' as const, events: [event] };
  const withProblem = problem === undefined ? out : { ...out, problem };
  return sessionId === undefined ? withProblem : { ...withProblem, sessionId };
}

export function decodeLine(v: Obj): DecodedLine {
  const type = str(v.type);
  if (type === HEADER_TYPE && v.data === undefined) return { kind: 'header', header: v };
  if (type === STREAM_EVENT_TYPE && v.data === undefined) {
    const sessionId = str(v.sessionId);
    if (isObj(v.event)) return decodeRecord(v.event, sessionId);
    const { event } = eventOf({});
    return {
      kind: 'events',
      events: [event],
      problem: 'a stream-json "session_event" line has no "event" object',
      ...(sessionId === undefined ? {} : { sessionId }),
    };
  }
  if (type !== undefined && STREAM_OTHER_TYPES.has(type) && v.data === undefined && v.sessionId !== undefined) {
    const sessionId = str(v.sessionId);
    return sessionId === undefined ? { kind: 'stream', type, value: v } : { kind: 'stream', type, value: v, sessionId };
  }
  return decodeRecord(v);
}
