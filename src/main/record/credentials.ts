import { createHash } from 'node:crypto';
import { CREDENTIAL_HEADERS, type Headers } from '../capture/format';

/*
 * What the capture keeps of a credential: a fingerprint that tells two keys apart and reveals
 * neither. The proxy forwards the real values untouched; only what is written is changed.
 */

export function fingerprint(value: string): string {
  return `[redacted sha256:${createHash('sha256').update(value, 'utf8').digest('hex').slice(0, 8)}]`;
}

/** Node's rawHeaders (name, value, name, value…) as [name, value] pairs, credential values fingerprinted. */
export function capturedHeaders(raw: readonly string[]): Headers {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    const value = raw[i + 1] as string;
    out.push([name, CREDENTIAL_HEADERS.has(name.toLowerCase()) ? fingerprint(value) : value]);
  }
  return out;
}

/** Gemini takes its key as a `key` query parameter: its value is fingerprinted in the captured path. */
export function capturedPath(path: string): string {
  const q = path.indexOf('?');
  if (q < 0) return path;
  const hash = path.indexOf('#', q);
  const query = path.slice(q + 1, hash < 0 ? undefined : hash);
  const parts = query.split('&').map((p) => {
    const eq = p.indexOf('=');
    const name = eq < 0 ? p : p.slice(0, eq);
    if (decodeName(name).toLowerCase() !== 'key' || eq < 0) return p;
    // Written as is (not percent-encoded), like the header fingerprints, so it reads the same.
    return `${name}=${fingerprint(p.slice(eq + 1))}`;
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
