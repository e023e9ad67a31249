import { createHash } from 'node:crypto';
import { CREDENTIAL_HEADERS } from './format';

/*
 * Captures written by other tools keep credentials: a HAR from browser devtools holds whole
 * Authorization headers and cookies, claude-trace keeps the first ten and last four characters of
 * an API key. Nothing read from a capture may carry them further, so every reader passes headers
 * and paths through here: a credential header's value becomes the fingerprint Palimpsest's own
 * captures use (`[redacted sha256:<8 hex>]`, which tells two values apart and reveals neither),
 * and so is the value of a `key` query parameter (Gemini's API key). `palimpsest record` writes its
 * captures through the same functions.
 */

const FINGERPRINTED = /^\[redacted sha256:[0-9a-f]{8}\]$/;
/** Query parameters that carry an API key (Gemini's `key`, and the spellings other gateways use). */
const KEY_PARAMS: ReadonlySet<string> = new Set(['key', 'api_key', 'api-key', 'apikey']);

/** The fingerprint of a credential value; a value that already is one is kept. */
export function fingerprint(value: string): string {
  if (FINGERPRINTED.test(value)) return value;
  return `[redacted sha256:${createHash('sha256').update(value, 'utf8').digest('hex').slice(0, 8)}]`;
}

/** Headers with every credential value replaced by its fingerprint. */
export function redactHeaders(headers: Iterable<readonly [string, string]>): [string, string][] {
  const out: [string, string][] = [];
  for (const [name, value] of headers) out.push(CREDENTIAL_HEADERS.has(name.toLowerCase()) ? [name, fingerprint(value)] : [name, value]);
  return out;
}

/** A path with the value of an API-key query parameter replaced by its fingerprint (written as is, not percent-encoded, like the header fingerprints). */
export function redactPath(path: string): string {
  const q = path.indexOf('?');
  if (q < 0) return path;
  const hash = path.indexOf('#', q);
  const query = path.slice(q + 1, hash < 0 ? undefined : hash);
  const parts = query.split('&').map((p) => {
    const eq = p.indexOf('=');
    if (eq < 0 || !KEY_PARAMS.has(decodeName(p.slice(0, eq)).toLowerCase())) return p;
    return `${p.slice(0, eq)}=${fingerprint(p.slice(eq + 1))}`;
  });
  return `${path.slice(0, q + 1)}${parts.join('&')}${hash < 0 ? '' : path.slice(hash)}`;
}

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}
