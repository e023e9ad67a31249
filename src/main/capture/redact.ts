import { createHash } from 'node:crypto';
import { CREDENTIAL_HEADERS } from './format';

/*
 * Captures written by other tools keep credentials: a HAR from browser devtools holds whole
 * Authorization headers and cookies, claude-trace keeps the first ten and last four characters of
 * an API key. Nothing read from a capture may carry them further, so every reader passes headers
 * and paths through here: a credential header's value becomes the fingerprint Palimpsest's own
 * captures use (`[redacted sha256:<8 hex>]`, which tells two values apart and reveals neither),
 * and a `key` query parameter (Gemini's API key) is blanked.
 */

const FINGERPRINTED = /^\[redacted sha256:[0-9a-f]{8}\]$/;
const KEY_PARAM = /([?&](?:key|api[-_]?key)=)[^&#]*/gi;

/** The fingerprint of a credential value; a value that already is one is kept. */
export function fingerprint(value: string): string {
  if (FINGERPRINTED.test(value)) return value;
  return `[redacted sha256:${createHash('sha256').update(value).digest('hex').slice(0, 8)}]`;
}

/** Headers with every credential value replaced by its fingerprint. */
export function redactHeaders(headers: Iterable<readonly [string, string]>): (readonly [string, string])[] {
  const out: (readonly [string, string])[] = [];
  for (const [name, value] of headers) out.push(CREDENTIAL_HEADERS.has(name.toLowerCase()) ? [name, fingerprint(value)] : [name, value]);
  return out;
}

/** A path with the value of a `key` (or `api_key`) query parameter blanked. */
export function redactPath(path: string): string {
  return path.replace(KEY_PARAM, '$1[redacted]');
}
