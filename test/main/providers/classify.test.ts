import { describe, expect, it } from 'vitest';
import { ABORT_CANCELLED, ABORT_TIMEOUT, StreamFailure, classifyThrown } from '../../../src/main/providers/errors';
import { anthropicFinish, chatFinish, geminiFinish, judgeCompletion, responsesFinish } from '../../../src/main/providers/finish';
import { parseOverflow } from '../../../src/main/providers/overflow';
import { REDACTED, redactSecrets } from '../../../src/main/providers/redact';
import type { WireRecord } from '../../../src/main/providers/wire';

/* The pure parts: redaction, overflow wording, error classification, finish normalisation. */

const wire = (over: Partial<WireRecord> = {}): WireRecord => ({
  requests: 1,
  url: 'http://x',
  method: 'POST',
  body: '{}',
  bodyBytes: 2,
  status: null,
  errorBody: null,
  retryAfter: null,
  retryAfterMs: null,
  fetchFailed: false,
  ...over,
});
const live = new AbortController().signal;
const ctx = (w: Partial<WireRecord>, signal = live) => ({ wire: wire(w), signal, keys: ['sk-secret-abcdefgh12345'], now: 0 });

describe('redactSecrets', () => {
  it('removes the given keys, their URL and JSON escapes, and well-known key shapes', () => {
    const k = 'my+secret/key==value';
    expect(redactSecrets(`a ${k} b ${encodeURIComponent(k)} c`, [k])).toBe(`a ${REDACTED} b ${REDACTED} c`);
    expect(redactSecrets('Authorization: Bearer abcdefghijklmnopqrstuv', [])).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(redactSecrets('k=sk-ant-api03-abcdefghijklmnopqrstu and AIzaSyA1234567890abcdefghijklmnopqrstuv', [])).toBe(
      `k=${REDACTED} and ${REDACTED}`,
    );
    expect(redactSecrets('GET /v1beta/models/x?key=raw-key-value&alt=sse', [])).toBe(`GET /v1beta/models/x?key=${REDACTED}&alt=sse`);
    // Placeholders shorter than a real key are not secrets.
    expect(redactSecrets('no-key here', ['no-key'])).toBe('no-key here');
  });
});

describe('parseOverflow', () => {
  it.each([
    ['prompt is too long: 210000 tokens > 200000 maximum', 400, 200_000],
    ["This model's maximum context length is 128000 tokens. However, your messages resulted in 130001 tokens.", 400, 128_000],
    ['The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).', 400, 1_048_576],
    ['Your input exceeds the context window of this model.', null, null],
    [
      'Trying to keep the first 5000 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens',
      400,
      4096,
    ],
    ['prompt too long; exceeded max context length by 12 tokens', 400, null],
  ])('%s', (text, status, window) => {
    expect(parseOverflow(status, text)).toEqual({ window });
  });

  it("reads llama.cpp's n_ctx from the body; never calls a 5xx or other text an overflow", () => {
    const body =
      '{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9000,"n_ctx":8192}}';
    expect(parseOverflow(400, 'the request exceeds the available context size, try increasing it', body)).toEqual({ window: 8192 });
    expect(parseOverflow(500, 'prompt is too long: 2 tokens > 1 maximum')).toBeNull();
    expect(parseOverflow(400, 'invalid model name')).toBeNull();
  });
});

describe('classifyThrown', () => {
  it('tells timeout from cancellation by the abort reason', () => {
    const t = new AbortController();
    t.abort(ABORT_TIMEOUT);
    expect(classifyThrown(new Error('aborted'), ctx({}, t.signal), 100)).toMatchObject({ kind: 'timeout', retryable: true });
    const c = new AbortController();
    c.abort(ABORT_CANCELLED);
    expect(classifyThrown(new Error('aborted'), ctx({}, c.signal), 100)).toMatchObject({ kind: 'cancelled', retryable: false });
  });

  it('uses the status and error body the wire saw, with retry-after', () => {
    const e = classifyThrown(
      new Error('429 whatever'),
      ctx({ status: 429, errorBody: '{"error":{"message":"slow down"}}', retryAfter: '3' }),
      100,
    );
    expect(e).toMatchObject({ kind: 'http', status: 429, retryable: true, retryAfterMs: 3000, message: 'HTTP 429: slow down' });
    expect(
      classifyThrown(
        new Error('x'),
        ctx({ status: 529, errorBody: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}' }),
        1,
      ),
    ).toMatchObject({ retryable: true });
    expect(classifyThrown(new Error('x'), ctx({ status: 422, errorBody: 'bad' }), 1)).toMatchObject({ kind: 'http', retryable: false });
  });

  it('connection failures and cut streams are network errors; in-stream errors by their type', () => {
    expect(classifyThrown(new TypeError('fetch failed'), ctx({ fetchFailed: true }), 1)).toMatchObject({
      kind: 'network',
      retryable: true,
    });
    expect(classifyThrown(new TypeError('terminated'), ctx({ status: 200 }), 1)).toMatchObject({ kind: 'network', retryable: true });
    expect(classifyThrown(new StreamFailure('server_error', 'boom'), ctx({ status: 200 }), 1)).toMatchObject({
      kind: 'http',
      retryable: true,
    });
    expect(classifyThrown(new StreamFailure('invalid_prompt', 'no'), ctx({ status: 200 }), 1)).toMatchObject({
      kind: 'http',
      retryable: false,
    });
    expect(classifyThrown(new Error('bad option'), ctx({ requests: 0, url: null, status: null }), 1)).toMatchObject({
      kind: 'http',
      retryable: false,
    });
  });

  it('redacts the key from any message', () => {
    const e = classifyThrown(new Error('key sk-secret-abcdefgh12345 rejected'), ctx({ fetchFailed: true }), 1);
    expect(e.message).not.toContain('sk-secret-abcdefgh12345');
  });
});

describe('finish normalisation and completion integrity', () => {
  it("maps each protocol's raw finish, keeping the raw string", () => {
    expect(anthropicFinish('model_context_window_exceeded')).toEqual({ raw: 'model_context_window_exceeded', reason: 'length' });
    expect(chatFinish('stop', true)).toEqual({ raw: 'stop', reason: 'refusal' });
    expect(responsesFinish('incomplete', 'content_filter', false, false)).toEqual({ raw: 'incomplete:content_filter', reason: 'refusal' });
    expect(responsesFinish('completed', null, false, true).reason).toBe('tool_calls');
    expect(geminiFinish('CONTINUATION').reason).toBe('pause');
    expect(geminiFinish('MALFORMED_FUNCTION_CALL').reason).toBe('error');
  });

  it('only a natural finish with text is a summary', () => {
    expect(judgeCompletion('text', { raw: 'STOP', reason: 'stop' }).text).toBe('text');
    expect(judgeCompletion('text', { raw: 'tool_use', reason: 'tool_calls' }).error?.kind).toBe('incomplete');
    expect(judgeCompletion('text', null)).toMatchObject({
      text: null,
      finish: { raw: 'missing', reason: 'unknown' },
      error: { kind: 'incomplete' },
    });
    expect(judgeCompletion('\n', { raw: 'end_turn', reason: 'stop' }).error?.kind).toBe('empty');
  });
});
