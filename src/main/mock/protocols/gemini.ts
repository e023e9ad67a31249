import { geminiOverflowMessage } from '../../providers/overflow-messages';
import type { Fault, Reply, RequestDigest, StopReason } from '../script';
import { type Obj, arr, deltas, isObj, overflowTokens, positiveInt, stopOf, usageOf } from './common';
import type { Answer, ProtocolAdapter, RenderContext, Route, SseEvent } from './types';

/*
 * The Gemini API: POST /v1beta/models/{model}:generateContent (one GenerateContentResponse) and
 * :streamGenerateContent; with `?alt=sse` (what @google/genai sends) the stream is `data:` lines of
 * GenerateContentResponse chunks, without it a JSON array of them. :countTokens is answered alone.
 * /v1/ and /v1alpha/ paths are served the same way.
 *
 * finishReason: end/tool/stop_sequence → STOP (Gemini ends function calls with STOP too), length →
 * MAX_TOKENS, refusal → SAFETY (with a blocked safety rating; the text is still sent), pause →
 * CONTINUATION with a `continuationToken` (generation stopped but may be resumed; @google/genai 3.x
 * resumes on its own unless config.automaticContinuation is false, sending the token back in the
 * next request). `rawStop` (RECITATION, OTHER, …) is sent as is. A `missing` finish: no chunk
 * carries a finishReason; the stream just ends.
 * Function calls are sent whole in one part (Gemini does not stream arguments); a tool input that is
 * not a JSON object is wrapped as {"input": <text>}.
 */

export const GEMINI_ID = 'gemini';

const FINISH: Record<Exclude<StopReason, 'missing'>, string> = {
  end: 'STOP',
  tool: 'STOP',
  stop_sequence: 'STOP',
  length: 'MAX_TOKENS',
  refusal: 'SAFETY',
  pause: 'CONTINUATION',
};

/** google.rpc status names by HTTP status. */
const STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

const ROUTE = /^\/v1(?:beta|alpha)?\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/;

function routeOf(path: string): { model: string; action: string } | null {
  const m = ROUTE.exec(path.split('?')[0] ?? '');
  return m ? { model: decodeURIComponent(m[1] ?? ''), action: m[2] ?? '' } : null;
}

function partsText(parts: unknown): string {
  const out: string[] = [];
  for (const p of arr(parts).filter(isObj)) {
    if (typeof p.text === 'string') out.push(p.text);
    else if (isObj(p.functionCall)) out.push(JSON.stringify(p.functionCall.args ?? {}));
    else if (isObj(p.functionResponse)) out.push(JSON.stringify(p.functionResponse.response ?? {}));
  }
  return out.join('\n');
}

function digest(body: unknown, raw: string, path: string): RequestDigest {
  const b: Obj = isObj(body) ? body : {};
  const contents = arr(b.contents).filter(isObj);
  const users = contents.filter((c) => c.role === undefined || c.role === 'user');
  const system = isObj(b.systemInstruction) ? b.systemInstruction : isObj(b.system_instruction) ? b.system_instruction : {};
  const config = isObj(b.generationConfig) ? b.generationConfig : isObj(b.generation_config) ? b.generation_config : {};
  const route = routeOf(path);
  return {
    protocol: GEMINI_ID,
    model: route ? route.model : null,
    stream: route?.action === 'streamGenerateContent',
    system: partsText(system.parts),
    text: contents.map((c) => partsText(c.parts)).join('\n'),
    firstUser: users[0] ? partsText(users[0].parts) : '',
    lastUser: partsText(users.at(-1)?.parts),
    hasTools: arr(b.tools).length > 0,
    maxOutput: positiveInt(config.maxOutputTokens) ?? positiveInt(config.max_output_tokens),
    raw,
  };
}

function sse(ctx: RenderContext): boolean {
  return new URLSearchParams(ctx.path.split('?')[1] ?? '').get('alt') === 'sse';
}

function finishReason(reply: Reply): string | null {
  const stop = stopOf(reply);
  if (stop === 'missing') return null;
  return reply.rawStop ?? FINISH[stop];
}

function usageMetadata(reply: Reply, ctx: RenderContext): Obj {
  const u = usageOf(reply, ctx);
  // promptTokenCount includes cached content; thoughts are counted apart from candidates.
  const prompt = u.input + u.cacheRead;
  const m: Obj = {
    promptTokenCount: prompt,
    candidatesTokenCount: Math.max(0, u.output - u.reasoning),
    totalTokenCount: prompt + u.output,
  };
  // The real API leaves zero counts out (proto3 JSON omits defaults).
  if (u.cacheRead > 0) m.cachedContentTokenCount = u.cacheRead;
  if (u.reasoning > 0) m.thoughtsTokenCount = u.reasoning;
  return m;
}

function callArgs(input: string | Record<string, unknown>): Obj {
  if (typeof input !== 'string') return input;
  try {
    const v: unknown = JSON.parse(input);
    return isObj(v) ? v : { input };
  } catch {
    return { input };
  }
}

/** The parts of a reply, each text split into deltas when `split`. */
function partsOf(reply: Reply, split: boolean): Obj[][] {
  return reply.content.map((b) => {
    switch (b.type) {
      case 'text':
        return (split ? deltas(b.text) : [b.text]).map((t) => ({ text: t }));
      case 'thinking':
        return (split ? deltas(b.text) : [b.text]).map((t) => ({
          text: t,
          thought: true,
          ...(b.signature ? { thoughtSignature: b.signature } : {}),
        }));
      case 'tool_call':
        return [{ functionCall: { ...(b.id ? { id: b.id } : {}), name: b.name, args: callArgs(b.input) } }];
    }
  });
}

