import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { type MockProvider, type RequestDigest, parseContextOverflow } from '../../../src/main/mock';
import { sseEvents } from './captured';
import { drain, rejection, spyFetch, startMock } from './helpers';

/* Chat Completions, driven by the official openai SDK against the mock. */

function client(m: MockProvider, fetch?: typeof globalThis.fetch): OpenAI {
  return new OpenAI({ apiKey: 'sk-test', baseURL: `${m.url}/v1`, maxRetries: 0, ...(fetch ? { fetch } : {}) });
}

const messages = [
  { role: 'system' as const, content: 'You are terse.' },
  { role: 'user' as const, content: 'List the files.' },
];

describe('mock provider: OpenAI Chat Completions through the openai SDK', () => {
  it('streams text and a tool call the SDK reassembles, then a usage chunk and [DONE]', async () => {
    const m = await startMock({
      steps: [
        {
          times: 2,
          reply: {
            content: [
              { type: 'text', text: 'Looking now.' },
              { type: 'tool_call', name: 'ls', input: { dir: 'src' } },
            ],
            usage: { input: 100, cacheRead: 900, output: 40, reasoning: 12 },
          },
        },
      ],
    });
    const stream = client(m).chat.completions.stream({ model: 'gpt-test', messages, stream_options: { include_usage: true } });
    const done = await stream.finalChatCompletion();
    const choice = done.choices[0];
    expect(choice?.message.content).toBe('Looking now.');
    expect(choice?.message.tool_calls?.[0]).toMatchObject({
      id: 'call_mock_0000_1',
      type: 'function',
      function: { name: 'ls', arguments: '{"dir":"src"}' },
    });
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(done.usage).toEqual({
      prompt_tokens: 1000,
      completion_tokens: 40,
      total_tokens: 1040,
      prompt_tokens_details: { cached_tokens: 900, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 12, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    });
    // The raw wire: unnamed data lines, the usage chunk has no choices, the last line is [DONE].
    const res = await fetch(`${m.url}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'gpt-test', messages, stream: true, stream_options: { include_usage: true } }),
    });
    const ev = sseEvents(await res.text());
    expect(ev.every((e) => e.event === null)).toBe(true);
    expect(ev.at(-1)?.data).toBe('[DONE]');
    expect(JSON.parse(ev.at(-2)?.data ?? '{}')).toMatchObject({ object: 'chat.completion.chunk', choices: [] });
  });

  it('sends no usage chunk unless include_usage is asked for', async () => {
    const m = await startMock({ steps: [{ reply: { content: [{ type: 'text', text: 'hi' }] } }] });
    const chunks = await drain(await client(m).chat.completions.create({ model: 'gpt-test', messages, stream: true }));
    expect(chunks.error).toBeNull();
    expect(chunks.items.map((c) => c.choices[0]?.finish_reason ?? null).filter((f) => f !== null)).toEqual(['stop']);
    expect(chunks.items.some((c) => c.usage)).toBe(false);
  });

  it('maps every finish reason on non-streaming answers (refusal text in `refusal`, missing = null)', async () => {
    const stops = ['end', 'length', 'refusal', 'pause', 'stop_sequence', 'missing'] as const;
    const m = await startMock({
      steps: [
        ...stops.map((stop) => ({ reply: { content: [{ type: 'text' as const, text: `said ${stop}` }], stop } })),
        { reply: { content: [], rawStop: 'weird' } },
      ],
    });
    const c = client(m);
    const got: { finish: string | null; content: string | null; refusal: string | null }[] = [];
    for (let i = 0; i <= stops.length; i++) {
      const r = await c.chat.completions.create({ model: 'gpt-test', messages });
      const ch = r.choices[0];
      got.push({ finish: ch?.finish_reason ?? null, content: ch?.message.content ?? null, refusal: ch?.message.refusal ?? null });
    }
    expect(got.map((g) => g.finish)).toEqual(['stop', 'length', 'content_filter', 'pause_turn', 'stop', null, 'weird']);
    expect(got[2]).toEqual({ finish: 'content_filter', content: null, refusal: 'said refusal' });
    expect(got[0]?.content).toBe('said end');
  });

  it('a missing finish ends the stream cleanly with no finish chunk and no [DONE]; the SDK helper rejects it', async () => {
    const m = await startMock({ steps: [{ times: 2, reply: { content: [{ type: 'text', text: 'half a summ' }], stop: 'missing' } }] });
    const err = await rejection(client(m).chat.completions.stream({ model: 'gpt-test', messages }).finalChatCompletion());
    expect(err.message).toMatch(/missing finish_reason/);
    const res = await fetch(`${m.url}/v1/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'gpt-test', messages, stream: true, stream_options: { include_usage: true } }),
    });
    const ev = sseEvents(await res.text());
    expect(ev.map((e) => e.data)).not.toContain('[DONE]');
    const finishes = ev.map((e) => (JSON.parse(e.data) as { choices: { finish_reason: string | null }[] }).choices[0]?.finish_reason);
    expect(finishes.every((f) => f === null)).toBe(true);
  });

  it("429 carries retry-after, 500 and 503 overloaded come once each in OpenAI's error shape", async () => {
    const m = await startMock({
      steps: [
        { fault: { kind: 'rate_limit', retryAfter: 7 } },
        { fault: { kind: 'http', status: 500 } },
        { fault: { kind: 'overloaded' } },
      ],
    });
    const c = client(m);
    const rl = await rejection(c.chat.completions.create({ model: 'gpt-test', messages }));
    expect(rl).toBeInstanceOf(OpenAI.RateLimitError);
    expect((rl as InstanceType<typeof OpenAI.RateLimitError>).headers?.get('retry-after')).toBe('7');
    expect((rl as InstanceType<typeof OpenAI.RateLimitError>).code).toBe('rate_limit_exceeded');
    const ise = await rejection(c.chat.completions.create({ model: 'gpt-test', messages, stream: true }));
    expect(ise).toBeInstanceOf(OpenAI.InternalServerError);
    expect((ise as InstanceType<typeof OpenAI.APIError>).status).toBe(500);
    const ov = await rejection(c.chat.completions.create({ model: 'gpt-test', messages }));
    expect((ov as InstanceType<typeof OpenAI.APIError>).status).toBe(503);
    expect((ov as InstanceType<typeof OpenAI.APIError>).code).toBe('server_is_overloaded');
    expect(m.requests.map((r) => r.answer.status)).toEqual([429, 500, 503]);
  });

  it("a stream cut mid-way and an in-stream error both fail the SDK's iteration after the first chunks", async () => {
    const m = await startMock({
      steps: [{ fault: { kind: 'cut', after: 2 } }, { fault: { kind: 'stream_error', message: 'model crashed', after: 2 } }],
    });
    const c = client(m);
    const cut = await drain(await c.chat.completions.create({ model: 'gpt-test', messages, stream: true }));
    expect(cut.items).toHaveLength(2);
    expect(cut.error).not.toBeNull();
    const failed = await drain(await c.chat.completions.create({ model: 'gpt-test', messages, stream: true }));
    expect(failed.items).toHaveLength(2);
    expect(failed.error).toBeInstanceOf(OpenAI.APIError);
    expect(failed.error?.message).toContain('model crashed');
  });

  it('context overflow: 400 context_length_exceeded whose message gives the window back', async () => {
    const m = await startMock({ steps: [{ fault: { kind: 'context_overflow', window: 8192, promptTokens: 9100 } }] });
    const err = await rejection(client(m).chat.completions.create({ model: 'gpt-test', messages, stream: true }));
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    const e = err as InstanceType<typeof OpenAI.BadRequestError>;
    expect(e.code).toBe('context_length_exceeded');
    expect(e.message).toContain("This model's maximum context length is 8192 tokens. However, your messages resulted in 9100 tokens.");
    expect(parseContextOverflow(e.status, e.message)).toEqual({ window: 8192, promptTokens: 9100 });
  });

  it('records the exact bytes the SDK sent, its API key left out; the digest reads system, user text and max tokens', async () => {
    const seen: RequestDigest[] = [];
    const m = await startMock(
      {
        steps: [
          {
            when: { protocol: 'openai-chat', systemContains: 'terse', lastUserContains: 'List the files' },
            reply: { content: [{ type: 'text', text: 'ok' }] },
          },
        ],
      },
      { answer: (d) => (seen.push(d), null) },
    );
    const spy = spyFetch();
    await client(m, spy.fetch).chat.completions.create({ model: 'gpt-test', messages, max_completion_tokens: 77 });
    const r = m.requests[0];
    expect(r?.answer).toMatchObject({ step: 0, status: 200 });
    expect(r?.body).toBe(spy.bodies[0]);
    expect(r?.redacted.map((h) => h.toLowerCase())).toContain('authorization');
    expect(JSON.stringify(r)).not.toContain('sk-test');
    expect(seen[0]).toMatchObject({
      protocol: 'openai-chat',
      model: 'gpt-test',
      system: 'You are terse.',
      firstUser: 'List the files.',
      maxOutput: 77,
      stream: false,
    });
  });
});
