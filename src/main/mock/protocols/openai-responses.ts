import type { Fault, Reply, RequestDigest } from '../script';
import { OPENAI_RESPONSES_OVERFLOW_MESSAGE } from '../../providers/overflow-messages';
import { type Obj, arr, deltas, isObj, positiveInt, stopOf, str, toolInput, usageOf } from './common';
import type { Answer, ProtocolAdapter, RenderContext, SseEvent } from './types';

/*
 * The OpenAI Responses API: POST …/responses (Codex puts its provider's base_url in front, e.g.
 * /v1/responses). Streaming as Codex reads it: response.created, response.in_progress,
 * response.output_item.added / .done, response.output_text.delta / .done,
 * response.function_call_arguments.delta / .done, response.reasoning_summary_text.delta, then
 * response.completed (or response.incomplete for a reply cut at the output limit, or
 * response.failed for an in-stream error). Non-streaming requests get the response object.
 * `pause` has no Responses equivalent: it ends in response.incomplete with the reason `pause_turn`
 * (a real status with a reason the client does not know). A `missing` finish: the stream ends
 * cleanly after the last output_item.done with no terminal event; a JSON answer has status
 * `in_progress`.
 */

export const RESPONSES_ID = 'openai-responses';

const ERROR_TYPE: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'invalid_api_key',
  404: 'not_found',
  429: 'rate_limit_exceeded',
  500: 'server_error',
  503: 'server_is_overloaded',
};

function partsText(c: unknown): string {
  if (typeof c === 'string') return c;
  const out: string[] = [];
  for (const p of arr(c)) {
    if (!isObj(p)) continue;
    if (typeof p.text === 'string') out.push(p.text);
    else if (typeof p.refusal === 'string') out.push(p.refusal);
  }
  return out.join('\n');
}

function itemText(it: Obj): string {
  switch (it.type) {
    case 'message':
      return partsText(it.content);
    case 'function_call':
      return str(it.arguments);
    case 'custom_tool_call':
      return str(it.input);
    case 'function_call_output':
    case 'custom_tool_call_output':
      return typeof it.output === 'string' ? it.output : isObj(it.output) ? str(it.output.content) : partsText(it.output);
    case 'reasoning':
      return arr(it.summary)
        .filter(isObj)
        .map((s) => str(s.text))
        .join('\n');
    default:
      return it.type === undefined && typeof it.role === 'string' ? partsText(it.content) : '';
  }
}

function digest(body: unknown, raw: string): RequestDigest {
  const b: Obj = isObj(body) ? body : {};
  const input = typeof b.input === 'string' ? [{ type: 'message', role: 'user', content: b.input }] : arr(b.input).filter(isObj);
  const users = input.filter((it) => (it.type === 'message' || it.type === undefined) && it.role === 'user');
  return {
    protocol: RESPONSES_ID,
    model: typeof b.model === 'string' ? b.model : null,
    stream: b.stream === true,
    system: str(b.instructions),
    text: input.map(itemText).join('\n'),
    firstUser: users[0] ? itemText(users[0]) : '',
    lastUser: itemText(users.at(-1) ?? {}),
    hasTools: arr(b.tools).length > 0,
    maxOutput: positiveInt(b.max_output_tokens),
    raw,
  };
}

function ids(ctx: RenderContext) {
  const n = String(ctx.seq).padStart(4, '0');
  return {
    response: `resp_mock_${n}`,
    item: (i: number) => `item_mock_${n}_${i}`,
    call: (i: number, given?: string) => given ?? `call_mock_${n}_${i}`,
  };
}

/** The output items of a reply, complete. */
function outputItems(reply: Reply, ctx: RenderContext): Obj[] {
  const id = ids(ctx);
  const refusal = stopOf(reply) === 'refusal';
  return reply.content.map((b, i) => {
    switch (b.type) {
      case 'text':
        return {
          type: 'message',
          id: id.item(i),
          status: 'completed',
          role: 'assistant',
          content: [refusal ? { type: 'refusal', refusal: b.text } : { type: 'output_text', text: b.text, annotations: [] }],
        };
      case 'thinking':
        return {
          type: 'reasoning',
          id: id.item(i),
          summary: [{ type: 'summary_text', text: b.text }],
          encrypted_content: b.signature ?? null,
        };
      case 'tool_call':
        return {
          type: 'function_call',
          id: id.item(i),
          status: 'completed',
          call_id: id.call(i, b.id),
          name: b.name,
          arguments: toolInput(b),
        };
    }
  });
}

