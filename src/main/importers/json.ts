/**
 * Tiny readers for untrusted parsed JSON, shared by the importers. Session lines come from disk and
 * from harness versions never seen, so nothing is assumed about their shape: every field is read
 * through one of these, and a value of the wrong type reads as "absent".
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
