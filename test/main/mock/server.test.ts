import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { type MockProvider, type ScriptInput, bodyJson, readCaptured, startMockProvider } from '../../../src/main/mock';
import { header, sseEvents } from './captured';

const open: MockProvider[] = [];
const dirs: string[] = [];

async function start(script: ScriptInput, recordPath?: string): Promise<MockProvider> {
  const m = await startMockProvider(recordPath ? { script, recordPath } : { script });
  open.push(m);
  return m;
}

function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'palimpsest-mock-'));
  dirs.push(d);
  return d;
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((m) => m.dispose()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function post(m: MockProvider, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${m.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

type Json = Record<string, unknown>;
async function events(res: Response): Promise<{ event: string | null; data: Json }[]> {
  return sseEvents(await res.text()).map((e) => ({ event: e.event, data: JSON.parse(e.data) as Json }));
}

const anthropicBody = (text: string, stream = true) => ({
  model: 'claude-test',
  max_tokens: 100,
  stream,
  system: [{ type: 'text', text: 'You are a test.' }],
  messages: [{ role: 'user', content: [{ type: 'text', text }] }],
  tools: [{ name: 'Bash', input_schema: { type: 'object' } }],
});

const responsesBody = (text: string) => ({
  model: 'gpt-test',
  stream: true,
  instructions: 'Be brief.',
  input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text }] }],
  tools: [],
});

