/*
 * Keys must never reach a log, a run record or an error shown to the user. Every error message and
 * every recorded request passes through redactSecrets with the keys in play; well-known key shapes
 * are redacted too, so a key that was not handed in (another provider's, one pasted into a session)
 * does not leak either.
 */

export const REDACTED = '[REDACTED]';

/** Keys shorter than this are placeholders ("no-key"), not secrets; redacting them would mangle text. */
const MIN_SECRET = 8;

const SHAPES: readonly RegExp[] = [
  /sk-ant-[A-Za-z0-9_-]{16,}/g,
  /sk-(?:proj-|or-v1-|svcacct-)?[A-Za-z0-9_-]{20,}/g,
  /AIza[0-9A-Za-z_-]{35}/g,
  /(?<=\bBearer\s+)[A-Za-z0-9._~+/-]{16,}=*/gi,
  /(?<=[?&](?:key|api[-_]?key)=)[^&#\s"']+/gi,
];

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function redactSecrets(text: string, keys: readonly (string | null | undefined)[]): string {
  let out = text;
  const secrets = new Set<string>();
  for (const k of keys) {
    if (typeof k !== 'string' || k.length < MIN_SECRET) continue;
    secrets.add(k);
    // The same key as it appears in a query string or a JSON-escaped body.
    secrets.add(encodeURIComponent(k));
    secrets.add(JSON.stringify(k).slice(1, -1));
  }
  // Longest first, so a key that contains another is replaced whole.
  for (const s of [...secrets].sort((a, b) => b.length - a.length)) out = out.replace(new RegExp(escape(s), 'g'), REDACTED);
  for (const re of SHAPES) out = out.replace(re, REDACTED);
  return out;
}
