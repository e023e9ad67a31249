/**
 * Tiny readers for untrusted parsed JSON. Claude Code lines come from disk (and from versions we
 * have never seen), so nothing is assumed about their shape: a wrong type reads as "absent".
 */

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function obj(v: unknown): Obj | undefined {
  return isObj(v) ? v : undefined;
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** A non-empty string, or undefined. */
export function id(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** A safe integer ≥ 0, or undefined. */
export function nat(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined;
}

/** A safe integer > 0, or undefined. */
export function pos(v: unknown): number | undefined {
  const n = nat(v);
  return n !== undefined && n > 0 ? n : undefined;
}

/** `s` cut to one line of at most `max` characters (only the head of a long string is looked at). */
export function oneLine(s: string, max = 120): string {
  const flat = s.slice(0, max * 2).replace(/\s+/g, ' ').trim();
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
