import { jsonTextOf } from '../../../shared/json-depth';

/**
 * Readers for untrusted parsed JSON. Rollout lines come from disk and from many Codex versions, so
 * nothing is assumed about their shape: every field is read through one of these, and a value of
 * the wrong type reads as "absent".
 */

export { isObj, nat, pos, str, type Obj } from '../json';
export { utf8Length as utf8Bytes } from '../../../shared/utf8';

/** `s` on one line, cut to at most `max` characters. */
export function oneLine(s: string, max = 120): string {
  // Only the head can show: flatten at most twice what is kept.
  const flat = (s.length > max * 2 ? s.slice(0, max * 2) : s).replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** Size of a JSON value as text, for opaque blocks; undefined when it cannot be measured. */
export function jsonChars(v: unknown): number | undefined {
  if (typeof v === 'string') return v.length;
  try {
    return JSON.stringify(v)?.length;
  } catch {
    return undefined;
  }
}

/** JSON text of a value that may be anything (arguments, actions); never throws, however deep. */
export function jsonText(v: unknown): string {
  if (typeof v === 'string') return v;
  return v === undefined ? '' : jsonTextOf(v);
}
