import type { Fault, Reply, RequestDigest } from '../script';

/** One server-sent event: `event: <event>` (when given) and `data: <JSON of data>`, or `data: <rawData>` when given (Chat's `[DONE]`). */
export interface SseEvent {
  readonly event?: string;
  readonly data: unknown;
  readonly rawData?: string;
}

/** What the server sends for one request. */
export type Answer =
  | { readonly kind: 'json'; readonly status: number; readonly headers?: Record<string, string>; readonly body: unknown }
  | {
      readonly kind: 'sse';
      readonly status: number;
      readonly headers?: Record<string, string>;
      readonly events: readonly SseEvent[];
      /** Destroy the socket after this many events (a stream cut mid-way). */
      readonly cutAfter?: number;
    }
  /** Destroy the connection before any byte. */
  | { readonly kind: 'destroy' };

/** Per-request facts an adapter may use when rendering (ids, sizes). */
export interface RenderContext {
  /** 0-based index of the request in the server's recording. */
  readonly seq: number;
  /** Raw body length in bytes (the default input-token estimate is a quarter of it). */
  readonly bodyBytes: number;
  readonly digest: RequestDigest;
  /** The parsed JSON body (null when the body is not JSON). */
  readonly body: unknown;
  /** The request path with its query string (Gemini reads `alt=sse` from it). */
  readonly path: string;
}

/** A route an adapter serves: which requests it takes and what it does with them. */
export interface Route {
  readonly method: string;
  /** Matches the path without its query string. */
  readonly path: (path: string) => boolean;
  /** `scripted`: answered from the script; `aux`: answered by the adapter alone (count_tokens, models). */
  readonly role: 'scripted' | 'aux';
}

/**
 * A wire protocol the mock speaks. To add one, write one of these and add it to PROTOCOLS
 * (./index.ts): routing, recording, matching, delays and the answerer come for free.
 */
export interface ProtocolAdapter {
  readonly id: string;
  readonly routes: readonly Route[];
  /**
   * Text and facts of a request for matching. `body` is the parsed JSON (null if unparsable), `path`
   * the request path with its query (Gemini names the model and the streaming mode there).
   */
  digest(body: unknown, raw: string, path: string): RequestDigest;
  reply(reply: Reply, ctx: RenderContext): Answer;
  fault(fault: Fault, ctx: RenderContext): Answer;
  /** Answer an `aux` route. */
  aux?(route: Route, ctx: RenderContext): Answer;
}
