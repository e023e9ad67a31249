import { describe, expect, it } from 'vitest';
import { decodeCall, routeOf } from '../../../src/main/capture/decode';
import type { Exchange } from '../../../src/main/capture/exchange';
import { readCapture } from '../../../src/main/capture/read';
import { type ProtocolAdapter } from '../../../src/main/mock/protocols';
import { anthropicMessages } from '../../../src/main/mock/protocols/anthropic';
import { gemini } from '../../../src/main/mock/protocols/gemini';
import { openaiChat } from '../../../src/main/mock/protocols/openai-chat';
import { openaiResponses } from '../../../src/main/mock/protocols/openai-responses';
import { Fault, Reply, type FaultInput, type ReplyInput } from '../../../src/main/mock/script';
import { join } from 'node:path';

/*
 * Decoding is checked against the wire the mock provider speaks (each adapter follows its
 * provider's real shapes), streamed and whole, and against the fixtures.
 */

function exchange(path: string, request: unknown, response: Exchange['response'], error: Exchange['error'] = null): Exchange {
  return {
    index: 0,
    file: 'test',
    line: 1,
    provider: null,
    method: 'POST',
    path,
    host: null,
    startedAt: 0,
    ttfbMs: 10,
    totalMs: 120,
    request: { headers: [], body: JSON.stringify(request), bytes: null },
    response,
    error,
  };
}

/** What the mock adapter answers to `request` at `path`, as a capture would hold it. */
function viaMock(
  adapter: ProtocolAdapter,
  path: string,
  request: Record<string, unknown>,
  answer: { reply?: ReplyInput; fault?: FaultInput },
): Exchange {
  const raw = JSON.stringify(request);
  const digest = adapter.digest(request, raw, path);
  const ctx = { seq: 0, bodyBytes: raw.length, digest, body: request, path };
  const a = answer.fault ? adapter.fault(Fault.parse(answer.fault), ctx) : adapter.reply(Reply.parse(answer.reply), ctx);
  if (a.kind === 'destroy') return exchange(path, request, null, { side: 'upstream', code: 'ECONNRESET', message: 'socket hang up' });
  if (a.kind === 'json')
    return exchange(path, request, { status: a.status, headers: [], events: null, body: JSON.stringify(a.body), complete: true });
  const all = a.events.map((e) => ({ t: 0, event: e.event ?? null, data: e.rawData ?? JSON.stringify(e.data) }));
  const events = a.cutAfter === undefined ? all : all.slice(0, a.cutAfter);
  return exchange(path, request, { status: a.status, headers: [], events, body: null, complete: a.cutAfter === undefined });
}

const TOOL_REPLY: ReplyInput = {
  content: [
    { type: 'thinking', text: 'Need the file list.' },
    { type: 'text', text: 'Listing the files now.' },
    { type: 'tool_call', name: 'Bash', input: { command: 'ls -la' }, id: 'call_1' },
  ],
  usage: { input: 100, output: 20, cacheRead: 4000, cacheWrite: 50, reasoning: 7 },
  model: 'served-model',
};

describe('routeOf', () => {
  it('names protocol and kind from the path', () => {
    expect(routeOf('/v1/messages?beta=true')).toMatchObject({ protocol: 'anthropic-messages', kind: 'model' });
    expect(routeOf('/v1/messages/count_tokens?beta=true')).toMatchObject({ protocol: 'anthropic-messages', kind: 'count-tokens' });
    expect(routeOf('/v1/responses')).toMatchObject({ protocol: 'openai-responses', kind: 'model' });
    expect(routeOf('/responses')).toMatchObject({ protocol: 'openai-responses', kind: 'model' });
    expect(routeOf('/v1/chat/completions')).toMatchObject({ protocol: 'openai-chat', kind: 'model' });
    expect(routeOf('/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse')).toEqual({
      protocol: 'gemini',
      kind: 'model',
      model: 'gemini-2.5-pro',
      stream: true,
    });
    expect(routeOf('/v1beta/models/gemini-2.5-pro:countTokens')).toMatchObject({ protocol: 'gemini', kind: 'count-tokens' });
    expect(routeOf('/api/event_logging/batch')).toEqual({ protocol: null, kind: 'other', model: null, stream: false });
  });
});

