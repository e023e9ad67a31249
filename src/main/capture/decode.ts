import { isObj, str } from '../importers/json';
import type { Assembly, ProtocolDecoder } from './assembly';
import { anthropicDecoder } from './decode-anthropic';
import { geminiDecoder } from './decode-gemini';
import { openaiChatDecoder } from './decode-openai-chat';
import { openaiResponsesDecoder } from './decode-openai-responses';
import type { Exchange, ExchangeEvent, WireCall, WireProtocol } from './exchange';

/*
 * An exchange read as a model call. The protocol comes from the path alone (each protocol's
 * endpoints end differently, behind any base path a gateway adds); the response is assembled by
 * that protocol's decoder; then what all share: an HTTP error body, an error the provider sent
 * mid-stream, a transport error, or a stream that stopped before its final event.
 */

const DECODERS: Record<WireProtocol, ProtocolDecoder> = {
  'anthropic-messages': anthropicDecoder,
  'openai-responses': openaiResponsesDecoder,
  'openai-chat': openaiChatDecoder,
  gemini: geminiDecoder,
};

const GEMINI = /\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/;

export interface Route {
  readonly protocol: WireProtocol | null;
  readonly kind: WireCall['kind'];
  /** Gemini names the model in the path. */
  readonly model: string | null;
  /** Gemini says streaming in the path (streamGenerateContent). */
  readonly stream: boolean;
}

/** The protocol and kind of a request path (with or without its query). */
export function routeOf(path: string): Route {
  const p = (path.split('?')[0] ?? '').replace(/\/+$/, '');
  if (p.endsWith('/v1/messages/count_tokens')) return { protocol: 'anthropic-messages', kind: 'count-tokens', model: null, stream: false };
  if (p.endsWith('/v1/messages')) return { protocol: 'anthropic-messages', kind: 'model', model: null, stream: false };
  if (p.endsWith('/responses/input_tokens')) return { protocol: 'openai-responses', kind: 'count-tokens', model: null, stream: false };
  if (p.endsWith('/responses')) return { protocol: 'openai-responses', kind: 'model', model: null, stream: false };
  if (p.endsWith('/chat/completions')) return { protocol: 'openai-chat', kind: 'model', model: null, stream: false };
  const g = GEMINI.exec(p);
  if (g) {
    let model: string | null;
    try {
      model = decodeURIComponent(g[1] ?? '');
    } catch {
      model = g[1] ?? null;
    }
    return { protocol: 'gemini', kind: g[2] === 'countTokens' ? 'count-tokens' : 'model', model, stream: g[2] === 'streamGenerateContent' };
  }
  return { protocol: null, kind: 'other', model: null, stream: false };
}

function json(text: string | null): unknown {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** An event's name for a message: its `event:` field, else its data's `type`, else "data". */
function eventName(ev: ExchangeEvent): string {
  if (ev.event !== null) return ev.event;
  const d = json(ev.data);
  return isObj(d) ? (str(d.type) ?? 'data') : ev.data.trim() === '[DONE]' ? '[DONE]' : 'data';
}

/** The error of an HTTP status ≥ 400: the provider's error JSON, else the body's first 500 characters. */
function httpError(status: number, text: string | null): { code: string; message: string } {
  const body = json(text);
  const err = isObj(body) && isObj(body.error) ? body.error : null;
  const code = (err && (str(err.type) ?? str(err.status))) ?? String(status);
  const message = (err && str(err.message)) ?? (text !== null && text !== '' ? text.slice(0, 500) : `HTTP ${status} with no body`);
  return { code, message };
}

/** Why a response is cut, or null when it ended as its protocol says it should. */
function cutOf(x: Exchange, d: ProtocolDecoder, a: Assembly): string | null {
  const r = x.response;
  if (r === null) return null;
  if (r.events !== null) {
    const n = r.events.length;
    const last = r.events.at(-1);
    const after = `after ${n} ${n === 1 ? 'event' : 'events'}${last ? ` (the last: ${eventName(last)})` : ''}`;
    if (!r.complete) return `the stream was cut ${after}`;
    if (d.finalEvent !== null && !a.ended) return `the stream ended ${after} without ${d.finalEvent}`;
    return null;
  }
  return r.complete ? null : 'the response body was cut before its end';
}

export function decodeCall(x: Exchange): WireCall {
  const route = routeOf(x.path);
  const parsed = json(x.request.body);
  const body = isObj(parsed) ? parsed : null;
  const r = x.response;
  const base = {
    exchange: x,
    protocol: route.protocol,
    kind: route.kind,
    body,
    model: (body && str(body.model)) ?? route.model,
    stream: body?.stream === true || route.stream || (r?.events ?? null) !== null,
    status: r?.status ?? null,
    durationMs: x.totalMs,
  };
  const transport = x.error ? { code: x.error.code, message: x.error.message } : null;
  if (r !== null && r.status >= 400) {
    const text = r.body ?? (r.events ? r.events.map((e) => e.data).join('\n') : null);
    return { ...base, responseId: null, output: null, finish: null, usage: null, error: httpError(r.status, text) };
  }
  if (route.protocol === null || route.kind !== 'model' || r === null) {
    return { ...base, responseId: null, output: null, finish: null, usage: null, error: transport };
  }
  const decoder = DECODERS[route.protocol];
  const a = r.events !== null ? decoder.events(r.events) : decoder.whole(json(r.body));
  const cut = cutOf(x, decoder, a);
  let error: WireCall['error'] = a.error;
  if (error === null && cut !== null)
    error = { code: r.events !== null ? 'stream_cut' : 'body_cut', message: transport ? `${cut}: ${transport.message}` : cut };
  if (error === null) error = transport;
  return {
    ...base,
    model: base.model ?? a.model,
    responseId: a.responseId,
    output: a.began ? { text: a.text, reasoning: a.reasoning, toolCalls: a.toolCalls } : null,
    finish: a.finish,
    usage: a.usage,
    error,
  };
}
