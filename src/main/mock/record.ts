import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { readRegularFileSync } from '../files/open-regular';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { decompress as zstdDecompress } from 'fzstd';
import { z } from 'zod';
import { CREDENTIAL_HEADERS } from '../capture/format';

/*
 * The recording: one JSON line per request the mock received, appended before it answers, so the
 * file is in arrival order even when the client gives up mid-answer. The request is kept byte for
 * byte: method, path with query, headers in their original order and case (secrets removed and
 * named in `redacted`), the raw body (UTF-8 text, or base64 when it is not valid UTF-8) with its
 * length and SHA-256; a compressed body (content-encoding) is also kept decoded in `decoded`.
 */

/** Headers never written to the recording (their names are listed in `redacted`): the credential headers every capture leaves out. */
export const SECRET_HEADERS: ReadonlySet<string> = CREDENTIAL_HEADERS;

/** Gemini also accepts its API key as `?key=`; the value is replaced in the recorded path and `?key` listed in `redacted`. */
const KEY_PARAM = /([?&]key=)[^&#]*/g;

export const CapturedRequest = z.object({
  seq: z.number().int().nonnegative(),
  at: z.string(),
  method: z.string(),
  /** Path with its query string, as sent (the value of a `key` parameter blanked). */
  path: z.string(),
  /** [name, value] pairs as sent (original order and case), without secrets. */
  headers: z.array(z.tuple([z.string(), z.string()])),
  /** Names of the headers left out (and `?key` when a key query parameter was blanked). */
  redacted: z.array(z.string()),
  body: z.string(),
  bodyEncoding: z.enum(['utf8', 'base64']),
  bodyBytes: z.number().int().nonnegative(),
  sha256: z.string(),
  /** The body after undoing content-encoding (gzip, deflate, br, zstd), when it had one. */
  decoded: z.string().optional(),
  /** The protocol adapter that took it; null: no route (answered 404). */
  protocol: z.string().nullable(),
  /** What the mock answered: the script step (null: fallback or none), its label, the status and what kind. */
  answer: z.object({
    step: z.number().int().nullable(),
    label: z.string().nullable(),
    status: z.number().int(),
    kind: z.string(),
  }),
});
export type CapturedRequest = z.infer<typeof CapturedRequest>;

/** The body as text: the decoded body when there was a content-encoding, else the raw UTF-8. */
export function bodyText(r: Pick<CapturedRequest, 'body' | 'bodyEncoding' | 'decoded'>): string {
  if (r.decoded !== undefined) return r.decoded;
  return r.bodyEncoding === 'utf8' ? r.body : Buffer.from(r.body, 'base64').toString('utf8');
}

/** The body parsed as JSON, or null. */
export function bodyJson(r: Pick<CapturedRequest, 'body' | 'bodyEncoding' | 'decoded'>): unknown {
  try {
    return JSON.parse(bodyText(r)) as unknown;
  } catch {
    return null;
  }
}

/** Undo a content-encoding; null when there is none or it cannot be undone. */
export function decodeBody(raw: Buffer, encoding: string | null): Buffer | null {
  if (!encoding || encoding === 'identity') return null;
  try {
    switch (encoding.trim().toLowerCase()) {
      case 'gzip':
      case 'x-gzip':
        return gunzipSync(raw);
      case 'deflate':
        return inflateSync(raw);
      case 'br':
        return brotliDecompressSync(raw);
      case 'zstd':
        return Buffer.from(zstdDecompress(new Uint8Array(raw)));
      default:
        return null;
    }
  } catch {
    return null;
  }
}

export function captureOf(input: {
  seq: number;
  method: string;
  path: string;
  rawHeaders: readonly string[];
  body: Buffer;
  protocol: string | null;
  answer: CapturedRequest['answer'];
  at?: Date;
}): CapturedRequest {
  const headers: [string, string][] = [];
  const redacted: string[] = [];
  let encoding: string | null = null;
  for (let i = 0; i + 1 < input.rawHeaders.length; i += 2) {
    const k = input.rawHeaders[i] as string;
    const v = input.rawHeaders[i + 1] as string;
    if (SECRET_HEADERS.has(k.toLowerCase())) {
      redacted.push(k);
      continue;
    }
    if (k.toLowerCase() === 'content-encoding') encoding = v;
    headers.push([k, v]);
  }
  const path = input.path.replace(KEY_PARAM, '$1REDACTED');
  if (path !== input.path) redacted.push('?key');
  const utf8 = isUtf8(input.body);
  const decoded = decodeBody(input.body, encoding);
  const c: CapturedRequest = {
    seq: input.seq,
    at: (input.at ?? new Date()).toISOString(),
    method: input.method,
    path,
    headers,
    redacted,
    body: utf8 ? input.body.toString('utf8') : input.body.toString('base64'),
    bodyEncoding: utf8 ? 'utf8' : 'base64',
    bodyBytes: input.body.length,
    sha256: createHash('sha256').update(input.body).digest('hex'),
    protocol: input.protocol,
    answer: input.answer,
  };
  if (decoded) c.decoded = decoded.toString('utf8');
  return c;
}

/** Appends captured requests to a JSONL file (synchronously: one line per request, in arrival order). */
export class Recorder {
  constructor(readonly path: string | null) {}

  append(c: CapturedRequest): void {
    if (this.path) appendFileSync(this.path, `${JSON.stringify(c)}\n`);
  }
}

/** Reads a recording; lines that do not parse are reported, not fatal. */
export function readCaptured(path: string): { requests: CapturedRequest[]; errors: string[] } {
  const requests: CapturedRequest[] = [];
  const errors: string[] = [];
  const lines = readRegularFileSync(path).split('\n');
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      const r = CapturedRequest.safeParse(JSON.parse(line));
      if (r.success) requests.push(r.data);
      else errors.push(`${path}:${i + 1}: ${r.error.issues[0]?.message ?? 'invalid'}`);
    } catch (e) {
      errors.push(`${path}:${i + 1}: ${e instanceof Error ? e.message : String(e)}`);
    }
  });
  return { requests, errors };
}