function usageBody(reply: Reply, ctx: RenderContext): Obj {
  const u = usageOf(reply, ctx);
  // Responses counts cached tokens inside input_tokens; the script's `input` is the uncached part.
  const input = u.input + u.cacheRead;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: u.cacheRead },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: u.reasoning },
    total_tokens: input + u.output,
  };
}

function responseObject(reply: Reply, ctx: RenderContext, status: string, output: Obj[], withUsage: boolean): Obj {
  const b: Obj = isObj(ctx.body) ? ctx.body : {};
  const r: Obj = {
    id: ids(ctx).response,
    object: 'response',
    created_at: 1_700_000_000 + ctx.seq,
    status,
    model: reply.model ?? ctx.digest.model ?? 'mock-model',
    output,
    parallel_tool_calls: b.parallel_tool_calls ?? false,
    tool_choice: b.tool_choice ?? 'auto',
    tools: [],
    incomplete_details: null,
    error: null,
    usage: null,
  };
  if (status === 'incomplete')
    r.incomplete_details = { reason: reply.rawStop ?? (stopOf(reply) === 'pause' ? 'pause_turn' : 'max_output_tokens') };
  if (withUsage) r.usage = usageBody(reply, ctx);
  return r;
}

/** The terminal status a reply ends with; a missing finish has no terminal event. */
function terminal(reply: Reply): { status: string; event: string | null } {
  const stop = stopOf(reply);
  if (stop === 'missing') return { status: 'in_progress', event: null };
  if (stop === 'length' || stop === 'pause') return { status: 'incomplete', event: 'response.incomplete' };
  if (reply.rawStop) return { status: reply.rawStop, event: 'response.completed' };
  return { status: 'completed', event: 'response.completed' };
}

