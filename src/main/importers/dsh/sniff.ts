import { isObj, str } from './json';
import { HEADER_TYPE, KNOWN_TYPES, PACKED_ROW_TYPES, STREAM_EVENT_TYPE } from './known-types';

/**
 * Confidence that the first lines are a DSH log: a header line `{type:"session", version, id,
 * createdAt, delegationDepth?…}` and/or event lines `{type:"turn/start"|…, data}` (or packed chunk
 * rows, or headless stream-json `session_event` wrappers).
 */

function isHeader(v: Record<string, unknown>): boolean {
  return v.type === HEADER_TYPE && v.data === undefined && typeof v.version === 'number' && typeof v.id === 'string';
}

function isEventLine(v: Record<string, unknown>): boolean {
  const type = str(v.type);
  if (type === undefined) return false;
  if (type === STREAM_EVENT_TYPE) return isObj(v.event) && isEventLine(v.event);
  return (KNOWN_TYPES.has(type) || PACKED_ROW_TYPES.has(type)) && isObj(v.data);
}

export function sniffDsh(first: readonly Record<string, unknown>[], path: string): number {
  const head = first[0];
  if (!head) return 0;
  const header = isHeader(head);
  const rest = header ? first.slice(1) : first;
  const events = rest.filter(isEventLine).length;
  const share = rest.length === 0 ? 0 : events / rest.length;
  const named = /(^|[\\/])(session(\.\d+)?|seed)\.jsonl(\.zstd)?$/.test(path) ? 0.05 : 0;
  if (header) {
    let score = 0.7;
    if (typeof head.createdAt === 'number') score += 0.1;
    if (head.delegationDepth !== undefined || typeof head.parentSession === 'string') score += 0.05;
    return Math.min(1, score + 0.1 * share + named);
  }
  if (events === 0) return 0;
  // Event lines without a header: a DSH log cut at the top, or stream-json output.
  return Math.min(0.9, (share >= 0.5 ? 0.5 + 0.35 * share : 0.4 * share) + named);
}
