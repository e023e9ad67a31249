import { describe, expect, it } from 'vitest';
import { bodyJson } from '../../../src/main/mock';
import { runAttempt } from '../../../src/main/providers/attempt';
import type { ProviderId } from '../../../src/shared/rerun/pinned';
import { PROTOCOL_PROVIDERS, pin, request, startMock } from './helpers';

/*
 * Each adapter over its real SDK against the mock provider on 127.0.0.1: text, usage and the
 * normalised finish; completion integrity (length, refusal, pause, unknown and missing finishes
 * rejected with usage kept; empty text rejected); the body each SDK actually sent.
 */

const attempt = (provider: ProviderId, m: Awaited<ReturnType<typeof startMock>>, maxOutput: number | null = null) =>
  runAttempt(pin(provider, m), request({ maxOutput }), {
    apiKey: 'sk-test-0123456789abcdefghijkl',
    signal: new AbortController().signal,
    timeoutMs: 10_000,
  });

/** The raw finish each protocol reports for the mock's neutral stop reasons. */
const RAW: Record<ProviderId, Record<'end' | 'length' | 'refusal' | 'pause', string>> = {
  anthropic: { end: 'end_turn', length: 'max_tokens', refusal: 'refusal', pause: 'pause_turn' },
  mock: { end: 'end_turn', length: 'max_tokens', refusal: 'refusal', pause: 'pause_turn' },
  'openai-responses': { end: 'completed', length: 'incomplete:max_output_tokens', refusal: 'completed', pause: '' },
  openai: { end: 'stop', length: 'length', refusal: 'content_filter', pause: '' },
  gemini: { end: 'STOP', length: 'MAX_TOKENS', refusal: 'SAFETY', pause: '' },
};

describe.each(PROTOCOL_PROVIDERS)('%s adapter against the mock', (provider) => {
  it('streams the text, normalises usage and reports a natural finish', async () => {
    const m = await startMock({
      steps: [
        {
          reply: {
            content: [{ type: 'text', text: 'Objective: ship the parser.' }],
            usage: { input: 1200, output: 80, cacheRead: 300, reasoning: 10 },
          },
        },
      ],
    });
    const r = await attempt(provider, m);
    expect(r.error).toBeNull();
    expect(r.text).toBe('Objective: ship the parser.');
    expect(r.finish).toEqual({ raw: RAW[provider].end, reason: 'stop' });
    expect(r.status).toBe(200);
    // Usage.input excludes cache reads whatever the protocol's own counting.
    expect(r.usage).toMatchObject({ input: 1200, output: 80, cacheRead: 300 });
    if (provider !== 'anthropic') expect(r.usage?.reasoning).toBe(10);
    expect(m.requests).toHaveLength(1);
    expect(r.sent?.method).toBe('POST');
    expect(r.sent?.body).toBe(m.requests[0]?.body);
    expect(r.sent?.bodyBytes).toBe(m.requests[0]?.bodyBytes);
    expect(r.sent?.url).toBe(`${m.url}${m.requests[0]?.path}`);
  });

  it('sends the system prompt, the messages and a streaming request', async () => {
    const m = await startMock({ steps: [{ reply: { content: [{ type: 'text', text: 'ok' }] } }] });
    await attempt(provider, m);
    const body = JSON.stringify(bodyJson(m.requests[0] as never));
    expect(body).toContain('You write handoff summaries.');
    expect(body).toContain('Summarise the session so far.');
    if (provider === 'gemini') expect(m.requests[0]?.path).toContain(':streamGenerateContent?alt=sse');
    else expect(body).toContain('"stream":true');
  });

  it.each(['length', 'refusal', 'pause'] as const)('rejects a %s finish as incomplete and keeps its usage', async (stop) => {
    const m = await startMock({
      steps: [{ reply: { content: [{ type: 'text', text: 'Objective: half a sum' }], stop, usage: { input: 500, output: 2000 } } }],
    });
    const r = await attempt(provider, m);
    expect(r.text).toBeNull();
    expect(r.received).toBe('Objective: half a sum');
    expect(r.error).toMatchObject({ kind: 'incomplete', retryable: false });
    // Only Anthropic has a real pause; the mock renders it in each other protocol as it sees fit.
    if (stop !== 'pause' || provider === 'anthropic') {
      expect(r.finish?.raw).toBe(RAW[provider][stop]);
      expect(r.finish?.reason).toBe(stop);
    }
    expect(r.error?.message).toContain(`finish reason: ${r.finish?.raw}`);
    expect(r.finish?.reason).not.toBe('stop');
    expect(r.usage).toMatchObject({ input: 500, output: 2000 });
  });

  it('rejects a stream that ends without any finish signal (raw "missing", reason unknown)', async () => {
    const m = await startMock({ steps: [{ reply: { content: [{ type: 'text', text: 'Objective: no end' }], stop: 'missing' } }] });
    const r = await attempt(provider, m);
    expect(r.text).toBeNull();
    expect(r.finish).toEqual({ raw: 'missing', reason: 'unknown' });
    expect(r.error).toMatchObject({ kind: 'incomplete', retryable: false });
    expect(r.error?.message).toContain('missing');
  });

  it('rejects an unknown finish reason', async () => {
    const raw = provider === 'gemini' ? 'LANGUAGE' : provider === 'openai-responses' ? 'mystery_status' : 'mystery_reason';
    const m = await startMock({ steps: [{ reply: { content: [{ type: 'text', text: 'Objective: x' }], rawStop: raw } }] });
    const r = await attempt(provider, m);
    expect(r.text).toBeNull();
    expect(r.finish).toEqual({ raw, reason: 'unknown' });
    expect(r.error?.kind).toBe('incomplete');
  });

  it('rejects a natural finish with no text as empty', async () => {
    const m = await startMock({ steps: [{ reply: { content: [{ type: 'text', text: '  ' }], stop: 'end' } }] });
    const r = await attempt(provider, m);
    expect(r.text).toBeNull();
    expect(r.finish?.reason).toBe('stop');
    expect(r.error).toMatchObject({ kind: 'empty', retryable: false });
  });

  it('sends no output ceiling when neither the request nor the pinned model sets one (Anthropic: its recorded default)', async () => {
    const m = await startMock({
      steps: [{ reply: { content: [{ type: 'text', text: 'ok' }] } }, { reply: { content: [{ type: 'text', text: 'ok' }] } }],
    });
    const none = await attempt(provider, m);
    const set = await attempt(provider, m, 640);
    expect(m.requests[0]?.answer.status).toBe(200);
    const expected = provider === 'anthropic' ? 8192 : null;
    expect(none.maxOutputSent).toBe(expected);
    const first = bodyJson(m.requests[0] as never) as Record<string, unknown>;
    const text = JSON.stringify(first);
    if (expected === null) expect(text).not.toMatch(/max_tokens|max_completion_tokens|max_output_tokens|maxOutputTokens/);
    else expect(first.max_tokens).toBe(8192);
    expect(set.maxOutputSent).toBe(640);
    expect(JSON.stringify(bodyJson(m.requests[1] as never))).toContain('640');
  });
});

