import type { Finish, Usage } from '../../shared/model/event';

/*
 * One HTTP exchange as every capture reader gives it, whatever wrote the file (Palimpsest's own
 * capture, claude-trace's JSONL, a HAR 1.2 export). Readers keep what their format records and say
 * null where it does not; nothing is invented (a HAR without timings has no ttfb).
 */

export interface ExchangeEvent {
  /** Milliseconds since the exchange started (null: the format does not record arrival times). */
  readonly t: number | null;
  readonly event: string | null;
  readonly data: string;
}

export interface Exchange {
  /** Position among the capture's exchanges, in start order, from 0. */
  readonly index: number;
  /** The capture file and the 1-based line (or HAR entry number) the exchange came from. */
  readonly file: string;
  readonly line: number;
  /** anthropic | openai | gemini, when the capture says which; null otherwise (decode infers it from the path). */
  readonly provider: string | null;
  readonly method: string;
  /** Path and query, without scheme and host. */
  readonly path: string;
  /** The host the request went to, when known. */
  readonly host: string | null;
  /** Epoch milliseconds. */
  readonly startedAt: number;
  readonly ttfbMs: number | null;
  readonly totalMs: number | null;
  readonly request: {
    readonly headers: readonly (readonly [string, string])[];
    /** The body as text (decoded when it was compressed); null when the capture does not hold it. */
    readonly body: string | null;
    readonly bytes: number | null;
  };
  /** null: no response (the upstream could not be reached, or the client left before it began). */
  readonly response: {
    readonly status: number;
    readonly headers: readonly (readonly [string, string])[];
    /** A streamed response: its server-sent events in order. */
    readonly events: readonly ExchangeEvent[] | null;
    /** A whole response body as text (null for a stream, or when the capture does not hold it). */
    readonly body: string | null;
    /** false: the body was cut. */
    readonly complete: boolean;
  } | null;
  readonly error: { readonly side: 'client' | 'upstream' | 'proxy' | null; readonly code: string | null; readonly message: string } | null;
}

/** The wire protocols Palimpsest decodes. */
export type WireProtocol = 'anthropic-messages' | 'openai-responses' | 'openai-chat' | 'gemini';

/** A tool call the model made in its response. `input` is the argument text exactly as sent. */
export interface WireToolCall {
  readonly id: string;
  readonly name: string;
  readonly input: string;
}

/**
 * An exchange read as a model call: what was asked (the parsed request body) and what came back,
 * assembled from the events of a stream or from the whole body.
 */
export interface WireCall {
  readonly exchange: Exchange;
  /** null: not a model call (token counting, model lists, telemetry, anything unknown). */
  readonly protocol: WireProtocol | null;
  /** model: a generation request; count-tokens: a token-counting call; other: anything else. */
  readonly kind: 'model' | 'count-tokens' | 'other';
  /** The request body parsed as JSON (null: not JSON or not recorded). */
  readonly body: Record<string, unknown> | null;
  readonly model: string | null;
  readonly stream: boolean;
  /** The HTTP status (null: no response). */
  readonly status: number | null;
  /** The id the provider gave the response (msg_…, resp_…, chatcmpl-…), when it sent one. */
  readonly responseId: string | null;
  /** What the model wrote, assembled; null when nothing came back. */
  readonly output: { readonly text: string; readonly reasoning: string; readonly toolCalls: readonly WireToolCall[] } | null;
  readonly finish: Finish | null;
  readonly usage: Usage | null;
  /** An HTTP error body, an error event in the stream, a cut stream or a transport error, in words. */
  readonly error: { readonly code: string | null; readonly message: string } | null;
  readonly durationMs: number | null;
}

/** A capture read whole: its exchanges in start order, and the lines that could not be read. */
export interface Capture {
  readonly file: string;
  /** palimpsest | claude-trace | har */
  readonly format: string;
  readonly exchanges: readonly Exchange[];
  /** Working directory of the recorded command, when the capture says. */
  readonly cwd: string | null;
  /** Lines skipped: the file, line and why. Counted, never fatal. */
  readonly skipped: readonly { readonly file: string; readonly line: number; readonly reason: string }[];
}
