/*
 * Writes fixtures/captures/: small captures in the three formats the capture readers take, with the
 * bad input they must survive. Run: node scripts/gen-capture-fixtures.mjs. The shapes follow
 * fixtures/captures/README.md (Palimpsest's capture format, claude-trace's RawPair, HAR 1.2); the
 * credential values in them are fake and are there to prove the readers fingerprint them.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
const sha = (b) => createHash('sha256').update(b).digest('hex');
const body = (text) => ({ encoding: 'utf8', data: text, bytes: Buffer.byteLength(text), sha256: sha(Buffer.from(text)) });
const b64 = (buf) => ({ encoding: 'base64', data: buf.toString('base64'), bytes: buf.length, sha256: sha(buf) });
const OUT = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'captures');
mkdirSync(OUT, { recursive: true });
const write = (name, text) => writeFileSync(join(OUT, name), text);
const fp = (v) => `[redacted sha256:${sha(v).slice(0, 8)}]`;

// --- Palimpsest capture ---
const anthropicReq = JSON.stringify({
  model: 'claude-sonnet-4-5',
  max_tokens: 32000,
  stream: true,
  system: [{ type: 'text', text: 'You are Claude Code.' }],
  messages: [{ role: 'user', content: 'List the files.' }],
  tools: [{ name: 'Bash', description: 'Run a command', input_schema: { type: 'object', properties: { command: { type: 'string' } } } }],
});
const ev = (t, event, data) => ({ t, event, data: JSON.stringify(data) });
const anthropicEvents = [
  ev(812, 'message_start', {
    type: 'message_start',
    message: {
      id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5-20250929',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 12, cache_creation_input_tokens: 2048, cache_read_input_tokens: 15000, output_tokens: 1 },
    },
  }),
  ev(813, 'ping', { type: 'ping' }),
  ev(830, 'content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
  ev(841, 'content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: "I'll list " } }),
  ev(902, 'content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'them.' } }),
  ev(910, 'content_block_stop', { type: 'content_block_stop', index: 0 }),
  ev(1020, 'content_block_start', {
    type: 'content_block_start',
    index: 1,
    content_block: { type: 'tool_use', id: 'toolu_01A09q90qw90lq917835lq9', name: 'Bash', input: {} },
  }),
  ev(1021, 'content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '' } }),
  ev(1090, 'content_block_delta', {
    type: 'content_block_delta',
    index: 1,
    delta: { type: 'input_json_delta', partial_json: '{"command": ' },
  }),
  ev(1130, 'content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '"ls"}' } }),
  ev(1131, 'content_block_stop', { type: 'content_block_stop', index: 1 }),
  ev(1140, 'message_delta', {
    type: 'message_delta',
    delta: { stop_reason: 'tool_use', stop_sequence: null },
    usage: { output_tokens: 41 },
  }),
  ev(1141, 'message_stop', { type: 'message_stop' }),
];
const respReq = JSON.stringify({
  model: 'gpt-5-codex',
  instructions: 'You are Codex.',
  input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }],
  stream: false,
  store: false,
});
const respBody = JSON.stringify({
  id: 'resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b',
  object: 'response',
  created_at: 1741476542,
  status: 'completed',
  model: 'gpt-5-codex',
  output: [
    { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Greeting.' }] },
    {
      type: 'message',
      id: 'msg_1',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: 'Hello!', annotations: [] }],
    },
  ],
  incomplete_details: null,
  error: null,
  usage: {
    input_tokens: 1200,
    input_tokens_details: { cached_tokens: 1024 },
    output_tokens: 30,
    output_tokens_details: { reasoning_tokens: 22 },
    total_tokens: 1230,
  },
});
const header = {
  type: 'capture',
  v: 1,
  writer: 'palimpsest 0.1.0',
  startedAt: '2025-10-01T09:00:00.000Z',
  cwd: '/home/dev/project',
  command: 'claude',
  upstreams: { anthropic: 'https://api.anthropic.com', openai: 'https://api.openai.com' },
};
const x0 = {
  type: 'exchange',
  seq: 0,
  provider: 'anthropic',
  upstream: 'https://api.anthropic.com',
  method: 'POST',
  path: '/v1/messages?beta=true',
  startedAt: '2025-10-01T09:00:01.000Z',
  request: {
    headers: [
      ['content-type', 'application/json'],
      ['x-api-key', fp('sk-ant-api03-example')],
      ['anthropic-version', '2023-06-01'],
    ],
    body: body(anthropicReq),
  },
  response: {
    status: 200,
    headers: [
      ['content-type', 'text/event-stream; charset=utf-8'],
      ['request-id', 'req_011CUMCLTSvdxjh3t8nfLsbC'],
    ],
    events: anthropicEvents,
    complete: true,
  },
  error: null,
  timings: { ttfbMs: 805, totalMs: 1150 },
};
const x1 = {
  type: 'exchange',
  seq: 1,
  provider: 'openai',
  upstream: 'https://api.openai.com',
  method: 'POST',
  path: '/v1/responses',
  startedAt: '2025-10-01T09:00:01.500Z',
  request: {
    headers: [
      ['content-type', 'application/json'],
      ['authorization', fp('Bearer sk-proj-example')],
    ],
    body: body(respReq),
  },
  response: { status: 200, headers: [['content-type', 'application/json']], body: body(respBody), complete: true },
  error: null,
  timings: { ttfbMs: 300, totalMs: 320 },
};
// A request body that is not UTF-8 (bytes 0xff 0xfe …): kept as base64, read as null text.
const x2 = {
  type: 'exchange',
  seq: 2,
  provider: 'anthropic',
  upstream: 'https://api.anthropic.com',
  method: 'POST',
  path: '/v1/messages',
  startedAt: '2025-10-01T09:00:02.000Z',
  request: { headers: [['content-type', 'application/octet-stream']], body: b64(Buffer.from([0xff, 0xfe, 0x00, 0x41])) },
  response: {
    status: 529,
    headers: [['content-type', 'application/json']],
    body: body('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'),
    complete: true,
  },
  error: null,
  timings: { ttfbMs: 90, totalMs: 95 },
};
// A stream the upstream cut after two events.
const x3 = {
  type: 'exchange',
  seq: 3,
  provider: 'anthropic',
  upstream: 'https://api.anthropic.com',
  method: 'POST',
  path: '/v1/messages',
  startedAt: '2025-10-01T09:00:03.000Z',
  request: { headers: [['content-type', 'application/json']], body: body(anthropicReq) },
  response: { status: 200, headers: [['content-type', 'text/event-stream']], events: anthropicEvents.slice(0, 4), complete: false },
  error: { side: 'upstream', code: 'ECONNRESET', message: 'the upstream closed the connection mid-stream' },
  timings: { ttfbMs: 700, totalMs: 905 },
};
const lines = [
  JSON.stringify(header),
  JSON.stringify(x1), // ends first: lines are in end order
  'this line is not JSON',
  JSON.stringify(x0),
  JSON.stringify({ type: 'exchange', seq: 9, provider: 'anthropic' }), // fails the schema
  JSON.stringify(x2),
  JSON.stringify(x3),
];
write('palimpsest.capture.jsonl', lines.join('\n') + '\n');
// Truncated: the writer died mid-line.
const last = JSON.stringify(x3);
write('palimpsest-truncated.capture.jsonl', [JSON.stringify(header), JSON.stringify(x0), last.slice(0, 300)].join('\n'));
// A header this version cannot read, but exchanges that can be read.
write('palimpsest-bad-header.capture.jsonl', [JSON.stringify({ ...header, v: 2 }), JSON.stringify(x1)].join('\n') + '\n');

// --- claude-trace ---
const sse = (events) => events.map((e) => `event: ${e.event}\ndata: ${e.data}\n\n`).join('');
const ctHeaders = {
  'anthropic-version': '2023-06-01',
  'content-type': 'application/json',
  'x-api-key': 'sk-ant-api...Z9xQ',
  'user-agent': 'claude-cli/1.0.83 (external, cli)',
};
const ctReq = JSON.parse(anthropicReq);
const pair1 = {
  request: {
    timestamp: 1754120000.123,
    method: 'POST',
    url: 'https://api.anthropic.com/v1/messages?beta=true',
    headers: ctHeaders,
    body: ctReq,
  },
  response: {
    timestamp: 1754120000.931,
    status_code: 200,
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'request-id': 'req_011CRj6ZrJ8W9v3D7d7s6h8Q' },
    body_raw: sse(anthropicEvents),
  },
  logged_at: '2025-08-02T07:33:21.402Z',
};
const pair0 = {
  request: {
    timestamp: 1754119999.5,
    method: 'POST',
    url: 'https://api.anthropic.com/v1/messages/count_tokens?beta=true',
    headers: ctHeaders,
    body: { model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'List the files.' }] },
  },
  response: { timestamp: 1754119999.71, status_code: 200, headers: { 'content-type': 'application/json' }, body: { input_tokens: 2095 } },
  logged_at: '2025-08-02T07:33:19.720Z',
};
// A stream cut mid-event (the text stops inside a data line).
const cutRaw = sse(anthropicEvents.slice(0, 5)) + 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"del';
const pair2 = {
  request: {
    timestamp: 1754120005,
    method: 'POST',
    url: 'https://api.anthropic.com/v1/messages?beta=true',
    headers: ctHeaders,
    body: ctReq,
  },
  response: {
    timestamp: 1754120005.8,
    status_code: 200,
    headers: { 'content-type': 'text/event-stream; charset=utf-8' },
    body_raw: cutRaw,
  },
  logged_at: '2025-08-02T07:33:27.100Z',
};
const orphan = {
  request: {
    timestamp: 1754120010,
    method: 'POST',
    url: 'https://api.anthropic.com/v1/messages?beta=true',
    headers: ctHeaders,
    body: ctReq,
  },
  response: null,
  note: 'ORPHANED_REQUEST - No matching response received',
  logged_at: '2025-08-02T07:33:40.000Z',
};
write(
  'claude-trace.jsonl',
  [pair1, pair0, pair2, orphan].map((p) => JSON.stringify(p)).join('\n') +
    '\n' +
    '{"request": {"timestamp": 1754120020, "method": "POST", "url": "https://api.anth',
);

// --- HAR ---
const chatSse =
  [
    {
      id: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT',
      object: 'chat.completion.chunk',
      created: 1741569952,
      model: 'gpt-4.1-2025-04-14',
      choices: [{ index: 0, delta: { role: 'assistant', content: '', refusal: null }, finish_reason: null }],
    },
    {
      id: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT',
      object: 'chat.completion.chunk',
      created: 1741569952,
      model: 'gpt-4.1-2025-04-14',
      choices: [{ index: 0, delta: { content: 'Hello' }, finish_reason: null }],
    },
    {
      id: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT',
      object: 'chat.completion.chunk',
      created: 1741569952,
      model: 'gpt-4.1-2025-04-14',
      choices: [{ index: 0, delta: { content: ' there.' }, finish_reason: null }],
    },
    {
      id: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT',
      object: 'chat.completion.chunk',
      created: 1741569952,
      model: 'gpt-4.1-2025-04-14',
      choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
    },
    {
      id: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT',
      object: 'chat.completion.chunk',
      created: 1741569952,
      model: 'gpt-4.1-2025-04-14',
      choices: [],
      usage: {
        prompt_tokens: 19,
        completion_tokens: 10,
        total_tokens: 29,
        prompt_tokens_details: { cached_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0 },
      },
    },
  ]
    .map((c) => `data: ${JSON.stringify(c)}\n\n`)
    .join('') + 'data: [DONE]\n\n';
const geminiBody = JSON.stringify({
  candidates: [
    {
      content: { parts: [{ text: 'Thinking it over.', thought: true }, { text: 'Four.' }], role: 'model' },
      finishReason: 'STOP',
      index: 0,
    },
  ],
  usageMetadata: { promptTokenCount: 8, candidatesTokenCount: 2, totalTokenCount: 30, thoughtsTokenCount: 20 },
  modelVersion: 'gemini-2.5-flash',
  responseId: 'mTzKaKq3OsSz1e8P4qCh0Ak',
});
const nv = (o) => Object.entries(o).map(([name, value]) => ({ name, value }));
const entry = (startedDateTime, time, timings, request, response) => ({
  startedDateTime,
  time,
  request: { httpVersion: 'HTTP/1.1', cookies: [], queryString: [], headersSize: -1, ...request },
  response: { statusText: '', httpVersion: 'HTTP/1.1', cookies: [], redirectURL: '', headersSize: -1, bodySize: -1, ...response },
  cache: {},
  timings,
});
const chatReq = JSON.stringify({
  model: 'gpt-4.1',
  stream: true,
  stream_options: { include_usage: true },
  messages: [{ role: 'user', content: 'Say hello.' }],
});
const har = {
  log: {
    version: '1.2',
    creator: { name: 'WebInspector', version: '537.36' },
    pages: [],
    entries: [
      // Entries out of start order on purpose (HAR prefers but does not require sorting).
      entry(
        '2025-09-12T10:15:03.250Z',
        412.5,
        { blocked: 1.5, dns: -1, connect: -1, ssl: -1, send: 0.2, wait: 380.1, receive: 30.7 },
        {
          method: 'POST',
          url: 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent?key=EXAMPLE-not-a-real-key',
          headers: nv({ 'content-type': 'application/json' }),
          bodySize: 64,
          postData: { mimeType: 'application/json', text: '{"contents":[{"role":"user","parts":[{"text":"2+2?"}]}]}' },
        },
        {
          status: 200,
          headers: nv({ 'content-type': 'application/json; charset=UTF-8' }),
          content: { size: geminiBody.length, mimeType: 'application/json', text: geminiBody },
        },
      ),
      entry(
        '2025-09-12T10:15:01.000Z',
        1890.2,
        { blocked: 0.8, dns: 12.1, connect: 45.3, ssl: 30.2, send: 0.4, wait: 640.6, receive: 1191 },
        {
          method: 'POST',
          url: 'https://api.openai.com/v1/chat/completions',
          headers: nv({
            'content-type': 'application/json',
            Authorization: 'Bearer sk-proj-EXAMPLE-not-a-real-key-000000000000',
            Cookie: '__cf_bm=abc',
          }),
          bodySize: chatReq.length,
          postData: { mimeType: 'application/json', text: chatReq },
        },
        {
          status: 200,
          headers: nv({ 'content-type': 'text/event-stream; charset=utf-8', 'set-cookie': '__cf_bm=def; path=/' }),
          content: { size: chatSse.length, mimeType: 'text/event-stream', text: chatSse },
        },
      ),
      // mitmproxy writes a binary-looking body as base64; this one is JSON (a Responses answer).
      entry(
        '2025-09-12T10:15:05.000Z',
        350,
        { blocked: -1, dns: -1, connect: -1, send: 1, wait: 300, receive: 49 },
        {
          method: 'POST',
          url: 'https://api.openai.com/v1/responses',
          headers: nv({ 'content-type': 'application/json' }),
          bodySize: respReq.length,
          postData: { mimeType: 'application/json', text: respReq },
        },
        {
          status: 200,
          headers: nv({ 'content-type': 'application/json' }),
          content: {
            size: respBody.length,
            mimeType: 'application/json',
            encoding: 'base64',
            text: Buffer.from(respBody).toString('base64'),
          },
        },
      ),
      // Base64 bytes that are not UTF-8: the body is unknown (null), never garbage.
      entry(
        '2025-09-12T10:15:06.000Z',
        20,
        { send: 0, wait: 15, receive: 5 },
        { method: 'GET', url: 'https://api.openai.com/favicon.ico', headers: [], bodySize: 0 },
        {
          status: 200,
          headers: nv({ 'content-type': 'image/x-icon' }),
          content: {
            size: 4,
            mimeType: 'image/x-icon',
            encoding: 'base64',
            text: Buffer.from([0x00, 0x00, 0xff, 0xfe]).toString('base64'),
          },
        },
      ),
      // A request refused before any response (Chrome: status 0 and _error).
      entry(
        '2025-09-12T10:15:07.000Z',
        3,
        { blocked: 3, dns: -1, connect: -1, send: 0, wait: -1, receive: -1 },
        {
          method: 'POST',
          url: 'https://api.anthropic.com/v1/messages',
          headers: nv({ 'content-type': 'application/json' }),
          bodySize: 2,
          postData: { mimeType: 'application/json', text: '{}' },
        },
        { status: 0, headers: [], content: { size: 0, mimeType: 'x-unknown' }, _error: 'net::ERR_CONNECTION_REFUSED' },
      ),
      // Not an entry HAR 1.2 allows (no request): skipped and listed.
      { startedDateTime: '2025-09-12T10:15:08.000Z', time: 1, response: { status: 200 } },
    ],
  },
};
write('devtools.har', JSON.stringify(har, null, 2) + '\n');
write('empty.jsonl', '');
write('not-a-capture.txt', 'GET / HTTP/1.1\nHost: example.com\n\n');
