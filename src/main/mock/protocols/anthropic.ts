import { anthropicOverflowMessage } from '../../providers/overflow-messages';
import type { Fault, Reply, RequestDigest, StopReason } from '../script';
import { type Obj, arr, deltas, isObj, overflowTokens, positiveInt, stopOf, str, toolInput, usageOf } from './common';
import type { Answer, ProtocolAdapter, RenderContext, Route, SseEvent } from './types';

/*
 * The Anthropic Messages API: POST /v1/messages (streaming SSE or JSON) and
 * POST /v1/messages/count_tokens. Claude Code sends `?beta=true`; the query is ignored.
 * A `missing` finish: the stream ends cleanly after the last content_block_stop, with no
 * message_delta (so no stop_reason) and no message_stop; a JSON answer has `stop_reason: null`.
 */

export const ANTHROPIC_ID = 'anthropic-messages';

const STOP: Record<Exclude<StopReason, 'missing'>, string> = {
  end: 'end_turn',
  tool: 'tool_use',
  length: 'max_tokens',
  refusal: 'refusal',
  pause: 'pause_turn',
  stop_sequence: 'stop_sequence',
};

const ERROR_TYPE: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

/** Text of a content value (string or blocks), tool results and tool inputs included. */
function contentText(c: unknown): string {
  if (typeof c === 'string') return c;
  const parts: string[] = [];
  for (const b of arr(c)) {
    if (!isObj(b)) continue;
    switch (b.type) {
      case 'text':
        parts.push(str(b.text));
        break;
      case 'thinking':
        parts.push(str(b.thinking));
        break;
      case 'tool_use':
        parts.push(JSON.stringify(b.input ?? {}));
        break;
      case 'tool_result':
        parts.push(contentText(b.content));
        break;
      default:
        break;
    }
  }
  return parts.join('\n');
}

function digest(body: unknown, raw: string): RequestDigest {
  const b: Obj = isObj(body) ? body : {};
  const messages = arr(b.messages).filter(isObj);
  const users = messages.filter((m) => m.role === 'user');
  return {
    protocol: ANTHROPIC_ID,
    model: typeof b.model === 'string' ? b.model : null,
    stream: b.stream === true,
    system: contentText(b.system),
    text: messages.map((m) => contentText(m.content)).join('\n'),
    firstUser: users[0] ? contentText(users[0].content) : '',
    lastUser: contentText(users.at(-1)?.content),
    hasTools: arr(b.tools).length > 0,
    maxOutput: positiveInt(b.max_tokens),
    raw,
  };
}

/** The wire stop_reason; null for a missing finish. */
function stopReason(reply: Reply): string | null {
  const stop = stopOf(reply);
  if (stop === 'missing') return null;
  return reply.rawStop ?? STOP[stop];
}

function modelOf(reply: Reply, ctx: RenderContext): string {
  return reply.model ?? ctx.digest.model ?? 'mock-model';
}

function callId(ctx: RenderContext, i: number, given?: string): string {
  return given ?? `toolu_mock_${ctx.seq}_${i}`;
}

function contentBlocks(reply: Reply, ctx: RenderContext): Obj[] {
  return reply.content.map((b, i) => {
    switch (b.type) {
      case 'text':
        return { type: 'text', text: b.text };
      case 'thinking':
        return { type: 'thinking', thinking: b.text, signature: b.signature ?? `mock-signature-${ctx.seq}-${i}` };
      case 'tool_call':
        return {
          type: 'tool_use',
          id: callId(ctx, i, b.id),
          name: b.name,
          input: typeof b.input === 'string' ? safeParse(b.input) : b.input,
        };
    }
  });
}

function safeParse(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}

function usageBody(reply: Reply, ctx: RenderContext, output: number | null): Obj {
  const u = usageOf(reply, ctx);
  return {
    input_tokens: u.input,
    cache_creation_input_tokens: u.cacheWrite,
    cache_read_input_tokens: u.cacheRead,
    output_tokens: output ?? u.output,
  };
}

function messageId(ctx: RenderContext): string {
  return `msg_mock_${String(ctx.seq).padStart(4, '0')}`;
}

