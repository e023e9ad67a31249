/**
 * Tiny readers for untrusted parsed JSON. DSH lines come from disk, so nothing is assumed about
 * their shape: every field is read through one of these and a wrong type reads as "absent".
 */

export { isObj, nat, pos, str, type Obj } from '../json';
import { nat } from '../json';

/** A finite number, or undefined. */
export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** An array of safe integers ≥ 0, or undefined when `v` is not one. */
export function nats(v: unknown): number[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: number[] = [];
  for (const x of v) {
    const n = nat(x);
    if (n === undefined) return undefined;
    out.push(n);
  }
  return out;
}

/** Unicode code points in `s` (what DSH's pruner counts), not UTF-16 units. */
export function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** `s` cut to one line of at most `max` characters. */
export function oneLine(s: string, max = 120): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
