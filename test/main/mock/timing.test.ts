import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { eventually, startMock } from './helpers';

/*
 * Slow answers: a reply's firstByteMs and eventDelayMs, the server's fixed latencyMs, and the rule
 * that every wait ends when the client goes away. Lower bounds are exact (timers never fire early);
 * upper bounds are generous because the machine is shared.
 */

const GENEROUS = 5_000;
const chatBody = (stream: boolean) => JSON.stringify({ model: 'gpt-test', stream, messages: [{ role: 'user', content: 'hi' }] });

describe('mock provider: slow streams and latency', () => {
  it('firstByteMs holds back the headers; the SDK waits that long, not much longer', async () => {
    const m = await startMock({ steps: [{ reply: { content: [{ type: 'text', text: 'late' }], firstByteMs: 300 } }] });
    const c = new OpenAI({ apiKey: 'sk', baseURL: `${m.url}/v1`, maxRetries: 0 });
    const t0 = performance.now();
    const r = await c.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
    const took = performance.now() - t0;
    expect(r.choices[0]?.message.content).toBe('late');
    expect(took).toBeGreaterThanOrEqual(295);
    expect(took).toBeLessThan(300 + GENEROUS);
  });

  it('eventDelayMs spaces the events of a stream the SDK reads', async () => {
    const m = await startMock({ steps: [{ reply: { content: [{ type: 'text', text: 'one two three' }], eventDelayMs: 60 } }] });
    const c = new Anthropic({ apiKey: 'sk', baseURL: m.url, maxRetries: 0 });
    const at: number[] = [];
    const stream = await c.messages.create({
      model: 'claude-test',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    for await (const _ of stream) at.push(performance.now());
    // 9 events on the wire (ping included, which the SDK does not yield): 8 gaps of 60 ms.
    const span = (at.at(-1) ?? 0) - (at[0] ?? 0);
    expect(at).toHaveLength(8);
    expect(span).toBeGreaterThanOrEqual(7 * 60);
    expect(span).toBeLessThan(8 * 60 + GENEROUS);
  });

  it('latencyMs is added before every answer: scripted, auxiliary and unrouted', async () => {
    const m = await startMock({ fallback: { content: [{ type: 'text', text: 'ok' }] } }, { latencyMs: 200 });
    for (const [path, body] of [
      ['/v1/chat/completions', chatBody(false)],
      ['/v1/messages/count_tokens', '{}'],
      ['/nowhere', '{}'],
    ] as const) {
      const t0 = performance.now();
      const res = await fetch(`${m.url}${path}`, { method: 'POST', body });
      await res.text();
      const took = performance.now() - t0;
      expect(took, path).toBeGreaterThanOrEqual(195);
      expect(took, path).toBeLessThan(200 + GENEROUS);
    }
  });

  it('a slow first byte stops waiting when the client disconnects', async () => {
    const m = await startMock({ steps: [{ reply: { content: [{ type: 'text', text: 'never read' }], firstByteMs: 60_000 } }] });
    const ac = new AbortController();
    const pending = fetch(`${m.url}/v1/chat/completions`, { method: 'POST', body: chatBody(false), signal: ac.signal });
    expect(await eventually(() => m.active === 1, GENEROUS)).toBe(true);
    ac.abort();
    await expect(pending).rejects.toThrow();
    // The server's wait ended with the connection, not after 60 s.
    expect(await eventually(() => m.active === 0, GENEROUS)).toBe(true);
  });

  it('a slow stream stops mid-way when the client disconnects', async () => {
    const m = await startMock({ steps: [{ reply: { content: [{ type: 'text', text: 'a long, slow answer' }], eventDelayMs: 30_000 } }] });
    const ac = new AbortController();
    const res = await fetch(`${m.url}/v1/chat/completions`, { method: 'POST', body: chatBody(true), signal: ac.signal });
    const reader = res.body?.getReader();
    const first = await reader?.read();
    expect(first?.done).toBe(false);
    expect(m.active).toBe(1);
    ac.abort();
    expect(await eventually(() => m.active === 0, GENEROUS)).toBe(true);
  });

  it('an unpaced stream (sent in one write) carries the same bytes as a paced one (one write per event)', async () => {
    const reply = { content: [{ type: 'text' as const, text: 'the same words either way' }] };
    const read = async (eventDelayMs: number): Promise<string> => {
      const m = await startMock({ steps: [{ reply: { ...reply, eventDelayMs } }] });
      const res = await fetch(`${m.url}/v1/chat/completions`, { method: 'POST', body: chatBody(true) });
      expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      return res.text();
    };
    const unpaced = await read(0);
    // The mock derives ids and timestamps from the request seq, 0 for both: the bytes must match exactly.
    expect(unpaced).toBe(await read(1));
    expect(unpaced.match(/^data: /gm)?.length).toBeGreaterThan(3);
  });
});