describe('mock provider: Anthropic Messages', () => {
  it('streams text and a tool call that a client can reassemble, with stop reason and usage', async () => {
    const m = await start({
      steps: [
        {
          reply: {
            content: [
              { type: 'text', text: 'Running it now.' },
              { type: 'tool_call', name: 'Bash', input: { command: 'ls -la' } },
            ],
            usage: { input: 10, output: 5, cacheRead: 90_000 },
          },
        },
      ],
    });
    const res = await post(m, '/v1/messages?beta=true', anthropicBody('list files'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const ev = await events(res);
    expect(ev.map((e) => e.event)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    // Every event's data names its own type, as the SDK expects.
    for (const e of ev) expect(e.data.type).toBe(e.event);
    const text = ev
      .filter((e) => (e.data.delta as Json | undefined)?.type === 'text_delta')
      .map((e) => (e.data.delta as Json).text)
      .join('');
    expect(text).toBe('Running it now.');
    const json = ev
      .filter((e) => (e.data.delta as Json | undefined)?.type === 'input_json_delta')
      .map((e) => (e.data.delta as Json).partial_json)
      .join('');
    expect(JSON.parse(json)).toEqual({ command: 'ls -la' });
    const toolStart = ev[7]?.data.content_block as Json;
    expect(toolStart).toMatchObject({ type: 'tool_use', name: 'Bash', id: 'toolu_mock_0_1' });
    const delta = ev.at(-2)?.data as Json;
    expect(delta.delta).toEqual({ stop_reason: 'tool_use', stop_sequence: null });
    expect(delta.usage).toMatchObject({ input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 90_000 });
    expect(((ev[0]?.data.message as Json).usage as Json).cache_read_input_tokens).toBe(90_000);
  });

  it('answers non-streaming requests with a message object; maps every stop reason', async () => {
    const stops = ['end', 'length', 'refusal', 'pause', 'stop_sequence'] as const;
    const m = await start({ steps: stops.map((stop) => ({ reply: { content: [{ type: 'text' as const, text: stop }], stop } })) });
    const got: unknown[] = [];
    for (const _ of stops) {
      const res = await post(m, '/v1/messages', anthropicBody('hi', false));
      const body = (await res.json()) as Json;
      expect(body).toMatchObject({ type: 'message', role: 'assistant', model: 'claude-test' });
      got.push(body.stop_reason);
    }
    expect(got).toEqual(['end_turn', 'max_tokens', 'refusal', 'pause_turn', 'stop_sequence']);
  });

  it('serves count_tokens without consuming a script step', async () => {
    const m = await start({ steps: [{ reply: { content: [{ type: 'text', text: 'x' }] } }] });
    const res = await post(m, '/v1/messages/count_tokens', anthropicBody('count me', false));
    expect(((await res.json()) as Json).input_tokens).toBeGreaterThan(0);
    expect(m.player.unused()).toHaveLength(1);
    expect(m.requests[0]?.answer.kind).toBe('aux');
  });

  it('thinking blocks stream as thinking_delta then signature_delta', async () => {
    const m = await start({
      steps: [
        {
          reply: {
            content: [
              { type: 'thinking', text: 'hmm, let me see' },
              { type: 'text', text: 'ok' },
            ],
          },
        },
      ],
    });
    const ev = await events(await post(m, '/v1/messages', anthropicBody('think')));
    const kinds = ev.filter((e) => e.event === 'content_block_delta').map((e) => (e.data.delta as Json).type);
    expect(kinds.slice(0, 4)).toEqual(['thinking_delta', 'thinking_delta', 'thinking_delta', 'signature_delta']);
  });
});

describe('mock provider: OpenAI Responses', () => {
  it('streams the event sequence Codex reads, ending in response.completed with usage', async () => {
    const m = await start({
      steps: [
        {
          reply: {
            content: [
              { type: 'text', text: 'I will look.' },
              { type: 'tool_call', name: 'exec_command', input: { cmd: 'ls' } },
            ],
            usage: { input: 100, cacheRead: 400, output: 7 },
          },
        },
      ],
    });
    const res = await post(m, '/v1/responses', responsesBody('list'));
    const ev = await events(res);
    const types = ev.map((e) => e.data.type);
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(ev.map((e) => e.event)).toEqual(types);
    expect(types).toContain('response.output_text.delta');
    expect(types).toContain('response.function_call_arguments.delta');
    // sequence_number counts from 0 without gaps.
    expect(ev.map((e) => e.data.sequence_number)).toEqual(ev.map((_, i) => i));
    const done = ev.filter((e) => e.data.type === 'response.output_item.done').map((e) => e.data.item as Json);
    expect(done[0]).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'I will look.' }] });
    expect(done[1]).toMatchObject({ type: 'function_call', name: 'exec_command', arguments: '{"cmd":"ls"}', call_id: 'call_mock_0000_1' });
    const text = ev
      .filter((e) => e.data.type === 'response.output_text.delta')
      .map((e) => e.data.delta)
      .join('');
    expect(text).toBe('I will look.');
    const usage = (ev.at(-1)?.data.response as Json).usage as Json;
    expect(usage).toEqual({
      input_tokens: 500,
      input_tokens_details: { cached_tokens: 400 },
      output_tokens: 7,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 507,
    });
  });

  it('a reply cut at the output limit ends in response.incomplete (max_output_tokens)', async () => {
    const m = await start({ steps: [{ reply: { content: [{ type: 'text', text: 'a summary that' }], stop: 'length' } }] });
    const ev = await events(await post(m, '/v1/responses', responsesBody('summarise')));
    const last = ev.at(-1)?.data as Json;
    expect(last.type).toBe('response.incomplete');
    expect(last.response).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
  });

  it('a refusal is a refusal content part', async () => {
    const m = await start({ steps: [{ reply: { content: [{ type: 'text', text: 'I cannot.' }], stop: 'refusal' } }] });
    const ev = await events(await post(m, '/v1/responses', responsesBody('x')));
    const done = ev.find((e) => e.data.type === 'response.output_item.done')?.data.item as Json;
    expect(done.content).toEqual([{ type: 'refusal', refusal: 'I cannot.' }]);
  });
});

