import type { Headers } from '../capture/format';
import { redactHeaders } from '../capture/redact';

/*
 * What the capture keeps of a credential: a fingerprint that tells two keys apart and reveals
 * neither (src/main/capture/redact.ts, which the capture readers use too). The proxy forwards the
 * real values untouched; only what is written is changed.
 */

/** Node's rawHeaders (name, value, name, value…) as [name, value] pairs, credential values fingerprinted. */
export function capturedHeaders(raw: readonly string[]): Headers {
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) pairs.push([raw[i] as string, raw[i + 1] as string]);
  return redactHeaders(pairs);
}