function streamEvents(reply: Reply, ctx: RenderContext): SseEvent[] {
  const ev: SseEvent[] = [];
  let n = 0;
  const push = (type: string, data: Obj) => ev.push({ event: type, data: { type, sequence_number: n++, ...data } });
  push('response.created', { response: responseObject(reply, ctx, 'in_progress', [], false) });
  push('response.in_progress', { response: responseObject(reply, ctx, 'in_progress', [], false) });
  const items = outputItems(reply, ctx);
  items.forEach((item, output_index) => {
    const block = reply.content[output_index];
    const item_id = str(item.id);
    switch (item.type) {
      case 'message': {
        const part = (arr(item.content)[0] ?? {}) as Obj;
        push('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } });
        if (part.type === 'refusal') {
          push('response.content_part.added', { item_id, output_index, content_index: 0, part: { type: 'refusal', refusal: '' } });
          for (const d of deltas(str(part.refusal))) push('response.refusal.delta', { item_id, output_index, content_index: 0, delta: d });
          push('response.refusal.done', { item_id, output_index, content_index: 0, refusal: part.refusal });
        } else {
          push('response.content_part.added', {
            item_id,
            output_index,
            content_index: 0,
            part: { type: 'output_text', text: '', annotations: [] },
          });
          for (const d of deltas(str(part.text)))
            push('response.output_text.delta', { item_id, output_index, content_index: 0, delta: d, logprobs: [] });
          push('response.output_text.done', { item_id, output_index, content_index: 0, text: part.text, logprobs: [] });
        }
        push('response.content_part.done', { item_id, output_index, content_index: 0, part });
        break;
      }
      case 'reasoning': {
        const text = block?.type === 'thinking' ? block.text : '';
        push('response.output_item.added', { output_index, item: { ...item, summary: [] } });
        push('response.reasoning_summary_part.added', {
          item_id,
          output_index,
          summary_index: 0,
          part: { type: 'summary_text', text: '' },
        });
        for (const d of deltas(text)) push('response.reasoning_summary_text.delta', { item_id, output_index, summary_index: 0, delta: d });
        push('response.reasoning_summary_text.done', { item_id, output_index, summary_index: 0, text });
        push('response.reasoning_summary_part.done', { item_id, output_index, summary_index: 0, part: { type: 'summary_text', text } });
        break;
      }
      case 'function_call':
        push('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } });
        for (const d of deltas(str(item.arguments))) push('response.function_call_arguments.delta', { item_id, output_index, delta: d });
        push('response.function_call_arguments.done', { item_id, output_index, arguments: item.arguments });
        break;
    }
    push('response.output_item.done', { output_index, item });
  });
  const t = terminal(reply);
  if (t.event !== null) push(t.event, { response: responseObject(reply, ctx, t.status, items, true) });
  return ev;
}

function errorBody(status: number, type: string | undefined, message: string): Obj {
  const code = type ?? ERROR_TYPE[status] ?? 'server_error';
  return { error: { type: code, code, message, param: null } };
}

function reply(r: Reply, ctx: RenderContext): Answer {
  const headers = { 'x-request-id': `req_mock_${ctx.seq}` };
  if (ctx.digest.stream) return { kind: 'sse', status: 200, headers, events: streamEvents(r, ctx) };
  const t = terminal(r);
  return { kind: 'json', status: 200, headers, body: responseObject(r, ctx, t.status, outputItems(r, ctx), true) };
}

function fault(f: Fault, ctx: RenderContext): Answer {
  const headers: Record<string, string> = { 'x-request-id': `req_mock_${ctx.seq}` };
  switch (f.kind) {
    case 'http':
      return {
        kind: 'json',
        status: f.status,
        headers: { ...headers, ...f.headers },
        body: errorBody(f.status, f.errorType, f.message ?? `Mock HTTP ${f.status}`),
      };
    case 'overloaded':
      return {
        kind: 'json',
        status: 503,
        headers: { ...headers, ...f.headers },
        body: errorBody(503, 'server_is_overloaded', f.message ?? 'The server is overloaded.'),
      };
    case 'rate_limit':
      return {
        kind: 'json',
        status: 429,
        headers: { ...headers, 'retry-after': String(f.retryAfter), ...f.headers },
        body: errorBody(429, 'rate_limit_exceeded', f.message ?? 'Rate limit reached.'),
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
      const failed: Reply = { content: [] };
      const resp = {
        ...responseObject(failed, ctx, 'failed', [], false),
        error: { code: f.errorType ?? 'server_error', message: f.message ?? 'The model failed.' },
      };
      if (!ctx.digest.stream)
        return { kind: 'json', status: 500, headers, body: errorBody(500, f.errorType, f.message ?? 'The model failed.') };
      const head = streamEvents({ content: [{ type: 'text', text: 'partial ' }] }, ctx).slice(0, f.after);
      return {
        kind: 'sse',
        status: 200,
        headers,
        events: [...head, { event: 'response.failed', data: { type: 'response.failed', sequence_number: head.length, response: resp } }],
      };
    }
    case 'context_overflow': {
      const message = f.message ?? OPENAI_RESPONSES_OVERFLOW_MESSAGE;
      const error = { message, type: 'invalid_request_error', param: 'input', code: 'context_length_exceeded' };
      if (!(f.inStream && ctx.digest.stream)) return { kind: 'json', status: 400, headers: { ...headers, ...f.headers }, body: { error } };
      // Mid-stream, as the real API sends it: created, in_progress, then failed with the code.
      const head = streamEvents({ content: [] }, ctx).slice(0, 2);
      const resp = { ...responseObject({ content: [] }, ctx, 'failed', [], false), error: { code: error.code, message } };
      return {
        kind: 'sse',
        status: 200,
        headers,
        events: [...head, { event: 'response.failed', data: { type: 'response.failed', sequence_number: 2, response: resp } }],
      };
    }
  }
}

export const openaiResponses: ProtocolAdapter = {
  id: RESPONSES_ID,
  routes: [{ method: 'POST', path: (p) => p === '/v1/responses' || p === '/responses', role: 'scripted' }],
  digest,
  reply,
  fault,
};
