import Anthropic, { APIError, BadRequestError, InternalServerError, OverloadedError, RateLimitError } from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { type MockProvider, parseContextOverflow } from '../../../src/main/mock';
import { drain, rejection, spyFetch, startMock } from './helpers';

/* The Anthropic Messages API, driven by the official @anthropic-ai/sdk against the mock. */

function client(m: MockProvider, fetch?: typeof globalThis.fetch): Anthropic {
  return new Anthropic({ apiKey: 'sk-ant-test', baseURL: m.url, maxRetries: 0, ...(fetch ? { fetch } : {}) });
}

const params = {
  model: 'claude-test',
  max_tokens: 500,
  system: 'You summarise.',
  messages: [{ role: 'user' as const, content: 'Summarise it.' }],
};

describe('mock provider: Anthropic Messages through @anthropic-ai/sdk', () => {
  it('streams a message the SDK assembles (text, tool use, stop reason, usage) and answers non-streaming', async () => {
    const m = await startMock({
      steps: [
        {
          times: 2,
          reply: {
            content: [
              { type: 'text', text: 'Reading it.' },
              { type: 'tool_call', name: 'Read', input: { path: 'a.ts' } },
            ],
            usage: { input: 30, output: 12, cacheRead: 700, cacheWrite: 5 },
          },
        },
      ],
    });
    const c = client(m);
    const msg = await c.messages.stream(params).finalMessage();
    expect(msg.content).toEqual([
      { type: 'text', text: 'Reading it.' },
      { type: 'tool_use', id: 'toolu_mock_0_1', name: 'Read', input: { path: 'a.ts' } },
    ]);
    expect(msg.stop_reason).toBe('tool_use');
    expect(msg.usage).toMatchObject({ input_tokens: 30, output_tokens: 12, cache_read_input_tokens: 700, cache_creation_input_tokens: 5 });
    const json = await c.messages.create(params);
    expect(json.content[0]).toEqual({ type: 'text', text: 'Reading it.' });
  });

  it('length, refusal and pause reach the SDK as max_tokens, refusal and pause_turn', async () => {
    const stops = ['length', 'refusal', 'pause'] as const;
    const m = await startMock({ steps: stops.map((stop) => ({ reply: { content: [{ type: 'text' as const, text: 'x' }], stop } })) });
    const c = client(m);
    const got: (string | null)[] = [];
    for (const _ of stops) got.push((await c.messages.stream(params).finalMessage()).stop_reason);
    expect(got).toEqual(['max_tokens', 'refusal', 'pause_turn']);
  });

  it('a missing finish: the stream ends after the content with no message_delta or message_stop; JSON has stop_reason null', async () => {
    const m = await startMock({ steps: [{ times: 3, reply: { content: [{ type: 'text', text: 'half of it' }], stop: 'missing' } }] });
    const c = client(m);
    const raw = await drain(await c.messages.create({ ...params, stream: true }));
    expect(raw.error).toBeNull();
    expect(raw.items.map((e) => e.type)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
    ]);
    // The SDK's helper never gets a complete message.
    await expect(c.messages.stream(params).finalMessage()).rejects.toThrow(/without producing a Message/);
    expect((await c.messages.create(params)).stop_reason).toBeNull();
  });

  it('429 with retry-after, 529 overloaded and 500 reach the SDK once each as its typed errors', async () => {
    const m = await startMock({
      steps: [
        { fault: { kind: 'rate_limit', retryAfter: 4 } },
        { fault: { kind: 'overloaded' } },
        { fault: { kind: 'http', status: 500 } },
      ],
    });
    const c = client(m);
    const rl = await rejection(c.messages.create(params));
    expect(rl).toBeInstanceOf(RateLimitError);
    expect((rl as RateLimitError).headers?.get('retry-after')).toBe('4');
    expect(await rejection(c.messages.stream(params).finalMessage())).toBeInstanceOf(OverloadedError);
    expect(await rejection(c.messages.create(params))).toBeInstanceOf(InternalServerError);
    expect(m.requests.map((r) => r.answer.status)).toEqual([429, 529, 500]);
  });

  it('a cut stream fails the SDK after the first events; an in-stream error event becomes an APIError', async () => {
    const m = await startMock({
      steps: [{ fault: { kind: 'cut', after: 3 } }, { fault: { kind: 'stream_error', message: 'Overloaded mid-way' } }],
    });
    const c = client(m);
    const cut = await drain(await c.messages.create({ ...params, stream: true }));
    // ping is not yielded by the SDK: message_start and content_block_start arrived before the cut.
    expect(cut.items.map((e) => e.type)).toEqual(['message_start', 'content_block_start']);
    expect(cut.error).not.toBeNull();
    const failed = await rejection(c.messages.stream(params).finalMessage());
    expect(failed).toBeInstanceOf(APIError);
    expect(failed.message).toContain('Overloaded mid-way');
  });

  it('context overflow: 400 invalid_request_error "prompt is too long" whose numbers parse back', async () => {
    const m = await startMock({
      steps: [
        { fault: { kind: 'context_overflow', window: 200_000, promptTokens: 208_310 } },
        { fault: { kind: 'context_overflow', window: 10 } },
      ],
    });
    const c = client(m);
    const err = await rejection(c.messages.stream(params).finalMessage());
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err.message).toContain('prompt is too long: 208310 tokens > 200000 maximum');
    expect(parseContextOverflow((err as BadRequestError).status, err.message)).toEqual({ window: 200_000, promptTokens: 208_310 });
    // Without promptTokens the mock reports more than the window (an estimate from the body).
    const est = (await rejection(c.messages.create(params))) as BadRequestError;
    const parsed = parseContextOverflow(est.status, est.message);
    expect(parsed?.window).toBe(10);
    expect(parsed?.promptTokens).toBeGreaterThan(10);
  });

  it('records the exact bytes the SDK sent, the key left out', async () => {
    const m = await startMock({ fallback: { content: [{ type: 'text', text: 'ok' }] } });
    const spy = spyFetch();
    await client(m, spy.fetch).messages.create(params);
    const r = m.requests[0];
    expect(r?.body).toBe(spy.bodies[0]);
    expect(r?.redacted.length).toBeGreaterThan(0);
    expect(JSON.stringify(r)).not.toContain('sk-ant-test');
  });
});
