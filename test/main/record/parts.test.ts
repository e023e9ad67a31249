import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/main/command/args';
import { fingerprint, redactPath } from '../../../src/main/capture/redact';
import { capturedHeaders } from '../../../src/main/record/credentials';
import { endToEnd } from '../../../src/main/record/headers';
import { parseUpstreams, route } from '../../../src/main/record/routes';
import { SseParser, type SseEvent } from '../../../src/main/wire/sse';
import { Utf8Check } from '../../../src/main/record/utf8';

/* The recorder's small parts: SSE parsing, UTF-8 checks across chunks, credentials, routes, headers. */

/** The events parsed from `pieces` pushed in turn, their bytes as text. */
function sse(pieces: readonly (string | Buffer)[]): { event: string | null; data: string }[] {
  const out: { event: string | null; data: string }[] = [];
  const p = new SseParser((e: SseEvent) => out.push({ event: e.event?.toString() ?? null, data: e.data.toString() }));
  for (const x of pieces) p.push(typeof x === 'string' ? Buffer.from(x) : x);
  return out;
}

describe('SseParser', () => {
  it('parses events split anywhere, with every kind of line end', () => {
    const text = 'event: a\r\ndata: 1\r\ndata:2\r\n\r\n: comment\nevent: b\rdata:  x\r\rdata\n\n';
    const whole = sse([text]);
    expect(whole).toEqual([
      { event: 'a', data: '1\n2' },
      { event: 'b', data: ' x' },
      { event: null, data: '' },
    ]);
    for (let i = 1; i < text.length; i++) expect(sse([text.slice(0, i), text.slice(i)])).toEqual(whole);
    expect(sse([...text])).toEqual(whole);
  });

  it('drops an event without data, and one the stream ends in the middle of', () => {
    expect(sse(['event: ping\n\n', 'data: cut'])).toEqual([]);
  });

  it('ignores a byte order mark at the start', () => {
    expect(sse(['\ufeffdata: x\n\n'])).toEqual([{ event: null, data: 'x' }]);
    const bytes = Buffer.from('\ufeffdata: x\n\n');
    for (let i = 1; i < 3; i++) expect(sse([bytes.subarray(0, i), bytes.subarray(i)])).toEqual([{ event: null, data: 'x' }]);
    expect(sse(['data: \ufeffx\n\n'])).toEqual([{ event: null, data: '\ufeffx' }]);
  });

  it('splits bytes anywhere, inside a character too, and keeps no view on a pushed chunk', () => {
    const bytes = Buffer.from('event: é\ndata: ü1\ndata: 😀\n\ndata: \u4e2d\n\n');
    const whole = [
      { event: 'é', data: 'ü1\n😀' },
      { event: null, data: '\u4e2d' },
    ];
    for (let i = 1; i < bytes.length; i++) {
      // The stream may reuse a chunk's memory once pushed: overwrite each after pushing it.
      const a = Buffer.from(bytes.subarray(0, i));
      const b = Buffer.from(bytes.subarray(i));
      const out: { event: string | null; data: string }[] = [];
      // An event's bytes are read in the callback, as they may be views on the chunk being pushed.
      const p = new SseParser((e) => out.push({ event: e.event?.toString() ?? null, data: e.data.toString() }));
      p.push(a);
      a.fill(0x21);
      p.push(b);
      b.fill(0x21);
      expect(out).toEqual(whole);
    }
  });

  it('gives each event the stream offset of the line end that dispatched it', () => {
    const at: number[] = [];
    const p = new SseParser((e) => at.push(e.at));
    p.push(Buffer.from('\ufeffdata: a\n\ndata: b\r'));
    p.push(Buffer.from('\n\r\n'));
    expect(at).toEqual([11, 21]);
  });
});

describe('Utf8Check', () => {
  const check = (pieces: readonly Buffer[]) => {
    const c = new Utf8Check();
    for (const p of pieces) c.push(p);
    return c.end();
  };

  it('accepts characters split between chunks at every point', () => {
    const b = Buffer.from('aü✓😀b', 'utf8');
    for (let i = 0; i <= b.length; i++)
      for (let j = i; j <= b.length; j++) expect(check([b.subarray(0, i), b.subarray(i, j), b.subarray(j)])).toBe(true);
    expect(check([...b].map((x) => Buffer.from([x])))).toBe(true);
  });

  it('rejects invalid bytes, and a character cut at the end', () => {
    expect(check([Buffer.from([0x61, 0xff])])).toBe(false);
    expect(check([Buffer.from([0xc3]), Buffer.from([0x28])])).toBe(false);
    expect(check([Buffer.from('✓', 'utf8').subarray(0, 2)])).toBe(false);
  });
});

describe('credentials', () => {
  it('fingerprints credential headers and keeps the rest, in order and case', () => {
    const h = capturedHeaders(['X-Api-Key', 'sk-secret', 'Content-Type', 'application/json', 'Authorization', 'Bearer t', 'Cookie', 'a=b']);
    expect(h).toEqual([
      ['X-Api-Key', fingerprint('sk-secret')],
      ['Content-Type', 'application/json'],
      ['Authorization', fingerprint('Bearer t')],
      ['Cookie', fingerprint('a=b')],
    ]);
    expect(fingerprint('sk-secret')).toMatch(/^\[redacted sha256:[0-9a-f]{8}\]$/);
    expect(fingerprint('sk-secret')).not.toBe(fingerprint('sk-other'));
  });

  it('fingerprints the value of a key query parameter only', () => {
    expect(redactPath('/v1beta/models/m:generateContent?alt=sse&key=AIzaSECRET')).toBe(
      `/v1beta/models/m:generateContent?alt=sse&key=${fingerprint('AIzaSECRET')}`,
    );
    expect(redactPath('/x?monkey=1&key')).toBe('/x?monkey=1&key');
    expect(redactPath('/x')).toBe('/x');
  });
});

describe('routes', () => {
  it('sets all upstreams, or one, and refuses bad names and URLs', () => {
    const u = parseUpstreams(['http://127.0.0.1:9/all', 'gemini=https://g.example/base/']);
    expect(u.anthropic.href).toBe('http://127.0.0.1:9/all');
    expect(route('/gemini/v1beta/models?x=1', u)?.path).toBe('/base/v1beta/models?x=1');
    expect(route('/anthropic/v1/messages', u)?.path).toBe('/all/v1/messages');
    expect(route('/openai', parseUpstreams([]))).toMatchObject({ provider: 'openai', path: '/' });
    expect(route('/anthropicx/v1', u)).toBeNull();
    expect(route('/v1/messages', u)).toBeNull();
    expect(() => parseUpstreams(['mistral=http://x'])).toThrow(UsageError);
    expect(() => parseUpstreams(['not a url'])).toThrow(UsageError);
    expect(() => parseUpstreams(['ftp://x'])).toThrow(UsageError);
    expect(() => parseUpstreams(['http://user:pw@x'])).toThrow(UsageError);
  });
});

describe('endToEnd', () => {
  it('drops hop-by-hop headers and those Connection names, and rewrites Host', () => {
    const raw = [
      'Host',
      'localhost:1',
      'Connection',
      'keep-alive, X-Hop',
      'X-Hop',
      '1',
      'Transfer-Encoding',
      'chunked',
      'Proxy-Authorization',
      'p',
      'TE',
      'trailers',
      'x-keep',
      'y',
    ];
    expect(endToEnd(raw, 'api.example')).toEqual([
      ['Host', 'api.example'],
      ['x-keep', 'y'],
    ]);
  });
});