function response(reply: Reply, ctx: RenderContext, parts: Obj[], last: boolean): Obj {
  const candidate: Obj = { content: { parts, role: 'model' }, index: 0 };
  const finish = last ? finishReason(reply) : null;
  if (finish !== null) candidate.finishReason = finish;
  if (finish === 'CONTINUATION') candidate.continuationToken = Buffer.from(`mock-continuation-${ctx.seq}`).toString('base64');
  if (last && stopOf(reply) === 'refusal')
    candidate.safetyRatings = [{ category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH', blocked: true }];
  const u = usageMetadata(reply, ctx);
  return {
    candidates: [candidate],
    usageMetadata: last ? u : { promptTokenCount: u.promptTokenCount, totalTokenCount: u.promptTokenCount },
    modelVersion: reply.model ?? ctx.digest.model ?? 'mock-model',
    responseId: `mock-${String(ctx.seq).padStart(4, '0')}`,
  };
}

/** One chunk per part; the last carries the finish and the full usage. */
function chunks(reply: Reply, ctx: RenderContext): Obj[] {
  const parts = partsOf(reply, true).flat();
  if (parts.length === 0) parts.push({ text: '' });
  return parts.map((p, i) => response(reply, ctx, [p], i === parts.length - 1));
}

function errorBody(status: number, message: string, details?: Obj[]): Obj {
  return { error: { code: status, message, status: STATUS[status] ?? 'UNKNOWN', ...(details ? { details } : {}) } };
}

function streamAnswer(events: Obj[], ctx: RenderContext, headers: Record<string, string>, cutAfter?: number): Answer {
  if (sse(ctx)) {
    const ev: SseEvent[] = events.map((data) => ({ data }));
    return cutAfter === undefined
      ? { kind: 'sse', status: 200, headers, events: ev }
      : { kind: 'sse', status: 200, headers, events: ev, cutAfter };
  }
  if (cutAfter !== undefined) return { kind: 'destroy' };
  return { kind: 'json', status: 200, headers, body: events };
}

function reply(r: Reply, ctx: RenderContext): Answer {
  const headers = { 'x-goog-request-id': `req_mock_${ctx.seq}` };
  if (ctx.digest.stream) return streamAnswer(chunks(r, ctx), ctx, headers);
  return { kind: 'json', status: 200, headers, body: response(r, ctx, partsOf(r, false).flat(), true) };
}

function fault(f: Fault, ctx: RenderContext): Answer {
  const headers: Record<string, string> = { 'x-goog-request-id': `req_mock_${ctx.seq}` };
  switch (f.kind) {
    case 'http':
      return {
        kind: 'json',
        status: f.status,
        headers: { ...headers, ...f.headers },
        body: errorBody(f.status, f.message ?? `Mock HTTP ${f.status}`),
      };
    case 'overloaded':
      return {
        kind: 'json',
        status: 503,
        headers: { ...headers, ...f.headers },
        body: errorBody(503, f.message ?? 'The model is overloaded. Please try again later.'),
      };
    case 'rate_limit':
      // Gemini says when to retry in a RetryInfo detail, not in a retry-after header.
      return {
        kind: 'json',
        status: 429,
        headers: { ...headers, ...f.headers },
        body: errorBody(429, f.message ?? 'Resource has been exhausted (e.g. check quota).', [
          { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${f.retryAfter}s` },
        ]),
      };
    case 'cut':
      if (!ctx.digest.stream) return { kind: 'destroy' };
      return streamAnswer(
        chunks(f.reply ?? { content: [{ type: 'text', text: 'This stream is cut before it ends.' }] }, ctx),
        ctx,
        headers,
        f.after,
      );
    case 'stream_error': {
      const err = errorBody(500, f.message ?? 'An internal error has occurred.');
      if (!ctx.digest.stream) return { kind: 'json', status: 500, headers, body: err };
      const head = chunks({ content: [{ type: 'text', text: 'partial ' }], stop: 'missing' }, ctx).slice(0, f.after);
      return streamAnswer([...head, err], ctx, headers);
    }
    case 'context_overflow':
      return {
        kind: 'json',
        status: 400,
        headers: { ...headers, ...f.headers },
        body: errorBody(400, f.message ?? geminiOverflowMessage(overflowTokens(f, ctx), f.window)),
      };
  }
}

/** countTokens: a quarter of the body's bytes (an estimate; no client should depend on it). */
function aux(_route: Route, ctx: RenderContext): Answer {
  return { kind: 'json', status: 200, body: { totalTokens: Math.max(1, Math.ceil(ctx.bodyBytes / 4)) } };
}

export const gemini: ProtocolAdapter = {
  id: GEMINI_ID,
  routes: [
    {
      method: 'POST',
      path: (p) => routeOf(p)?.action === 'generateContent' || routeOf(p)?.action === 'streamGenerateContent',
      role: 'scripted',
    },
    { method: 'POST', path: (p) => routeOf(p)?.action === 'countTokens', role: 'aux' },
  ],
  digest,
  reply,
  fault,
  aux,
};