describe('decodeCall on each protocol, streamed and whole', () => {
  const cases: [string, ProtocolAdapter, string, Record<string, unknown>][] = [
    ['anthropic stream', anthropicMessages, '/v1/messages', { model: 'asked-model', stream: true, messages: [] }],
    ['anthropic whole', anthropicMessages, '/v1/messages', { model: 'asked-model', messages: [] }],
    ['responses stream', openaiResponses, '/v1/responses', { model: 'asked-model', stream: true, input: [] }],
    ['responses whole', openaiResponses, '/v1/responses', { model: 'asked-model', input: [] }],
    [
      'chat stream',
      openaiChat,
      '/v1/chat/completions',
      { model: 'asked-model', stream: true, stream_options: { include_usage: true }, messages: [] },
    ],
    ['chat whole', openaiChat, '/v1/chat/completions', { model: 'asked-model', messages: [] }],
  ];
  for (const [name, adapter, path, request] of cases) {
    it(`${name}: text, reasoning, tool call, finish and usage`, () => {
      const call = decodeCall(viaMock(adapter, path, request, { reply: TOOL_REPLY }));
      expect(call.kind).toBe('model');
      expect(call.model).toBe('asked-model');
      expect(call.stream).toBe(request.stream === true);
      expect(call.error).toBeNull();
      expect(call.output?.text).toBe('Listing the files now.');
      expect(call.output?.reasoning).toBe('Need the file list.');
      expect(call.output?.toolCalls).toEqual([{ id: 'call_1', name: 'Bash', input: '{"command":"ls -la"}' }]);
      expect(call.finish?.reason).toBe('tool_calls');
      expect(call.usage).toMatchObject({ input: 100, output: 20, cacheRead: 4000 });
      expect(call.durationMs).toBe(120);
      expect(call.responseId).not.toBeNull();
    });
  }

  it('anthropic: cache writes, and the raw stop reason kept', () => {
    const call = decodeCall(
      viaMock(anthropicMessages, '/v1/messages', { model: 'm', stream: true }, { reply: { ...TOOL_REPLY, stop: 'length' } }),
    );
    expect(call.usage?.cacheWrite).toBe(50);
    expect(call.finish).toEqual({ raw: 'max_tokens', reason: 'length' });
  });

  it('responses: reasoning tokens, and incomplete at the output limit reads as length', () => {
    const call = decodeCall(
      viaMock(openaiResponses, '/v1/responses', { model: 'm', stream: true }, { reply: { ...TOOL_REPLY, stop: 'length' } }),
    );
    expect(call.usage?.reasoning).toBe(7);
    expect(call.finish).toEqual({ raw: 'incomplete:max_output_tokens', reason: 'length' });
    expect(call.error).toBeNull();
  });

  it('gemini over SSE and as a JSON array: thoughts, function call, output = candidates + thoughts', () => {
    for (const path of ['/v1beta/models/gemini-x:streamGenerateContent?alt=sse', '/v1beta/models/gemini-x:streamGenerateContent']) {
      const call = decodeCall(viaMock(gemini, path, { contents: [] }, { reply: TOOL_REPLY }));
      expect(call.model).toBe('gemini-x');
      expect(call.stream).toBe(true);
      expect(call.output?.text).toBe('Listing the files now.');
      expect(call.output?.reasoning).toBe('Need the file list.');
      expect(call.output?.toolCalls).toEqual([{ id: 'call_1', name: 'Bash', input: '{"command":"ls -la"}' }]);
      expect(call.finish).toEqual({ raw: 'STOP', reason: 'stop' });
      expect(call.usage).toEqual({ input: 100, cacheRead: 4000, output: 20, reasoning: 7 });
      expect(call.error).toBeNull();
    }
  });
});

