import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Capture } from '../../../src/main/capture/exchange';
import { readCapture, sniffFormat } from '../../../src/main/capture/read';
import { fingerprint } from '../../../src/main/capture/redact';
import { MAX_SKIPPED_LISTED } from '../../../src/main/capture/skipped';

const DIR = join(__dirname, '../../../fixtures/captures');
const at = (name: string) => join(DIR, name);

async function capture(path: string): Promise<Capture> {
  const r = await readCapture(path);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

async function failure(path: string): Promise<string> {
  const r = await readCapture(path);
  if (r.ok) throw new Error(`${path} was read`);
  return r.error;
}

describe('Palimpsest captures', () => {
  it('reads exchanges in start order and lists the bad lines with their reasons', async () => {
    const c = await capture(at('palimpsest.capture.jsonl'));
    expect(c.format).toBe('palimpsest');
    expect(c.cwd).toBe('/home/dev/project');
    expect(c.exchanges.map((x) => [x.index, x.path, x.line])).toEqual([
      [0, '/v1/messages?beta=true', 4],
      [1, '/v1/responses', 2],
      [2, '/v1/messages', 6],
      [3, '/v1/messages', 7],
    ]);
    expect(c.skipped.map((s) => s.line)).toEqual([3, 5]);
    expect(c.skipped[0]?.reason).toMatch(/^not JSON/);
    expect(c.skipped[1]?.reason).toMatch(/^exchange /);
    expect(c.skipped.every((s) => s.file === at('palimpsest.capture.jsonl'))).toBe(true);
  });

  it('keeps events with their times, timings and host', async () => {
    const x = (await capture(at('palimpsest.capture.jsonl'))).exchanges[0];
    expect(x?.host).toBe('api.anthropic.com');
    expect(x?.startedAt).toBe(Date.parse('2025-10-01T09:00:01.000Z'));
    expect([x?.ttfbMs, x?.totalMs]).toEqual([805, 1150]);
    expect(x?.response?.events?.[0]).toMatchObject({ t: 812, event: 'message_start' });
    expect(x?.response?.body).toBeNull();
    expect(x?.request.body).toContain('"claude-sonnet-4-5"');
  });

  it('reads a base64 body that is not UTF-8 as null, never as garbage', async () => {
    const x = (await capture(at('palimpsest.capture.jsonl'))).exchanges[2];
    expect(x?.request.body).toBeNull();
    expect(x?.request.bytes).toBe(4);
    expect(x?.response?.status).toBe(529);
  });

  it('keeps a cut exchange with its error', async () => {
    const x = (await capture(at('palimpsest.capture.jsonl'))).exchanges[3];
    expect(x?.response?.complete).toBe(false);
    expect(x?.error).toEqual({ side: 'upstream', code: 'ECONNRESET', message: 'the upstream closed the connection mid-stream' });
  });

  it('skips a truncated last line and keeps the rest', async () => {
    const c = await capture(at('palimpsest-truncated.capture.jsonl'));
    expect(c.exchanges).toHaveLength(1);
    expect(c.skipped).toHaveLength(1);
    expect(c.skipped[0]).toMatchObject({ file: at('palimpsest-truncated.capture.jsonl'), line: 3 });
    expect(c.skipped[0]?.reason).toMatch(/truncated/);
  });

  it('reads the exchanges of a capture whose header it does not know, and lists the header', async () => {
    const c = await capture(at('palimpsest-bad-header.capture.jsonl'));
    expect(c.exchanges).toHaveLength(1);
    expect(c.cwd).toBeNull();
    expect(c.skipped[0]?.line).toBe(1);
    expect(c.skipped[0]?.reason).toMatch(/header/);
  });
});

describe('claude-trace logs', () => {
  it('reads pairs in start order, parsing streams and fingerprinting keys', async () => {
    const c = await capture(at('claude-trace.jsonl'));
    expect(c.format).toBe('claude-trace');
    expect(c.exchanges.map((x) => x.path)).toEqual([
      '/v1/messages/count_tokens?beta=true',
      '/v1/messages?beta=true',
      '/v1/messages?beta=true',
      '/v1/messages?beta=true',
    ]);
    const stream = c.exchanges[1];
    expect(stream?.startedAt).toBe(1754120000123);
    expect(stream?.ttfbMs).toBe(808);
    expect(stream?.totalMs).toBe(Date.parse('2025-08-02T07:33:21.402Z') - 1754120000123);
    expect(stream?.request.bytes).toBeNull();
    expect(stream?.response?.events).toHaveLength(13);
    expect(stream?.response?.events?.every((e) => e.t === null)).toBe(true);
    expect(stream?.response?.complete).toBe(true);
    const key = stream?.request.headers.find(([k]) => k === 'x-api-key')?.[1];
    expect(key).toMatch(/^\[redacted sha256:[0-9a-f]{8}\]$/);
    expect(JSON.stringify(c)).not.toContain('sk-ant');
  });

  it('marks a stream cut mid-event as incomplete', async () => {
    const cut = (await capture(at('claude-trace.jsonl'))).exchanges[2];
    expect(cut?.response?.events).toHaveLength(5);
    expect(cut?.response?.complete).toBe(false);
  });

  it('keeps an orphaned request with no response and its note', async () => {
    const o = (await capture(at('claude-trace.jsonl'))).exchanges[3];
    expect(o?.response).toBeNull();
    expect(o?.error?.message).toMatch(/ORPHANED_REQUEST/);
  });

  it('lists the truncated last line', async () => {
    const c = await capture(at('claude-trace.jsonl'));
    expect(c.skipped).toHaveLength(1);
    expect(c.skipped[0]?.line).toBe(5);
  });
});

describe('HAR files', () => {
  it('reads entries in start order with timings from the HAR', async () => {
    const c = await capture(at('devtools.har'));
    expect(c.format).toBe('har');
    expect(c.exchanges.map((x) => [x.line, x.host])).toEqual([
      [2, 'api.openai.com'],
      [1, 'generativelanguage.googleapis.com'],
      [3, 'api.openai.com'],
      [4, 'api.openai.com'],
      [5, 'api.anthropic.com'],
    ]);
    const chat = c.exchanges[0];
    // blocked + dns + connect + send + wait; ssl is inside connect in HAR 1.2.
    expect(chat?.ttfbMs).toBeCloseTo(0.8 + 12.1 + 45.3 + 0.4 + 640.6, 6);
    expect(chat?.totalMs).toBe(1890.2);
    expect(chat?.response?.events?.at(-1)).toEqual({ t: null, event: null, data: '[DONE]' });
    // -1 timings ("does not apply") are left out.
    expect(c.exchanges[1]?.ttfbMs).toBeCloseTo(1.5 + 0.2 + 380.1, 6);
  });

  it('fingerprints credentials in headers and an API key in the URL', async () => {
    const c = await capture(at('devtools.har'));
    const text = JSON.stringify(c);
    expect(text).not.toContain('EXAMPLE-not-a-real-key');
    expect(text).not.toContain('__cf_bm');
    expect(c.exchanges[1]?.path).toBe(`/v1beta/models/gemini-2.5-flash:generateContent?key=${fingerprint('EXAMPLE-not-a-real-key')}`);
  });

  it('decodes base64 content when it is UTF-8 and says null when it is not', async () => {
    const c = await capture(at('devtools.har'));
    expect(JSON.parse(c.exchanges[2]?.response?.body ?? 'null')).toMatchObject({ object: 'response', status: 'completed' });
    expect(c.exchanges[3]?.response?.body).toBeNull();
  });

  it('reads status 0 as no response, and lists an entry with no request', async () => {
    const c = await capture(at('devtools.har'));
    expect(c.exchanges[4]?.response).toBeNull();
    expect(c.exchanges[4]?.ttfbMs).toBeNull();
    expect(c.exchanges[4]?.error?.code).toBe('net::ERR_CONNECTION_REFUSED');
    expect(c.skipped).toHaveLength(1);
    expect(c.skipped[0]?.line).toBe(6);
    expect(c.skipped[0]?.reason).toMatch(/request/);
  });
});

describe('readCapture', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'palimpsest-capture-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('says an empty file is empty', async () => {
    expect(await failure(at('empty.jsonl'))).toMatch(/is empty/);
  });

  it('says a file in no known format is none of them', async () => {
    expect(await failure(at('not-a-capture.txt'))).toMatch(/not a capture Palimpsest reads/);
  });

  it('names a missing file', async () => {
    expect(await failure(join(dir, 'missing.jsonl'))).toMatch(/missing\.jsonl does not exist/);
  });

  it('refuses a folder without opening it', async () => {
    expect(await failure(dir)).toMatch(/directory/);
  });

  it('fails a Palimpsest capture with only a bad header and bad lines, giving the header problem', async () => {
    const p = join(dir, 'only-bad.jsonl');
    await writeFile(p, '{"type":"capture","v":99}\nnot json\n');
    expect(await failure(p)).toMatch(/not a readable Palimpsest capture: line 1: the capture header/);
  });

  it('fails a HAR that is not JSON', async () => {
    const p = join(dir, 'broken.har');
    await writeFile(p, '{\n  "log": {\n    "entries": [\n');
    expect(await failure(p)).toMatch(/not a HAR file: not JSON/);
  });

  it('recognises a claude-trace line longer than the sniffed head', () => {
    expect(sniffFormat(`{"request":{"timestamp":1,"body":"${'x'.repeat(100)}`)).toBe('claude-trace');
    expect(sniffFormat('{"type":"exchange","seq":0,"provider":"anth')).toBe('palimpsest');
    expect(sniffFormat('\uFEFF{\n  "log": {\n')).toBe('har');
  });

  it('lists at most MAX_SKIPPED_LISTED bad lines and counts the rest in one entry', async () => {
    const p = join(dir, 'many-bad.jsonl');
    const bad = Array.from({ length: MAX_SKIPPED_LISTED + 5 }, () => 'nope').join('\n');
    await writeFile(p, `{"type":"capture","v":1,"writer":"t","startedAt":"2025-01-01T00:00:00Z","upstreams":{}}\n${bad}\n`);
    const c = await capture(p);
    expect(c.skipped).toHaveLength(MAX_SKIPPED_LISTED + 1);
    expect(c.skipped.at(-1)).toEqual({
      file: p,
      line: MAX_SKIPPED_LISTED + 2,
      reason: '5 more lines were skipped (not listed), from line 1002 on',
    });
  });
});
