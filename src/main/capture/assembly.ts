import type { Finish, Usage } from '../../shared/model/event';
import type { ExchangeEvent, WireToolCall } from './exchange';

/*
 * What one protocol's decoder makes of a response, streamed or whole, before decode.ts adds what
 * all protocols share (status, HTTP errors, cut streams, timing).
 */

export interface Assembly {
  responseId: string | null;
  /** The model the response names (the request's is preferred; this is the fallback). */
  model: string | null;
  /** A response object began (message_start, response.created, a first chunk, a whole body). */
  began: boolean;
  text: string;
  reasoning: string;
  toolCalls: WireToolCall[];
  finish: Finish | null;
  usage: Usage | null;
  /** An error the provider sent inside the response (an `error` event, response.failed, …). */
  error: { code: string | null; message: string } | null;
  /** The protocol's last event arrived (message_stop, response.completed, [DONE]); true for a whole body. */
  ended: boolean;
  /** Events whose data was not JSON (skipped, counted). */
  unreadable: number;
}

export function emptyAssembly(): Assembly {
  return {
    responseId: null,
    model: null,
    began: false,
    text: '',
    reasoning: '',
    toolCalls: [],
    finish: null,
    usage: null,
    error: null,
    ended: false,
    unreadable: 0,
  };
}

/** A protocol's decoder: the events of a stream, or a whole JSON body. */
export interface ProtocolDecoder {
  /** The event that ends a complete stream, named in a cut stream's message (null: the protocol has none). */
  readonly finalEvent: string | null;
  events(events: readonly ExchangeEvent[]): Assembly;
  whole(body: unknown): Assembly;
}

/** An event's data as JSON, or undefined (counted in `unreadable`). */
export function eventJson(a: Assembly, data: string): unknown {
  try {
    return JSON.parse(data) as unknown;
  } catch {
    a.unreadable++;
    return undefined;
  }
}

/** A token count: a safe integer ≥ 0, or undefined. */
export function count(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined;
}

/** Usage without the fields that are undefined; null when none is set. */
export function usageOrNull(u: Usage): Usage | null {
  const out: Usage = {};
  for (const [k, v] of Object.entries(u) as [keyof Usage, number | undefined][]) if (v !== undefined) out[k] = v;
  return Object.keys(out).length > 0 ? out : null;
}