describe('mock provider: script matching', () => {
  it('takes steps in order, lets a predicate pick its request, then falls back', async () => {
    const m = await start({
      steps: [
        { label: 'summary', when: { lastUserContains: 'summary' }, reply: { content: [{ type: 'text', text: 'SUMMARY' }] } },
        { label: 'first', reply: { content: [{ type: 'text', text: 'ONE' }] } },
        { label: 'second', reply: { content: [{ type: 'text', text: 'TWO' }] } },
      ],
      fallback: { content: [{ type: 'text', text: 'FALLBACK' }] },
    });
    const texts: string[] = [];
    for (const prompt of ['hello', 'please write a summary', 'again', 'more']) {
      const body = (await (await post(m, '/v1/messages', anthropicBody(prompt, false))).json()) as { content: { text: string }[] };
      texts.push(body.content[0]?.text ?? '');
    }
    expect(texts).toEqual(['ONE', 'SUMMARY', 'TWO', 'FALLBACK']);
    expect(m.requests.map((r) => r.answer.label)).toEqual(['first', 'summary', 'second', 'fallback']);
  });

  it('matches on protocol, system text, tools and negation; times: 0 is unlimited', async () => {
    const m = await start({
      steps: [
        {
          label: 'codex',
          when: { protocol: 'openai-responses', systemContains: 'brief' },
          times: 0,
          reply: { content: [{ type: 'text', text: 'R' }] },
        },
        { label: 'no-tools', when: { hasTools: false }, reply: { content: [{ type: 'text', text: 'N' }] } },
        { label: 'not-x', when: { not: { contains: 'xyz' } }, times: 0, reply: { content: [{ type: 'text', text: 'A' }] } },
      ],
    });
    await post(m, '/v1/responses', responsesBody('a'));
    await post(m, '/v1/responses', responsesBody('b'));
    await post(m, '/v1/messages', { ...anthropicBody('c', false), tools: [] });
    await post(m, '/v1/messages', anthropicBody('d', false));
    const last = await post(m, '/v1/messages', anthropicBody('xyz', false));
    expect(m.requests.map((r) => r.answer.label)).toEqual(['codex', 'codex', 'no-tools', 'not-x', 'exhausted']);
    expect(last.status).toBe(500);
    expect(((await last.json()) as { error: Json }).error.type).toBe('script_exhausted');
  });

  it('rejects a step with both a reply and a fault', async () => {
    await expect(startMockProvider({ script: { steps: [{ reply: { content: [] }, fault: { kind: 'overloaded' } }] } })).rejects.toThrow();
  });
});

describe('mock provider: faults', () => {
  it("HTTP 500, 529 overloaded and 429 with retry-after, in each protocol's error shape", async () => {
    const m = await start({
      steps: [
        { fault: { kind: 'http', status: 500 } },
        { fault: { kind: 'overloaded' } },
        { fault: { kind: 'rate_limit', retryAfter: 3 } },
        { fault: { kind: 'overloaded' } },
        { fault: { kind: 'rate_limit', retryAfter: 1 } },
      ],
    });
    const a = await post(m, '/v1/messages', anthropicBody('x'));
    expect(a.status).toBe(500);
    expect(await a.json()).toEqual({ type: 'error', error: { type: 'api_error', message: 'Mock HTTP 500' } });
    const b = await post(m, '/v1/messages', anthropicBody('x'));
    expect(b.status).toBe(529);
    expect(((await b.json()) as { error: Json }).error.type).toBe('overloaded_error');
    const c = await post(m, '/v1/messages', anthropicBody('x'));
    expect(c.status).toBe(429);
    expect(c.headers.get('retry-after')).toBe('3');
    expect(((await c.json()) as { error: Json }).error.type).toBe('rate_limit_error');
    const d = await post(m, '/v1/responses', responsesBody('x'));
    expect(d.status).toBe(503);
    expect(((await d.json()) as { error: Json }).error.code).toBe('server_is_overloaded');
    const e = await post(m, '/v1/responses', responsesBody('x'));
    expect(e.status).toBe(429);
    expect(e.headers.get('retry-after')).toBe('1');
    expect(m.requests.map((r) => [r.answer.status, r.answer.kind])).toEqual([
      [500, 'fault:http'],
      [529, 'fault:overloaded'],
      [429, 'fault:rate_limit'],
      [503, 'fault:overloaded'],
      [429, 'fault:rate_limit'],
    ]);
  });

  it('a stream cut mid-way delivers the first events and then fails the read', async () => {
    const m = await start({ steps: [{ fault: { kind: 'cut', after: 3 } }, { fault: { kind: 'cut', after: 2 } }] });
    const res = await post(m, '/v1/messages', anthropicBody('x'));
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let text = '';
    let failed = false;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
    } catch {
      failed = true;
    }
    expect(failed).toBe(true);
    expect(sseEvents(text).map((e) => e.event)).toEqual(['message_start', 'ping', 'content_block_start']);
    const res2 = await post(m, '/v1/responses', responsesBody('x'));
    await expect(res2.text()).rejects.toThrow();
  });

  it('in-stream errors: anthropic `error` event, responses `response.failed`', async () => {
    const m = await start({ steps: [{ fault: { kind: 'stream_error' } }, { fault: { kind: 'stream_error', message: 'boom' } }] });
    const a = await events(await post(m, '/v1/messages', anthropicBody('x')));
    expect(a.map((e) => e.event)).toEqual(['message_start', 'error']);
    expect(a[1]?.data).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    const b = await events(await post(m, '/v1/responses', responsesBody('x')));
    expect(b.at(-1)?.data).toMatchObject({ type: 'response.failed', response: { status: 'failed', error: { message: 'boom' } } });
  });
});

