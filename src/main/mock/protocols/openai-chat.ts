import { openaiChatOverflowMessage } from '../../providers/overflow-messages';
import type { Fault, Reply, RequestDigest, StopReason } from '../script';
import { type Obj, arr, deltas, isObj, overflowTokens, positiveInt, stopOf, str, toolInput, usageOf } from './common';
import type { Answer, ProtocolAdapter, RenderContext, SseEvent } from './types';

/*
 * OpenAI Chat Completions: POST /v1/chat/completions (or /chat/completions behind a base URL that
 * already ends in /v1). Streaming: `data:` lines of chat.completion.chunk (no `event:` names), a
 * first chunk with the role, content / refusal / tool_calls deltas, a chunk with finish_reason,
 * then a usage chunk with no choices when stream_options.include_usage, then `data: [DONE]`.
 *
 * Stop reasons: end/stop_sequence → stop, tool → tool_calls, length → length, refusal →
 * content_filter (the text is sent in the `refusal` field). `pause` has no Chat equivalent: it is
 * sent as the unknown finish_reason `pause_turn` (what a gateway passing Anthropic's reason through
 * sends), exactly as a `rawStop` would be. A `missing` finish: content chunks all carry
 * finish_reason null and the stream ends cleanly with no finish chunk, no usage chunk and no
 * [DONE]; a JSON answer has finish_reason null. Thinking blocks go out as `reasoning_content`, the
 * field OpenAI-compatible servers (DeepSeek, vLLM) use; OpenAI itself sends no reasoning text.
 */

export const CHAT_ID = 'openai-chat';

const FINISH: Record<Exclude<StopReason, 'missing'>, string> = {
  end: 'stop',
  stop_sequence: 'stop',
  tool: 'tool_calls',
  length: 'length',
  refusal: 'content_filter',
  pause: 'pause_turn',
};

/** [type, code] of OpenAI's error bodies by status. */
const ERROR: Record<number, [string, string | null]> = {
  400: ['invalid_request_error', null],
  401: ['invalid_request_error', 'invalid_api_key'],
  404: ['invalid_request_error', 'model_not_found'],
  429: ['requests', 'rate_limit_exceeded'],
  500: ['server_error', null],
  503: ['server_error', 'server_is_overloaded'],
};

function partsText(c: unknown): string {
  if (typeof c === 'string') return c;
  return arr(c)
    .filter(isObj)
    .map((p) => str(p.text) || str(p.refusal))
    .filter((t) => t !== '')
    .join('\n');
}

function messageText(m: Obj): string {
  const parts = [partsText(m.content)];
  for (const c of arr(m.tool_calls).filter(isObj)) parts.push(isObj(c.function) ? str(c.function.arguments) : '');
  return parts.filter((t) => t !== '').join('\n');
}

function digest(body: unknown, raw: string): RequestDigest {
  const b: Obj = isObj(body) ? body : {};
  const messages = arr(b.messages).filter(isObj);
  const system = messages.filter((m) => m.role === 'system' || m.role === 'developer');
  const rest = messages.filter((m) => m.role !== 'system' && m.role !== 'developer');
  const users = rest.filter((m) => m.role === 'user');
  return {
    protocol: CHAT_ID,
    model: typeof b.model === 'string' ? b.model : null,
    stream: b.stream === true,
    system: system.map(messageText).join('\n'),
    text: rest.map(messageText).join('\n'),
    firstUser: users[0] ? messageText(users[0]) : '',
    lastUser: messageText(users.at(-1) ?? {}),
    hasTools: arr(b.tools).length > 0 || arr(b.functions).length > 0,
    maxOutput: positiveInt(b.max_completion_tokens) ?? positiveInt(b.max_tokens),
    raw,
  };
}

function finishReason(reply: Reply): string | null {
  const stop = stopOf(reply);
  if (stop === 'missing') return null;
  return reply.rawStop ?? FINISH[stop];
}

function ids(ctx: RenderContext) {
  const n = String(ctx.seq).padStart(4, '0');
  return { completion: `chatcmpl-mock-${n}`, call: (i: number, given?: string) => given ?? `call_mock_${n}_${i}` };
}

