import { parseOverflow } from './overflow';
import { redactSecrets } from './redact';
import { parseRetryAfter } from './retry-after';
import type { AttemptError } from './types';
import type { WireRecord } from './wire';

/*
 * One classification for every SDK. It relies first on what the recording fetch saw (status, error
 * body, retry headers, whether fetch itself failed) and on which signal aborted, and only then on
 * the shape of the thrown error, so the three SDKs' different exception classes matter little.
 *
 * Retryable (our one retry policy, retry.ts): connection errors, cut streams, timeouts, 408, 409,
 * 429 and every 5xx (Anthropic's 529 overloaded included), and in-stream "overloaded"/server
 * errors. Not retryable: other 4xx, context overflow, cancellation.
 */

/** Abort reasons our own controllers use, so a timeout is told apart from a cancellation. */
export const ABORT_TIMEOUT = 'palimpsest:attempt-timeout';
export const ABORT_CANCELLED = 'palimpsest:cancelled';

/** An in-stream failure a protocol reports (Responses `response.failed`, Gemini error chunk, …). */
export class StreamFailure extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = 'StreamFailure';
  }
}

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

const RETRYABLE_TYPE = /overloaded|server_error|api_error|internal|unavailable|rate_limit|timeout/i;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null;

/** `error.message` of a JSON error body, as OpenAI, Anthropic and Gemini all shape it. */
function bodyMessage(body: string | null): string | null {
  if (!body) return null;
  try {
    const j: unknown = JSON.parse(body);
    const err = isObj(j) ? (Array.isArray(j) ? j[0] : j) : null;
    const inner: unknown = isObj(err) ? err.error : null;
    if (isObj(inner) && typeof inner.message === 'string') return inner.message;
    if (isObj(err) && typeof err.message === 'string') return err.message;
  } catch {
    // Not JSON (a proxy's HTML page): the first line of it is the message.
    return body.split('\n')[0]?.slice(0, 500) ?? null;
  }
  return null;
}

function thrownMessage(e: unknown): string {
  if (e instanceof Error) {
    const cause = e.cause instanceof Error ? ` (${e.cause.message})` : '';
    return `${e.message}${cause}`;
  }
  return String(e);
}

/** Status an SDK error carries (OpenAI/Anthropic APIError.status, Gemini ApiError.status). */
function thrownStatus(e: unknown): number | null {
  if (e instanceof StreamFailure) return e.status;
  if (isObj(e) && typeof e.status === 'number' && e.status >= 400 && e.status < 600) return e.status;
  return null;
}

/** Type of an in-stream API error (Anthropic `error` event, OpenAI `data.error`). */
function inStreamType(e: unknown): string | null {
  if (e instanceof StreamFailure) return e.type;
  if (!isObj(e)) return null;
  if (typeof e.type === 'string') return e.type;
  const err = e.error;
  if (isObj(err)) {
    if (typeof err.type === 'string') return err.type;
    if (isObj(err.error) && typeof err.error.type === 'string') return err.error.type;
    if (typeof err.code === 'string') return err.code;
  }
  return null;
}

export interface ClassifyContext {
  readonly wire: WireRecord;
  readonly signal: AbortSignal;
  readonly keys: readonly (string | null | undefined)[];
  readonly now: number;
}

function make(kind: AttemptError['kind'], message: string, ctx: ClassifyContext, extra: Partial<AttemptError> = {}): AttemptError {
  return { kind, message: redactSecrets(message, ctx.keys), retryable: false, retryAfterMs: null, ...extra };
}

/** The abort, when our signal fired: a timeout (retryable) or a cancellation (final). */
export function abortError(ctx: ClassifyContext, timeoutMs: number): AttemptError | null {
  if (!ctx.signal.aborted) return null;
  if (ctx.signal.reason === ABORT_TIMEOUT) return make('timeout', `no complete answer within ${timeoutMs} ms`, ctx, { retryable: true });
  return make('cancelled', 'cancelled', ctx);
}

export function classifyThrown(e: unknown, ctx: ClassifyContext, timeoutMs: number): AttemptError {
  const aborted = abortError(ctx, timeoutMs);
  if (aborted) return aborted;
  const w = ctx.wire;
  const status = w.status !== null && w.status >= 400 ? w.status : thrownStatus(e);
  const message = bodyMessage(w.errorBody) ?? thrownMessage(e);
  const overflow = parseOverflow(status, message, w.errorBody);
  if (overflow) {
    const extra: Partial<AttemptError> = {
      ...(status !== null ? { status } : {}),
      ...(overflow.window !== null ? { window: overflow.window } : {}),
    };
    return make('overflow', `context overflow: ${message}`, ctx, extra);
  }
  if (status !== null) {
    const retryAfterMs = w.status === status ? parseRetryAfter(w.retryAfter, w.retryAfterMs, ctx.now) : null;
    return make('http', `HTTP ${status}: ${message}`, ctx, { status, retryable: isRetryableStatus(status), retryAfterMs });
  }
  const type = inStreamType(e);
  if (type !== null && w.status !== null && w.status < 400) {
    return make('http', `stream error ${type}: ${message}`, ctx, { retryable: RETRYABLE_TYPE.test(type) });
  }
  if (w.fetchFailed) return make('network', `connection failed: ${message}`, ctx, { retryable: true });
  // The response started (2xx) and its body broke off: a cut stream.
  if (w.status !== null) return make('network', `the stream broke off: ${message}`, ctx, { retryable: true });
  // Nothing was sent: the SDK refused the call (bad options). Retrying cannot help.
  return make('http', `the request was not sent: ${message}`, ctx);
}
