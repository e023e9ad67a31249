import type { Fetch } from './types';

/*
 * The recording fetch handed to every SDK. It sees exactly what the SDK sends, so the record is the
 * request as sent rather than our idea of it: URL, method and body bytes — never headers, which
 * carry the key. For error responses it reads the body once (and gives the SDK an identical copy)
 * so classification does not depend on how each SDK words its exceptions, and it keeps the
 * retry-after headers our retry policy honours.
 */

export interface WireRecord {
  /** Fetch calls made (SDK retries are off, so more than one is a bug). */
  requests: number;
  url: string | null;
  method: string | null;
  body: string | null;
  bodyBytes: number;
  status: number | null;
  /** Body of a non-2xx response (at most ERROR_BODY_MAX characters). */
  errorBody: string | null;
  retryAfter: string | null;
  retryAfterMs: string | null;
  /** fetch itself rejected (connection refused, reset, DNS, aborted). */
  fetchFailed: boolean;
}

const ERROR_BODY_MAX = 64 * 1024;

function emptyRecord(): WireRecord {
  return {
    requests: 0,
    url: null,
    method: null,
    body: null,
    bodyBytes: 0,
    status: null,
    errorBody: null,
    retryAfter: null,
    retryAfterMs: null,
    fetchFailed: false,
  };
}

async function bodyOf(input: string | URL | Request, init: RequestInit | undefined): Promise<{ text: string | null; bytes: number }> {
  const b = init?.body;
  if (b === undefined || b === null) {
    if (input instanceof Request && input.body !== null) {
      const buf = Buffer.from(await input.clone().arrayBuffer());
      return { text: buf.toString('utf8'), bytes: buf.length };
    }
    return { text: null, bytes: 0 };
  }
  if (typeof b === 'string') return { text: b, bytes: Buffer.byteLength(b) };
  if (b instanceof ArrayBuffer) return { text: Buffer.from(b).toString('utf8'), bytes: b.byteLength };
  if (ArrayBuffer.isView(b)) {
    const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
    return { text: buf.toString('utf8'), bytes: buf.length };
  }
  if (b instanceof Blob) return { text: await b.text(), bytes: b.size };
  if (b instanceof URLSearchParams) {
    const s = b.toString();
    return { text: s, bytes: Buffer.byteLength(s) };
  }
  // A stream or form body cannot be read without consuming it; none of our SDKs sends one for JSON calls.
  return { text: null, bytes: 0 };
}

function urlOf(input: string | URL | Request): string {
  return typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
}

export function recordingFetch(base: Fetch = globalThis.fetch): { fetch: Fetch; wire: WireRecord } {
  const wire = emptyRecord();
  const fetch: Fetch = async (input, init) => {
    wire.requests++;
    wire.url = urlOf(input);
    wire.method = init?.method ?? (input instanceof Request ? input.method : 'GET');
    const body = await bodyOf(input, init);
    wire.body = body.text;
    wire.bodyBytes = body.bytes;
    let res: Response;
    try {
      res = await base(input, init);
    } catch (e) {
      wire.fetchFailed = true;
      throw e;
    }
    wire.status = res.status;
    wire.retryAfter = res.headers.get('retry-after');
    wire.retryAfterMs = res.headers.get('retry-after-ms');
    if (res.ok) return res;
    const text = await res.text();
    wire.errorBody = text.slice(0, ERROR_BODY_MAX);
    return new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  return { fetch, wire };
}
