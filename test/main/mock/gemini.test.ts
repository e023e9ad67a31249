import { ApiError, GoogleGenAI } from '@google/genai';
import { describe, expect, it } from 'vitest';
import { type MockProvider, type RequestDigest, parseContextOverflow } from '../../../src/main/mock';
import { drain, rejection, spyFetch, startMock } from './helpers';

/* The Gemini API, driven by the official @google/genai SDK against the mock. */

function client(m: MockProvider, extra: { apiVersion?: string; fetch?: typeof globalThis.fetch } = {}): GoogleGenAI {
  // No retryOptions: the SDK then sends each request once.
  return new GoogleGenAI({ apiKey: 'AIza-test-key', httpOptions: { baseUrl: m.url, ...extra } });
}

const request = {
  model: 'gemini-test',
  contents: 'Summarise the session.',
  config: { systemInstruction: 'You summarise.', maxOutputTokens: 256 },
};

describe('mock provider: Gemini through @google/genai', () => {
  it('generateContent: text, finish STOP, usageMetadata; the digest reads the model from the path and the system instruction', async () => {
    const seen: RequestDigest[] = [];
    const m = await startMock(
      {
        steps: [
          {
            when: { protocol: 'gemini', model: 'gemini-test', systemContains: 'summarise' },
            reply: {
              content: [{ type: 'text', text: 'Short summary.' }],
              usage: { input: 100, cacheRead: 400, output: 30, reasoning: 10 },
            },
          },
        ],
      },
      { answer: (d) => (seen.push(d), null) },
    );
    const r = await client(m, { apiVersion: 'v1beta' }).models.generateContent(request);
    expect(r.text).toBe('Short summary.');
    expect(r.candidates?.[0]?.finishReason).toBe('STOP');
    expect(r.usageMetadata).toEqual({
      promptTokenCount: 500,
      cachedContentTokenCount: 400,
      candidatesTokenCount: 20,
      thoughtsTokenCount: 10,
      totalTokenCount: 530,
    });
    expect(m.requests[0]?.path).toBe('/v1beta/models/gemini-test:generateContent');
    expect(seen[0]).toMatchObject({
      model: 'gemini-test',
      stream: false,
      system: 'You summarise.',
      firstUser: 'Summarise the session.',
      maxOutput: 256,
    });
  });

  it('streamGenerateContent?alt=sse: chunks the SDK yields, a whole function call, the finish and usage on the last chunk', async () => {
    const m = await startMock({
      steps: [
        {
          reply: {
            content: [
              { type: 'thinking', text: 'hmm' },
              { type: 'text', text: 'Calling it.' },
              { type: 'tool_call', name: 'read_file', input: { path: 'a.ts' } },
            ],
            usage: { input: 8, output: 6 },
          },
        },
      ],
    });
    const { items, error } = await drain(await client(m).models.generateContentStream(request));
    expect(error).toBeNull();
    expect(m.requests[0]?.path).toMatch(/:streamGenerateContent\?alt=sse$/);
    const parts = items.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []);
    expect(
      parts
        .filter((p) => p.thought)
        .map((p) => p.text)
        .join(''),
    ).toBe('hmm');
    expect(
      parts
        .filter((p) => !p.thought && p.text !== undefined)
        .map((p) => p.text)
        .join(''),
    ).toBe('Calling it.');
    expect(items.at(-1)?.functionCalls).toEqual([{ name: 'read_file', args: { path: 'a.ts' } }]);
    expect(items.map((c) => c.candidates?.[0]?.finishReason ?? null)).toEqual([...items.slice(1).map(() => null), 'STOP']);
    expect(items.at(-1)?.usageMetadata).toMatchObject({ promptTokenCount: 8, candidatesTokenCount: 6, totalTokenCount: 14 });
  });

  it('finish reasons: MAX_TOKENS, SAFETY, CONTINUATION for pause, a raw RECITATION; missing leaves every chunk without one', async () => {
    const m = await startMock({
      steps: [
        ...(['length', 'refusal', 'pause'] as const).map((stop) => ({ reply: { content: [{ type: 'text' as const, text: 'x' }], stop } })),
        { reply: { content: [{ type: 'text', text: 'x' }], rawStop: 'RECITATION' } },
        { reply: { content: [{ type: 'text', text: 'a cut-off summary' }], stop: 'missing' } },
      ],
    });
    const c = client(m);
    const finishes: unknown[] = [];
    const once = { ...request, config: { ...request.config, automaticContinuation: false } };
    for (let i = 0; i < 4; i++) finishes.push((await c.models.generateContent(once)).candidates?.[0]?.finishReason);
    expect(finishes).toEqual(['MAX_TOKENS', 'SAFETY', 'CONTINUATION', 'RECITATION']);
    const missing = await drain(await c.models.generateContentStream(request));
    expect(missing.error).toBeNull();
    expect(missing.items.map((x) => x.text).join('')).toBe('a cut-off summary');
    expect(missing.items.every((x) => x.candidates?.[0]?.finishReason === undefined)).toBe(true);
  });

  it('a paused answer carries a continuation token the SDK sends back on its own unless told not to', async () => {
    const m = await startMock({
      steps: [
        { reply: { content: [{ type: 'text', text: 'first half, ' }], stop: 'pause' } },
        { reply: { content: [{ type: 'text', text: 'second half' }] } },
      ],
    });
    const r = await client(m).models.generateContent(request);
    expect(m.requests).toHaveLength(2);
    const token = JSON.parse(m.requests[1]?.body ?? '{}') as { continuationToken?: string };
    expect(Buffer.from(token.continuationToken ?? '', 'base64').toString()).toBe('mock-continuation-0');
    expect(r.candidates?.[0]?.finishReason).toBe('STOP');
  });

  it('429 RESOURCE_EXHAUSTED with a RetryInfo delay, 500 and 503 overloaded reach the SDK as ApiError once each', async () => {
    const m = await startMock({
      steps: [
        { fault: { kind: 'rate_limit', retryAfter: 13 } },
        { fault: { kind: 'http', status: 500 } },
        { fault: { kind: 'overloaded' } },
      ],
    });
    const c = client(m);
    const rl = await rejection(c.models.generateContent(request));
    expect(rl).toBeInstanceOf(ApiError);
    expect((rl as ApiError).status).toBe(429);
    expect(JSON.parse(rl.message)).toMatchObject({
      error: {
        code: 429,
        status: 'RESOURCE_EXHAUSTED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '13s' }],
      },
    });
    expect(((await rejection(c.models.generateContentStream(request))) as ApiError).status).toBe(500);
    const ov = (await rejection(c.models.generateContent(request))) as ApiError;
    expect(ov.status).toBe(503);
    expect(ov.message).toContain('UNAVAILABLE');
    expect(m.requests).toHaveLength(3);
  });

  it("a cut stream and an in-stream error chunk fail the SDK's iteration after the first chunks", async () => {
    const m = await startMock({
      steps: [{ fault: { kind: 'cut', after: 2 } }, { fault: { kind: 'stream_error', message: 'backend died', after: 1 } }],
    });
    const c = client(m);
    const cut = await drain(await c.models.generateContentStream(request));
    expect(cut.items).toHaveLength(2);
    expect(cut.error).not.toBeNull();
    const failed = await drain(await c.models.generateContentStream(request));
    expect(failed.items).toHaveLength(1);
    expect(failed.error).toBeInstanceOf(ApiError);
    expect(failed.error?.message).toContain('backend died');
  });

  it('context overflow: 400 INVALID_ARGUMENT "The input token count (N) exceeds …(W)" parses back', async () => {
    const m = await startMock({ steps: [{ fault: { kind: 'context_overflow', window: 131_072, promptTokens: 132_478 } }] });
    const err = (await rejection(client(m).models.generateContentStream(request))) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(400);
    expect(err.message).toContain('The input token count (132478) exceeds the maximum number of tokens allowed (131072).');
    expect(err.message).toContain('INVALID_ARGUMENT');
    expect(parseContextOverflow(err.status, err.message)).toEqual({ window: 131_072, promptTokens: 132_478 });
  });

  it('records the exact bytes the SDK sent; the x-goog-api-key header and a ?key= parameter are not written', async () => {
    const m = await startMock({ fallback: { content: [{ type: 'text', text: 'ok' }] } });
    const spy = spyFetch();
    await client(m, { fetch: spy.fetch }).models.generateContent(request);
    const r = m.requests[0];
    expect(r?.body).toBe(spy.bodies[0]);
    expect(r?.redacted.map((h) => h.toLowerCase())).toContain('x-goog-api-key');
    await fetch(`${m.url}/v1beta/models/gemini-test:generateContent?key=AIza-test-key&x=1`, {
      method: 'POST',
      body: JSON.stringify({ contents: [] }),
    });
    expect(m.requests[1]?.path).toBe('/v1beta/models/gemini-test:generateContent?key=REDACTED&x=1');
    expect(m.requests[1]?.redacted).toContain('?key');
    expect(JSON.stringify(m.requests)).not.toContain('AIza-test-key');
  });

  it('streamGenerateContent without alt=sse answers a JSON array of chunks; countTokens is answered without a script step', async () => {
    const m = await startMock({ steps: [{ reply: { content: [{ type: 'text', text: 'abcdef' }] } }] });
    const count = await client(m).models.countTokens({ model: 'gemini-test', contents: 'count me' });
    expect(count.totalTokens).toBeGreaterThan(0);
    const res = await fetch(`${m.url}/v1beta/models/gemini-test:streamGenerateContent`, {
      method: 'POST',
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
    });
    const chunks = (await res.json()) as { candidates: { content: { parts: { text: string }[] }; finishReason?: string }[] }[];
    expect(chunks.map((c) => c.candidates[0]?.content.parts[0]?.text).join('')).toBe('abcdef');
    expect(chunks.at(-1)?.candidates[0]?.finishReason).toBe('STOP');
    expect(m.requests.map((r) => r.answer.kind)).toEqual(['aux', 'reply']);
  });
});