describe('decodeCall errors', () => {
  it('an HTTP error: the error type and message from the provider JSON', () => {
    const a = decodeCall(viaMock(anthropicMessages, '/v1/messages', { model: 'm' }, { fault: { kind: 'overloaded' } }));
    expect(a.status).toBe(529);
    expect(a.error).toEqual({ code: 'overloaded_error', message: 'Overloaded' });
    expect(a.output).toBeNull();
    const g = decodeCall(viaMock(gemini, '/v1beta/models/g:generateContent', {}, { fault: { kind: 'rate_limit', retryAfter: 3 } }));
    expect(g.error?.code).toBe('RESOURCE_EXHAUSTED');
  });

  it('an HTTP error that is not JSON: the status and the first 500 characters', () => {
    const x = exchange(
      '/v1/messages',
      {},
      { status: 502, headers: [], events: null, body: `<html>${'x'.repeat(600)}</html>`, complete: true },
    );
    const call = decodeCall(x);
    expect(call.error?.code).toBe('502');
    expect(call.error?.message).toHaveLength(500);
  });

  it('an error event mid-stream', () => {
    const a = decodeCall(
      viaMock(anthropicMessages, '/v1/messages', { model: 'm', stream: true }, { fault: { kind: 'stream_error', after: 3 } }),
    );
    expect(a.error).toEqual({ code: 'overloaded_error', message: 'Overloaded' });
    const r = decodeCall(
      viaMock(
        openaiResponses,
        '/v1/responses',
        { model: 'm', stream: true },
        { fault: { kind: 'stream_error', after: 3, message: 'boom' } },
      ),
    );
    expect(r.error).toEqual({ code: 'server_error', message: 'boom' });
    expect(r.finish?.reason).toBe('error');
  });

  it('a stream cut mid-way, for each protocol', () => {
    const cases: [ProtocolAdapter, string, number, string][] = [
      [anthropicMessages, '/v1/messages', 4, '4 events (the last: content_block_delta)'],
      [openaiResponses, '/v1/responses', 4, '4 events (the last: response.content_part.added)'],
      [openaiChat, '/v1/chat/completions', 4, '4 events (the last: data)'],
      [gemini, '/v1beta/models/g:streamGenerateContent?alt=sse', 2, '2 events (the last: data)'],
    ];
    for (const [adapter, path, after, where] of cases) {
      const call = decodeCall(viaMock(adapter, path, { model: 'm', stream: true }, { fault: { kind: 'cut', after } }));
      expect(call.error?.code, adapter.id).toBe('stream_cut');
      expect(call.error?.message).toBe(`the stream was cut after ${where}`);
    }
  });

  it('a stream that ended cleanly without its final event', () => {
    const call = decodeCall(
      viaMock(
        anthropicMessages,
        '/v1/messages',
        { model: 'm', stream: true },
        { reply: { content: [{ type: 'text', text: 'hi' }], stop: 'missing' } },
      ),
    );
    expect(call.error?.code).toBe('stream_cut');
    expect(call.error?.message).toMatch(/without message_stop$/);
    expect(call.finish).toBeNull();
    const chat = decodeCall(
      viaMock(
        openaiChat,
        '/v1/chat/completions',
        { model: 'm', stream: true },
        { reply: { content: [{ type: 'text', text: 'hi' }], stop: 'missing' } },
      ),
    );
    expect(chat.error?.message).toMatch(/without \[DONE\]$/);
  });

  it('a transport error with no response', () => {
    const call = decodeCall(viaMock(openaiChat, '/v1/chat/completions', { model: 'm' }, { fault: { kind: 'cut', after: 1 } }));
    expect(call.status).toBeNull();
    expect(call.output).toBeNull();
    expect(call.error).toEqual({ code: 'ECONNRESET', message: 'socket hang up' });
  });

  it('count-tokens and other calls carry no output', () => {
    const call = decodeCall(viaMock(anthropicMessages, '/v1/messages/count_tokens', { model: 'm' }, { reply: TOOL_REPLY }));
    expect(call.kind).toBe('count-tokens');
    expect(call.output).toBeNull();
    const other = decodeCall(exchange('/v1/models', null, { status: 200, headers: [], events: null, body: '{"data":[]}', complete: true }));
    expect([other.protocol, other.kind, other.output, other.error]).toEqual([null, 'other', null, null]);
  });
});

describe('decodeCall on the fixtures', () => {
  const DIR = join(__dirname, '../../../fixtures/captures');

  it('decodes every exchange of the Palimpsest capture', async () => {
    const r = await readCapture(join(DIR, 'palimpsest.capture.jsonl'));
    if (!r.ok) throw new Error(r.error);
    const [stream, whole, overloaded, cut] = r.value.exchanges.map(decodeCall);
    expect(stream?.output).toEqual({
      text: "I'll list them.",
      reasoning: '',
      toolCalls: [{ id: 'toolu_01A09q90qw90lq917835lq9', name: 'Bash', input: '{"command": "ls"}' }],
    });
    expect(stream?.usage).toEqual({ input: 12, output: 41, cacheRead: 15000, cacheWrite: 2048 });
    expect(stream?.finish).toEqual({ raw: 'tool_use', reason: 'tool_calls' });
    expect(stream?.responseId).toBe('msg_01XFDUDYJgAACzvnptvVoYEL');
    expect(whole?.usage).toEqual({ input: 176, cacheRead: 1024, output: 30, reasoning: 22 });
    expect(whole?.output?.reasoning).toBe('Greeting.');
    expect(overloaded?.body).toBeNull();
    expect(overloaded?.error).toEqual({ code: 'overloaded_error', message: 'Overloaded' });
    expect(cut?.error).toEqual({
      code: 'stream_cut',
      message: 'the stream was cut after 4 events (the last: content_block_delta): the upstream closed the connection mid-stream',
    });
    expect(cut?.output?.text).toBe("I'll list ");
  });

  it('decodes the HAR streams and the claude-trace cut stream', async () => {
    const har = await readCapture(join(DIR, 'devtools.har'));
    if (!har.ok) throw new Error(har.error);
    const [chat, gem, resp] = har.value.exchanges.map(decodeCall);
    expect(chat?.output?.text).toBe('Hello there.');
    expect(chat?.usage).toEqual({ input: 19, cacheRead: 0, output: 10, reasoning: 0 });
    expect(chat?.finish).toEqual({ raw: 'stop', reason: 'stop' });
    expect(gem?.output?.text).toBe('Four.');
    expect(gem?.usage).toEqual({ input: 8, output: 22, reasoning: 20 });
    expect(resp?.output?.text).toBe('Hello!');
    const ct = await readCapture(join(DIR, 'claude-trace.jsonl'));
    if (!ct.ok) throw new Error(ct.error);
    const cut = decodeCall(ct.value.exchanges[2] as Exchange);
    expect(cut.error?.code).toBe('stream_cut');
    expect(cut.error?.message).toBe('the stream was cut after 5 events (the last: content_block_delta)');
  });
});