function streamEvents(reply: Reply, ctx: RenderContext): SseEvent[] {
  const ev: SseEvent[] = [];
  const stop = stopReason(reply);
  ev.push({
    event: 'message_start',
    data: {
      type: 'message_start',
      message: {
        id: messageId(ctx),
        type: 'message',
        role: 'assistant',
        model: modelOf(reply, ctx),
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: usageBody(reply, ctx, 1),
      },
    },
  });
  ev.push({ event: 'ping', data: { type: 'ping' } });
  reply.content.forEach((b, index) => {
    switch (b.type) {
      case 'text':
        ev.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: { type: 'text', text: '' } } });
        for (const t of deltas(b.text))
          ev.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: { type: 'text_delta', text: t } } });
        break;
      case 'thinking':
        ev.push({
          event: 'content_block_start',
          data: { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } },
        });
        for (const t of deltas(b.text))
          ev.push({
            event: 'content_block_delta',
            data: { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: t } },
          });
        ev.push({
          event: 'content_block_delta',
          data: {
            type: 'content_block_delta',
            index,
            delta: { type: 'signature_delta', signature: b.signature ?? `mock-signature-${ctx.seq}-${index}` },
          },
        });
        break;
      case 'tool_call':
        ev.push({
          event: 'content_block_start',
          data: {
            type: 'content_block_start',
            index,
            content_block: { type: 'tool_use', id: callId(ctx, index, b.id), name: b.name, input: {} },
          },
        });
        for (const t of deltas(toolInput(b)))
          ev.push({
            event: 'content_block_delta',
            data: { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: t } },
          });
        break;
    }
    ev.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  });
  if (stop === null) return ev;
  ev.push({
    event: 'message_delta',
    data: { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: usageBody(reply, ctx, null) },
  });
  ev.push({ event: 'message_stop', data: { type: 'message_stop' } });
  return ev;
}

function errorBody(type: string, message: string): Obj {
  return { type: 'error', error: { type, message } };
}

function reply(r: Reply, ctx: RenderContext): Answer {
  const headers = { 'request-id': `req_mock_${ctx.seq}` };
  if (ctx.digest.stream) return { kind: 'sse', status: 200, headers, events: streamEvents(r, ctx) };
  return {
    kind: 'json',
    status: 200,
    headers,
    body: {
      id: messageId(ctx),
      type: 'message',
      role: 'assistant',
      model: modelOf(r, ctx),
      content: contentBlocks(r, ctx),
      stop_reason: stopReason(r),
      stop_sequence: null,
      usage: usageBody(r, ctx, null),
    },
  };
}

function fault(f: Fault, ctx: RenderContext): Answer {
  const headers: Record<string, string> = { 'request-id': `req_mock_${ctx.seq}` };
  switch (f.kind) {
    case 'http':
      return {
        kind: 'json',
        status: f.status,
        headers: { ...headers, ...f.headers },
        body: errorBody(f.errorType ?? ERROR_TYPE[f.status] ?? 'api_error', f.message ?? `Mock HTTP ${f.status}`),
      };
    case 'overloaded':
      return {
        kind: 'json',
        status: 529,
        headers: { ...headers, ...f.headers },
        body: errorBody('overloaded_error', f.message ?? 'Overloaded'),
      };
    case 'rate_limit':
      return {
        kind: 'json',
        status: 429,
        headers: { ...headers, 'retry-after': String(f.retryAfter), ...f.headers },
        body: errorBody('rate_limit_error', f.message ?? 'Rate limited'),
      };
    case 'cut':
      if (!ctx.digest.stream) return { kind: 'destroy' };
      return {
        kind: 'sse',
        status: 200,
        headers,
        events: streamEvents(f.reply ?? { content: [{ type: 'text', text: 'This stream is cut before it ends.' }] }, ctx),
        cutAfter: f.after,
      };
    case 'stream_error': {
      const err = { event: 'error', data: errorBody(f.errorType ?? 'overloaded_error', f.message ?? 'Overloaded') };
      if (!ctx.digest.stream) return { kind: 'json', status: 529, headers, body: err.data };
      const head = streamEvents({ content: [{ type: 'text', text: 'partial ' }] }, ctx).slice(0, f.after);
      return { kind: 'sse', status: 200, headers, events: [...head, err] };
    }
    case 'context_overflow':
      return {
        kind: 'json',
        status: 400,
        headers: { ...headers, ...f.headers },
        body: errorBody('invalid_request_error', f.message ?? anthropicOverflowMessage(overflowTokens(f, ctx), f.window)),
      };
  }
}

/** count_tokens: a quarter of the body's characters (an estimate; no client should depend on it). */
function aux(_route: Route, ctx: RenderContext): Answer {
  return { kind: 'json', status: 200, body: { input_tokens: Math.max(1, Math.ceil(ctx.bodyBytes / 4)) } };
}

export const anthropicMessages: ProtocolAdapter = {
  id: ANTHROPIC_ID,
  routes: [
    { method: 'POST', path: (p) => p === '/v1/messages', role: 'scripted' },
    { method: 'POST', path: (p) => p === '/v1/messages/count_tokens', role: 'aux' },
  ],
  digest,
  reply,
  fault,
  aux,
};
