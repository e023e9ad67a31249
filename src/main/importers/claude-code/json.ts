/**
 * Tiny readers for untrusted parsed JSON. Claude Code lines come from disk (and from versions we
 * have never seen), so nothing is assumed about their shape: a wrong type reads as "absent".
 */

export { id, isObj, nat, obj, str, type Obj } from '../json';

/** `s` cut to one line of at most `max` characters (only the head of a long string is looked at). */
export function oneLine(s: string, max = 120): string {
  const flat = s
    .slice(0, max * 2)
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** Length of `v` as JSON, for opaque content; undefined when it cannot be serialised. */
export function jsonChars(v: unknown): number | undefined {
  try {
    return JSON.stringify(v)?.length;
  } catch {
    return undefined;
  }
}
