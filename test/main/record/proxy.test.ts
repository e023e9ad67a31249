import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../../src/main/capture/redact';
import { mock, rig, send, stableHeaders } from './helpers';

/* The recording proxy in front of the mock provider: transparent for both sides, and what it writes. */

const SCRIPT = { steps: [], fallback: { content: [{ type: 'text' as const, text: 'Hello, wörld — ✓ 😀' }] } };
const body = (stream: boolean) =>
  JSON.stringify({ model: 'claude-test', max_tokens: 100, stream, messages: [{ role: 'user', content: 'hi ✓' }] });
const JSON_HEADERS = { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' };
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((ok) => s.listen(0, '127.0.0.1', ok));
  const port = (s.address() as { port: number }).port;
  await new Promise((ok) => s.close(ok));
  return port;
}

describe('recording proxy', () => {
  it('passes a JSON answer through byte for byte and records it', async () => {
    const direct = await mock(SCRIPT);
    const behind = await mock(SCRIPT);
    const r = await rig(behind.url);
    const a = await send(`${direct.url}/v1/messages`, { headers: JSON_HEADERS, body: body(false) });
    const b = await send(`${r.proxy.url}/anthropic/v1/messages`, { headers: JSON_HEADERS, body: body(false) });
    expect(b.status).toBe(200);
    expect(b.body.equals(a.body)).toBe(true);
    expect(stableHeaders(b.rawHeaders)).toEqual(stableHeaders(a.rawHeaders));
    // The upstream got the very bytes and headers the client sent (host rewritten).
    expect(behind.requests[0]?.sha256).toBe(sha(body(false)));
    expect(behind.requests[0]?.path).toBe('/v1/messages');
    expect(behind.requests[0]?.headers.filter(([k]) => k !== 'Host' && k !== 'Connection')).toEqual(
      direct.requests[0]?.headers.filter(([k]) => k !== 'Host' && k !== 'Connection'),
    );
    const [x] = await r.lines();
    expect(x?.provider).toBe('anthropic');
    expect(x?.path).toBe('/v1/messages');
    expect(x?.request.body).toMatchObject({
      encoding: 'utf8',
      data: body(false),
      bytes: Buffer.byteLength(body(false)),
      sha256: sha(body(false)),
    });
    expect(x?.response?.status).toBe(200);
    expect(x?.response?.complete).toBe(true);
    expect(x?.response?.events).toBeUndefined();
    expect(x?.response?.body?.data).toBe(a.body.toString('utf8'));
    expect(x?.error).toBeNull();
    expect(x?.timings.ttfbMs).toBeGreaterThanOrEqual(0);
  });

  it('passes an event stream through and records each event with its arrival time', async () => {
    const direct = await mock(SCRIPT);
    const behind = await mock(SCRIPT, 20);
    const r = await rig(behind.url);
    const a = await send(`${direct.url}/v1/messages`, { headers: JSON_HEADERS, body: body(true) });
    const b = await send(`${r.proxy.url}/anthropic/v1/messages`, { headers: JSON_HEADERS, body: body(true) });
    expect(b.body.toString()).toBe(a.body.toString());
    // Paced events arrive in several chunks: the proxy did not hold the stream back.
    expect(b.chunks).toBeGreaterThan(3);
    const [x] = await r.lines();
    const frames = a.body
      .toString()
      .split('\n\n')
      .filter(Boolean)
      .map((f) => ({
        event: /^event: (.*)$/m.exec(f)?.[1] ?? null,
        data: /^data: (.*)$/m.exec(f)?.[1] ?? '',
      }));
    expect(x?.response?.events?.map(({ event, data }) => ({ event, data }))).toEqual(frames);
    expect(x?.response?.body).toBeUndefined();
    const times = x?.response?.events?.map((e) => e.t) ?? [];
    for (let i = 1; i < times.length; i++) expect(times[i]).toBeGreaterThanOrEqual(times[i - 1] as number);
    // 20 ms between events: the last came well after the first.
    expect((times.at(-1) ?? 0) - (times[0] ?? 0)).toBeGreaterThan(20 * (times.length - 2) * 0.8);
  });

  it('passes error statuses through', async () => {
    const behind = await mock({ steps: [{ fault: { kind: 'overloaded' } }, { fault: { kind: 'http', status: 500 } }] });
    const r = await rig(behind.url);
    const a = await send(`${r.proxy.url}/anthropic/v1/messages`, { headers: JSON_HEADERS, body: body(false) });
    const b = await send(`${r.proxy.url}/anthropic/v1/messages`, { headers: JSON_HEADERS, body: body(false) });
    expect([a.status, b.status]).toEqual([529, 500]);
    expect(JSON.parse(a.body.toString())).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });
    const lines = await r.lines();
    expect(lines.map((l) => [l.seq, l.response?.status, l.response?.complete])).toEqual([
      [0, 529, true],
      [1, 500, true],
    ]);
    expect(r.stats.errors).toBe(2);
  });

  it('cuts the client response when the upstream cuts the stream, and records the cut', async () => {
    const behind = await mock({ steps: [{ fault: { kind: 'cut', after: 2 } }] });
    const r = await rig(behind.url);
    await expect(send(`${r.proxy.url}/anthropic/v1/messages`, { headers: JSON_HEADERS, body: body(true) })).rejects.toThrow();
    const [x] = await r.lines();
    expect(x?.response?.complete).toBe(false);
    expect(x?.error?.side).toBe('upstream');
    expect(x?.response?.events?.length).toBe(2);
  });

  it('records a partial exchange when the client leaves mid-stream', async () => {
    const long = { steps: [], fallback: { content: [{ type: 'text' as const, text: 'word '.repeat(40) }], eventDelayMs: 30 } };
    const behind = await mock(long);
    const r = await rig(behind.url);
    await new Promise<void>((done) => {
      const req = request(`${r.proxy.url}/anthropic/v1/messages`, { method: 'POST', headers: JSON_HEADERS, agent: false }, (res) => {
        res.once('data', () => {
          req.destroy();
          done();
        });
      });
      req.on('error', () => undefined);
      req.end(body(true));
    });
    const [x] = await r.lines();
    expect(x?.error?.side).toBe('client');
    expect(x?.response?.status).toBe(200);
    expect(x?.response?.complete).toBe(false);
    expect(x?.response?.events?.length).toBeGreaterThanOrEqual(1);
    // The mock saw its client go too (the proxy abandoned the upstream request).
    await expect.poll(() => behind.active).toBe(0);
  });

  it('answers 502 with a JSON reason when the upstream cannot be reached', async () => {
    const r = await rig(`http://127.0.0.1:${await closedPort()}`);
    const a = await send(`${r.proxy.url}/openai/v1/responses`, { headers: JSON_HEADERS, body: '{}' });
    expect(a.status).toBe(502);
    expect(JSON.parse(a.body.toString()).error.message).toMatch(/could not be reached/);
    const [x] = await r.lines();
    expect(x?.provider).toBe('openai');
    expect(x?.response).toBeNull();
    expect(x?.error).toMatchObject({ side: 'upstream', code: 'ECONNREFUSED' });
    expect(x?.timings.ttfbMs).toBeNull();
  });

  it('answers 404 for a path without a provider prefix, and records nothing', async () => {
    const behind = await mock(SCRIPT);
    const r = await rig(behind.url);
    const a = await send(`${r.proxy.url}/v1/messages`, { headers: JSON_HEADERS, body: body(false) });
    expect(a.status).toBe(404);
    expect(behind.requests).toHaveLength(0);
    expect(await r.lines()).toHaveLength(0);
  });

  it('keeps a gzip request body as sent, with its decoded text', async () => {
    const behind = await mock(SCRIPT);
    const r = await rig(behind.url);
    const gz = gzipSync(body(false));
    const a = await send(`${r.proxy.url}/anthropic/v1/messages`, { headers: { ...JSON_HEADERS, 'content-encoding': 'gzip' }, body: gz });
    expect(a.status).toBe(200);
    expect(behind.requests[0]?.sha256).toBe(sha(gz));
    const [x] = await r.lines();
    expect(x?.request.body.encoding).toBe('base64');
    expect(Buffer.from(x?.request.body.data ?? '', 'base64').equals(gz)).toBe(true);
    expect(x?.request.body.decoded).toBe(body(false));
  });

  it('keeps a body that is not UTF-8 as base64', async () => {
    const behind = await mock(SCRIPT);
    const r = await rig(behind.url);
    const raw = Buffer.from([0x7b, 0xff, 0xfe, 0x00, 0xc3, 0x28, 0x7d]);
    await send(`${r.proxy.url}/anthropic/v1/messages`, { headers: JSON_HEADERS, body: raw });
    expect(behind.requests[0]?.sha256).toBe(sha(raw));
    const [x] = await r.lines();
    expect(x?.request.body).toMatchObject({ encoding: 'base64', data: raw.toString('base64'), bytes: 7, sha256: sha(raw) });
  });

  it("routes by prefix to each provider's upstream, base path first", async () => {
    const anthropic = await mock(SCRIPT);
    const gemini = await mock(SCRIPT);
    const r = await rig([`anthropic=${anthropic.url}`, `gemini=${gemini.url}/base`]);
    await send(`${r.proxy.url}/anthropic/v1/messages?beta=true`, { headers: JSON_HEADERS, body: body(false) });
    await send(`${r.proxy.url}/gemini/v1beta/models/m:generateContent`, { headers: JSON_HEADERS, body: '{}' });
    expect(anthropic.requests.map((q) => q.path)).toEqual(['/v1/messages?beta=true']);
    expect(gemini.requests.map((q) => q.path)).toEqual(['/base/v1beta/models/m:generateContent']);
    const lines = await r.lines();
    expect(lines.map((l) => [l.provider, l.path])).toEqual([
      ['anthropic', '/v1/messages?beta=true'],
      ['gemini', '/base/v1beta/models/m:generateContent'],
    ]);
    expect(lines[1]?.upstream).toBe(`${gemini.url}/base`);
  });

  it('writes credentials as fingerprints only, and forwards them untouched', async () => {
    const KEY = 'sk-ant-THE-SECRET-KEY-0123456789';
    const behind = await mock({
      steps: [{ fault: { kind: 'http', status: 401, headers: { 'set-cookie': `session=${KEY}` } } }],
      fallback: SCRIPT.fallback,
    });
    const r = await rig(behind.url);
    const a = await send(`${r.proxy.url}/anthropic/v1/messages`, {
      headers: { ...JSON_HEADERS, 'x-api-key': KEY, authorization: `Bearer ${KEY}` },
      body: body(false),
    });
    expect(a.status).toBe(401);
    // The client still gets the upstream's cookie; only the capture leaves it out.
    expect(a.headers['set-cookie']).toEqual([`session=${KEY}`]);
    await send(`${r.proxy.url}/gemini/v1beta/models/m:generateContent?key=${KEY}&alt=sse`, { headers: JSON_HEADERS, body: '{}' });
    expect(behind.requests[0]?.redacted).toEqual(expect.arrayContaining(['x-api-key', 'authorization']));
    expect(behind.requests[1]?.redacted).toEqual(['?key']);
    const lines = await r.lines();
    const bytes = readFileSync(r.capturePath);
    expect(bytes.includes(KEY)).toBe(false);
    expect(bytes.includes('THE-SECRET')).toBe(false);
    const h = Object.fromEntries(lines[0]?.request.headers ?? []);
    expect(h['x-api-key']).toBe(fingerprint(KEY));
    expect(h.authorization).toBe(fingerprint(`Bearer ${KEY}`));
    expect(Object.fromEntries(lines[0]?.response?.headers ?? [])['set-cookie']).toBe(fingerprint(`session=${KEY}`));
    expect(lines[1]?.path).toBe(`/v1beta/models/m:generateContent?key=${fingerprint(KEY)}&alt=sse`);
  });

  it('records large bodies exactly, through temporary files', async () => {
    // Over the 1 MiB kept in memory; multi-byte characters fall across every chunk boundary.
    const text = 'ü✓😀 abc '.repeat(300_000);
    const big = JSON.stringify({ model: 'claude-test', max_tokens: 100, stream: true, messages: [{ role: 'user', content: text }] });
    const reply = { steps: [], fallback: { content: [{ type: 'text' as const, text }] } };
    const direct = await mock(reply);
    const behind = await mock(reply);
    const r = await rig(behind.url);
    const a = await send(`${direct.url}/v1/messages`, { headers: JSON_HEADERS, body: big });
    const b = await send(`${r.proxy.url}/anthropic/v1/messages`, { headers: JSON_HEADERS, body: big });
    expect(b.body.equals(a.body)).toBe(true);
    const binary = Buffer.concat([Buffer.from([0xff]), Buffer.alloc(3_000_001, 0x61)]);
    await send(`${r.proxy.url}/anthropic/v1/messages`, { headers: JSON_HEADERS, body: binary });
    const [x, y] = await r.lines();
    expect(x?.request.body.data).toBe(big);
    expect(x?.request.body.sha256).toBe(sha(big));
    const streamed = x?.response?.events?.map((e) => e.data).join('\n\n') ?? '';
    expect(streamed).toBe(
      a.body
        .toString()
        .split('\n\n')
        .filter(Boolean)
        .map((f) => /^data: (.*)$/m.exec(f)?.[1])
        .join('\n\n'),
    );
    expect(y?.request.body.encoding).toBe('base64');
    expect(Buffer.from(y?.request.body.data ?? '', 'base64').equals(binary)).toBe(true);
  });
});