describe('mock provider: recording', () => {
  it('appends every request byte for byte, secrets removed, in arrival order', async () => {
    const dir = tmp();
    const path = join(dir, 'captured.jsonl');
    const m = await start({ steps: [], fallback: { content: [{ type: 'text', text: 'ok' }] } }, path);
    const raw = '{"model":"claude-test", "stream":false,\n "messages":[{"role":"user","content":"héllo ✓"}]}';
    await post(m, '/v1/messages?beta=true', raw, { 'x-api-key': 'sk-secret', Authorization: 'Bearer sk-secret', 'X-Custom': 'kept' });
    await fetch(`${m.url}/v1/models`);
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain('sk-secret');
    const { requests, errors } = readCaptured(path);
    expect(errors).toEqual([]);
    expect(requests).toHaveLength(2);
    const r = requests[0]!;
    expect(r).toMatchObject({
      seq: 0,
      method: 'POST',
      path: '/v1/messages?beta=true',
      body: raw,
      bodyEncoding: 'utf8',
      bodyBytes: Buffer.byteLength(raw),
      protocol: 'anthropic-messages',
    });
    expect(r.redacted.map((h) => h.toLowerCase()).sort()).toEqual(['authorization', 'x-api-key']);
    expect(header(r, 'x-custom')).toBe('kept');
    expect(r.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(requests[1]).toMatchObject({
      seq: 1,
      method: 'GET',
      path: '/v1/models',
      protocol: null,
      answer: { status: 404, kind: 'no_route' },
    });
    // The in-memory list is the same as the file.
    expect(m.requests).toEqual(requests);
  });

  it('keeps a non-UTF-8 body as base64 and a compressed body decoded beside it', async () => {
    const m = await start({ steps: [], fallback: { content: [{ type: 'text', text: 'ok' }] } });
    const json = JSON.stringify(responsesBody('zipped'));
    await fetch(`${m.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(json),
    });
    const r = m.requests[0]!;
    expect(r.bodyEncoding).toBe('base64');
    expect(r.decoded).toBe(json);
    expect(bodyJson(r)).toEqual(JSON.parse(json));
    // The compressed request was still matched and answered as a stream.
    expect(r.answer).toMatchObject({ status: 200, kind: 'reply', label: 'fallback' });
  });

  it('binds to loopback only and refuses other hosts', async () => {
    await expect(startMockProvider({ script: {}, host: '0.0.0.0' })).rejects.toThrow(/loopback/);
    const m = await start({});
    expect(m.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('refuses requests beyond its bound with 503, without recording them', async () => {
    const m = await startMockProvider({ script: { fallback: { content: [] } }, maxRequests: 2 });
    open.push(m);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await post(m, '/v1/messages', anthropicBody('x', false))).status);
    expect(statuses).toEqual([200, 200, 503]);
    expect(m.requests).toHaveLength(2);
  });
});