describe('protocol details', () => {
  it('OpenAI Chat: max_completion_tokens on the official endpoint shape, max_tokens on a compatible baseUrl', async () => {
    const m = await startMock({ steps: [{ reply: { content: [{ type: 'text', text: 'ok' }] } }] });
    await attempt('openai', m, 300);
    const b = bodyJson(m.requests[0] as never) as Record<string, unknown>;
    // The mock is a custom baseUrl, so the widely understood name is used.
    expect(b.max_tokens).toBe(300);
    expect(b.stream_options).toEqual({ include_usage: true });
    const { chatBody } = await import('../../../src/main/providers/openai-chat');
    const official = chatBody({ model: { ...pin('openai', m), baseUrl: undefined }, request: request(), maxOutput: 300 });
    expect(official.max_completion_tokens).toBe(300);
    expect(official.max_tokens).toBeUndefined();
  });

  it('Responses: asks the provider not to store the request', async () => {
    const m = await startMock({ steps: [{ reply: { content: [{ type: 'text', text: 'ok' }] } }] });
    await attempt('openai-responses', m);
    expect((bodyJson(m.requests[0] as never) as Record<string, unknown>).store).toBe(false);
  });

  it('Gemini: thought parts are not summary text; reasoning effort becomes a thinking level', async () => {
    const m = await startMock({
      steps: [
        {
          reply: {
            content: [
              { type: 'thinking', text: 'let me think' },
              { type: 'text', text: 'Objective: x' },
            ],
            usage: { output: 50, reasoning: 20 },
          },
        },
      ],
    });
    const r = await runAttempt(pin('gemini', m, { params: { reasoning: 'high' } }), request(), {
      apiKey: 'k',
      signal: new AbortController().signal,
      timeoutMs: 10_000,
    });
    expect(r.text).toBe('Objective: x');
    expect(r.usage).toMatchObject({ output: 50, reasoning: 20 });
    const b = bodyJson(m.requests[0] as never) as { generationConfig?: { thinkingConfig?: unknown } };
    expect(b.generationConfig?.thinkingConfig).toEqual({ thinkingLevel: 'HIGH' });
  });

  it('Anthropic: a pinned temperature is refused before sending, not silently dropped', async () => {
    const m = await startMock({ steps: [] });
    const r = await runAttempt(pin('anthropic', m, { params: { temperature: 0 } }), request(), {
      apiKey: 'k',
      signal: new AbortController().signal,
      timeoutMs: 10_000,
    });
    expect(r.error?.kind).toBe('http');
    expect(r.error?.message).toContain('temperature');
    expect(m.requests).toHaveLength(0);
  });

  it('the mock provider id speaks the Anthropic protocol at its baseUrl and needs no key', async () => {
    const m = await startMock({ steps: [{ reply: { content: [{ type: 'text', text: 'scripted' }] } }] });
    const r = await runAttempt(pin('mock', m), request(), { apiKey: null, signal: new AbortController().signal, timeoutMs: 10_000 });
    expect(r.text).toBe('scripted');
    expect(r.model).toBe('mock:mock-model');
    expect(m.requests[0]?.protocol).toBe('anthropic-messages');
  });
});
