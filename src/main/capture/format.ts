import { z } from 'zod';

/*
 * The capture file `palimpsest record` writes (docs/capture.md): JSON lines, UTF-8. The first line
 * is a header; every other line is one exchange, appended when the exchange ends (complete, failed,
 * or cut by either side), so lines are in end order, and `seq` gives start order.
 *
 * Nothing secret is written: the values of credential headers (authorization, x-api-key, api-key,
 * x-goog-api-key, cookie, set-cookie, proxy-authorization) are replaced by a fingerprint, `[redacted
 * sha256:<first 8 hex of the SHA-256 of the value>]`, which tells two keys apart and reveals neither.
 * The value of a `key` query parameter (Gemini) is fingerprinted the same way in `path`.
 */

export const CAPTURE_VERSION = 1;

/** [name, value] pairs in the order and case they were sent. */
export const Headers = z.array(z.tuple([z.string(), z.string()]));
export type Headers = z.infer<typeof Headers>;

/**
 * A body, exactly: UTF-8 text, or base64 when the bytes are not valid UTF-8. Compressed bodies
 * (content-encoding) are kept as sent (base64) and, when the encoding is known, decoded in `decoded`.
 */
export const CapturedBody = z.object({
  encoding: z.enum(['utf8', 'base64']),
  data: z.string(),
  bytes: z.number().int().nonnegative(),
  sha256: z.string(),
  /** The text after undoing content-encoding, when there was one and it could be undone. */
  decoded: z.string().optional(),
});
export type CapturedBody = z.infer<typeof CapturedBody>;

/** One server-sent event as it arrived: milliseconds since the exchange started, its name and data. */
export const CapturedEvent = z.object({
  t: z.number().nonnegative(),
  event: z.string().nullable(),
  data: z.string(),
});
export type CapturedEvent = z.infer<typeof CapturedEvent>;

export const CaptureHeader = z.object({
  type: z.literal('capture'),
  v: z.literal(CAPTURE_VERSION),
  /** The tool and its version that wrote the file. */
  writer: z.string(),
  startedAt: z.string(),
  /** Working directory of the recorded command (finds the session it belongs to). */
  cwd: z.string().optional(),
  /** The recorded command's name (argv[0] only: arguments may hold secrets). */
  command: z.string().optional(),
  /** provider → upstream origin the proxy forwarded to. */
  upstreams: z.record(z.string(), z.string()),
});
export type CaptureHeader = z.infer<typeof CaptureHeader>;

export const CapturedError = z.object({
  /** Who ended the exchange abnormally: the client went away, the upstream failed or cut the stream, or the proxy itself. */
  side: z.enum(['client', 'upstream', 'proxy']),
  code: z.string().nullable(),
  message: z.string(),
});
export type CapturedError = z.infer<typeof CapturedError>;

export const CapturedExchange = z.object({
  type: z.literal('exchange'),
  /** Start order, from 0. */
  seq: z.number().int().nonnegative(),
  /** The provider route the proxy chose (anthropic, openai, gemini), from the path prefix. */
  provider: z.string(),
  upstream: z.string(),
  method: z.string(),
  /** Path and query as the upstream received it (after the provider prefix was removed). */
  path: z.string(),
  startedAt: z.string(),
  request: z.object({
    headers: Headers,
    body: CapturedBody,
  }),
  /** null: no response started (the upstream could not be reached, or the client left first). */
  response: z
    .object({
      status: z.number().int(),
      headers: Headers,
      /** A `text/event-stream` response: its events, in arrival order (`body` is then absent). */
      events: z.array(CapturedEvent).optional(),
      body: CapturedBody.optional(),
      /** false: the body was cut (by the upstream, the client or the proxy); see `error`. */
      complete: z.boolean(),
    })
    .nullable(),
  error: CapturedError.nullable(),
  timings: z.object({
    /** Milliseconds from the request's arrival to the first response byte from the upstream. */
    ttfbMs: z.number().nonnegative().nullable(),
    /** Milliseconds from the request's arrival to the end of the exchange. */
    totalMs: z.number().nonnegative(),
  }),
});
export type CapturedExchange = z.infer<typeof CapturedExchange>;

export const CaptureLine = z.discriminatedUnion('type', [CaptureHeader, CapturedExchange]);
export type CaptureLine = z.infer<typeof CaptureLine>;

/** Header names whose values are credentials: never written, replaced by a fingerprint. */
export const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'api-key',
  'x-goog-api-key',
  'openai-api-key',
  'cookie',
  'set-cookie',
]);
