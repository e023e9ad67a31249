/*
 * Stable identities without node:crypto (src/shared runs anywhere): canonical JSON (sorted keys)
 * and a 32-bit FNV-1a hash with a final avalanche. Used for cell keys, shards and facts
 * fingerprints, which must be the same on every machine of a CI matrix and across releases —
 * change them and every results file needs re-running.
 */

/** JSON with object keys sorted at every depth; undefined members are left out, as JSON.stringify does. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const rec = value as Record<string, unknown>;
  const keys = Object.keys(rec)
    .filter((k) => rec[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(rec[k])}`).join(',')}}`;
}

/** FNV-1a over UTF-16 code units, then murmur3's fmix32 so that near-identical keys spread evenly. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Eight hex digits of hash32. */
export function hashHex(text: string): string {
  return hash32(text).toString(16).padStart(8, '0');
}