function usageBody(reply: Reply, ctx: RenderContext): Obj {
  const u = usageOf(reply, ctx);
  // Chat counts cached tokens inside prompt_tokens and reasoning inside completion_tokens.
  const prompt = u.input + u.cacheRead;
  return {
    prompt_tokens: prompt,
    completion_tokens: u.output,
    total_tokens: prompt + u.output,
    prompt_tokens_details: { cached_tokens: u.cacheRead, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: u.reasoning,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function envelope(reply: Reply, ctx: RenderContext, object: string): Obj {
  return {
    id: ids(ctx).completion,
    object,
    created: 1_700_000_000 + ctx.seq,
    model: reply.model ?? ctx.digest.model ?? 'mock-model',
    system_fingerprint: null,
  };
}

function message(reply: Reply, ctx: RenderContext): Obj {
  const refusal = stopOf(reply) === 'refusal';
  const text = reply.content
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join('');
  const thinking = reply.content
    .filter((b) => b.type === 'thinking')
    .map((b) => b.text)
    .join('');
  const calls = reply.content.flatMap((b, i) =>
    b.type === 'tool_call' ? [{ id: ids(ctx).call(i, b.id), type: 'function', function: { name: b.name, arguments: toolInput(b) } }] : [],
  );
  const m: Obj = { role: 'assistant', content: refusal || text === '' ? null : text, refusal: refusal ? text : null, annotations: [] };
  if (thinking !== '') m.reasoning_content = thinking;
  if (calls.length > 0) m.tool_calls = calls;
  return m;
}

function wantsUsage(ctx: RenderContext): boolean {
  const b = ctx.body;
  return isObj(b) && isObj(b.stream_options) && b.stream_options.include_usage === true;
}

/** The chunks of a reply; `done` adds the finish, usage and [DONE] (false for a cut-off head). */
function streamEvents(reply: Reply, ctx: RenderContext, done = true): SseEvent[] {
  const usage = wantsUsage(ctx);
  const base = envelope(reply, ctx, 'chat.completion.chunk');
  const chunk = (delta: Obj, finish: string | null = null): SseEvent => ({
    data: { ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...(usage ? { usage: null } : {}) },
  });
  const refusal = stopOf(reply) === 'refusal';
  const ev: SseEvent[] = [chunk({ role: 'assistant', content: '', refusal: null })];
  let call = 0;
  reply.content.forEach((b, i) => {
    switch (b.type) {
      case 'text':
        for (const d of deltas(b.text)) ev.push(chunk(refusal ? { refusal: d } : { content: d }));
        break;
      case 'thinking':
        for (const d of deltas(b.text)) ev.push(chunk({ reasoning_content: d }));
        break;
      case 'tool_call': {
        const index = call++;
        ev.push(
          chunk({ tool_calls: [{ index, id: ids(ctx).call(i, b.id), type: 'function', function: { name: b.name, arguments: '' } }] }),
        );
        for (const d of deltas(toolInput(b))) ev.push(chunk({ tool_calls: [{ index, function: { arguments: d } }] }));
        break;
      }
    }
  });
  const finish = finishReason(reply);
  if (!done || finish === null) return ev;
  ev.push(chunk({}, finish));
  if (usage) ev.push({ data: { ...base, choices: [], usage: usageBody(reply, ctx) } });
  ev.push({ data: null, rawData: '[DONE]' });
  return ev;
}

function errorBody(
  status: number,
  type: string | undefined,
  code: string | null | undefined,
  message: string,
  param: string | null = null,
): Obj {
  const [t, c] = ERROR[status] ?? ['server_error', null];
  return { error: { message, type: type ?? t, param, code: code === undefined ? c : code } };
}

function reply(r: Reply, ctx: RenderContext): Answer {
  const headers = { 'x-request-id': `req_mock_${ctx.seq}` };
  if (ctx.digest.stream) return { kind: 'sse', status: 200, headers, events: streamEvents(r, ctx) };
  const body = {
    ...envelope(r, ctx, 'chat.completion'),
    choices: [{ index: 0, message: message(r, ctx), logprobs: null, finish_reason: finishReason(r) }],
    usage: usageBody(r, ctx),
  };
  return { kind: 'json', status: 200, headers, body };
}

function fault(f: Fault, ctx: RenderContext): Answer {
  const headers: Record<string, string> = { 'x-request-id': `req_mock_${ctx.seq}` };
  switch (f.kind) {
    case 'http':
      return {
        kind: 'json',
        status: f.status,
        headers: { ...headers, ...f.headers },
        body: errorBody(f.status, f.errorType, undefined, f.message ?? `Mock HTTP ${f.status}`),
      };
    case 'overloaded':
      return {
        kind: 'json',
        status: 503,
        headers: { ...headers, ...f.headers },
        body: errorBody(503, undefined, undefined, f.message ?? 'The server is overloaded or not ready yet.'),
      };
    case 'rate_limit':
      return {
        kind: 'json',
        status: 429,
        headers: { ...headers, 'retry-after': String(f.retryAfter), ...f.headers },
        body: errorBody(429, undefined, undefined, f.message ?? 'Rate limit reached.'),
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
      // OpenAI sends a mid-stream failure as a data line holding {"error": …}; the SDK throws on it.
      const err = errorBody(500, f.errorType, undefined, f.message ?? 'The model failed.');
      if (!ctx.digest.stream) return { kind: 'json', status: 500, headers, body: err };
      const head = streamEvents({ content: [{ type: 'text', text: 'partial ' }] }, ctx, false).slice(0, f.after);
      return { kind: 'sse', status: 200, headers, events: [...head, { data: err }] };
    }
    case 'context_overflow':
      return {
        kind: 'json',
        status: 400,
        headers: { ...headers, ...f.headers },
        body: errorBody(
          400,
          'invalid_request_error',
          'context_length_exceeded',
          f.message ?? openaiChatOverflowMessage(overflowTokens(f, ctx), f.window),
          'messages',
        ),
      };
  }
}

export const openaiChat: ProtocolAdapter = {
  id: CHAT_ID,
  routes: [{ method: 'POST', path: (p) => p === '/v1/chat/completions' || p === '/chat/completions', role: 'scripted' }],
  digest,
  reply,
  fault,
};
