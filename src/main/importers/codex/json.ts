/**
 * Readers for untrusted parsed JSON. Rollout lines come from disk and from many Codex versions, so
 * nothing is assumed about their shape: every field is read through one of these, and a value of
 * the wrong type reads as "absent".
 */

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
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

/** JSON text of a value that may be anything (arguments, actions); never throws. */
export function jsonText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined) return '';
  try {
    return JSON.stringify(v) ?? '';
  } catch {
    return String(v);
  }
}

/** UTF-8 byte length of a string, without allocating a buffer. */
export function utf8Bytes(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}
