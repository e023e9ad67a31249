import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import {
  type MockProvider,
  OPENAI_RESPONSES_OVERFLOW_MESSAGE,
  openaiChatOverflowMessage,
  parseContextOverflow,
} from '../../../src/main/mock';
import { drain, rejection, spyFetch, startMock } from './helpers';

/* The Responses API, driven by the official openai SDK against the mock. */

function client(m: MockProvider, fetch?: typeof globalThis.fetch): OpenAI {
  return new OpenAI({ apiKey: 'sk-test', baseURL: `${m.url}/v1`, maxRetries: 0, ...(fetch ? { fetch } : {}) });
}

const input = [{ role: 'user' as const, content: 'Summarise the session.' }];

/** The types of the events of a streamed response, and the last one. */
async function streamed(
  c: OpenAI,
): Promise<{ types: string[]; last: OpenAI.Responses.ResponseStreamEvent | undefined; error: Error | null }> {
  const { items, error } = await drain(await c.responses.create({ model: 'gpt-test', input, instructions: 'Be brief.', stream: true }));
  return { types: items.map((e) => e.type), last: items.at(-1), error };
}

describe('mock provider: OpenAI Responses through the openai SDK', () => {
  it('streams to response.completed with usage, and answers non-streaming requests with the response object', async () => {
    const m = await startMock({
      steps: [
        {
          times: 2,
          reply: { content: [{ type: 'text', text: 'All done.' }], usage: { input: 50, cacheRead: 150, output: 9, reasoning: 4 } },
        },
      ],
    });
    const c = client(m);
    const s = await streamed(c);
    expect(s.error).toBeNull();
    expect(s.types[0]).toBe('response.created');
    expect(s.types).toContain('response.output_text.delta');
    expect(s.last?.type).toBe('response.completed');
    const r = await c.responses.create({ model: 'gpt-test', input });
    expect(r.output_text).toBe('All done.');
    expect(r.status).toBe('completed');
    expect(r.usage).toMatchObject({
      input_tokens: 200,
      input_tokens_details: { cached_tokens: 150 },
      output_tokens: 9,
      output_tokens_details: { reasoning_tokens: 4 },
    });
  });

  it('length and pause end in response.incomplete (max_output_tokens, pause_turn); missing has no terminal event', async () => {
    const m = await startMock({
      steps: [
        { reply: { content: [{ type: 'text', text: 'a' }], stop: 'length' } },
        { reply: { content: [{ type: 'text', text: 'b' }], stop: 'pause' } },
        { reply: { content: [{ type: 'text', text: 'c' }], stop: 'missing' } },
        { reply: { content: [{ type: 'text', text: 'd' }], stop: 'missing' } },
      ],
    });
    const c = client(m);
    const length = await streamed(c);
    expect(length.last).toMatchObject({
      type: 'response.incomplete',
      response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } },
    });
    const pause = await streamed(c);
    expect(pause.last).toMatchObject({ type: 'response.incomplete', response: { incomplete_details: { reason: 'pause_turn' } } });
    const missing = await streamed(c);
    expect(missing.error).toBeNull();
    expect(missing.last?.type).toBe('response.output_item.done');
    expect(missing.types.filter((t) => ['response.completed', 'response.incomplete', 'response.failed'].includes(t))).toEqual([]);
    const json = await c.responses.create({ model: 'gpt-test', input });
    expect(json.status).toBe('in_progress');
  });

  it('429 with retry-after, 503 overloaded, and a cut stream reach the SDK once each', async () => {
    const m = await startMock({
      steps: [{ fault: { kind: 'rate_limit', retryAfter: 2 } }, { fault: { kind: 'overloaded' } }, { fault: { kind: 'cut', after: 3 } }],
    });
    const c = client(m);
    const rl = await rejection(c.responses.create({ model: 'gpt-test', input }));
    expect(rl).toBeInstanceOf(OpenAI.RateLimitError);
    expect((rl as InstanceType<typeof OpenAI.RateLimitError>).headers?.get('retry-after')).toBe('2');
    const ov = await rejection(c.responses.create({ model: 'gpt-test', input, stream: true }));
    expect((ov as InstanceType<typeof OpenAI.APIError>).status).toBe(503);
    const cut = await streamed(c);
    expect(cut.types).toHaveLength(3);
    expect(cut.error).not.toBeNull();
    expect(m.requests).toHaveLength(3);
  });

  it('context overflow: a 400 with code context_length_exceeded and the real wording, which reports no window', async () => {
    const m = await startMock({
      steps: [
        { fault: { kind: 'context_overflow', window: 4000 } },
        { fault: { kind: 'context_overflow', window: 4000, promptTokens: 4500, message: openaiChatOverflowMessage(4500, 4000) } },
      ],
    });
    const c = client(m);
    const plain = (await rejection(c.responses.create({ model: 'gpt-test', input }))) as InstanceType<typeof OpenAI.BadRequestError>;
    expect(plain).toBeInstanceOf(OpenAI.BadRequestError);
    expect(plain.code).toBe('context_length_exceeded');
    expect(plain.param).toBe('input');
    expect(plain.message).toContain(OPENAI_RESPONSES_OVERFLOW_MESSAGE);
    expect(parseContextOverflow(plain.status, plain.message)).toEqual({ window: null, promptTokens: null });
    const worded = (await rejection(c.responses.create({ model: 'gpt-test', input }))) as InstanceType<typeof OpenAI.BadRequestError>;
    expect(parseContextOverflow(worded.status, worded.message)).toEqual({ window: 4000, promptTokens: 4500 });
  });

  it('context overflow in-stream: created, in_progress, then response.failed with the code', async () => {
    const m = await startMock({ steps: [{ fault: { kind: 'context_overflow', window: 4000, inStream: true } }] });
    const s = await streamed(client(m));
    expect(s.types).toEqual(['response.created', 'response.in_progress', 'response.failed']);
    expect(s.last).toMatchObject({
      response: { status: 'failed', error: { code: 'context_length_exceeded', message: OPENAI_RESPONSES_OVERFLOW_MESSAGE } },
    });
    expect(m.requests[0]?.answer).toMatchObject({ status: 200, kind: 'fault:context_overflow' });
  });

  it('records the exact bytes the SDK sent', async () => {
    const m = await startMock({ fallback: { content: [{ type: 'text', text: 'ok' }] } });
    const spy = spyFetch();
    await client(m, spy.fetch).responses.create({ model: 'gpt-test', input, max_output_tokens: 300 });
    expect(m.requests[0]?.body).toBe(spy.bodies[0]);
    expect(m.requests[0]?.path).toBe('/v1/responses');
  });
});
