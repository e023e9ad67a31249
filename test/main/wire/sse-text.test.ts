import { describe, expect, it } from 'vitest';
import { parseSse, SseParser } from '../../../src/main/wire/sse';

describe('parseSse', () => {
  it('reads event names, joins multi-line data and skips comments', () => {
    const r = parseSse(': keep-alive\nevent: message_start\ndata: {"a":\ndata: 1}\n\ndata: [DONE]\n\n');
    expect(r.events).toEqual([
      { event: 'message_start', data: '{"a":\n1}' },
      { event: null, data: '[DONE]' },
    ]);
    expect(r.cut).toBeNull();
  });

  it('accepts CRLF, LF and CR line ends alike', () => {
    const want = [
      { event: 'x', data: 'one' },
      { event: null, data: 'two' },
    ];
    expect(parseSse('event: x\r\ndata: one\r\n\r\ndata: two\r\n\r\n').events).toEqual(want);
    expect(parseSse('event: x\rdata: one\r\rdata: two\r\r').events).toEqual(want);
  });

  it('drops only one leading space, keeps a field without a colon, and ignores id and retry', () => {
    expect(parseSse('data:  two spaces\nid: 7\nretry: 10\ndata\n\n').events).toEqual([{ event: null, data: ' two spaces\n' }]);
  });

  it('does not dispatch an event that has no data', () => {
    expect(parseSse('event: ping\n\n').events).toEqual([]);
  });

  it('reports the text of an event cut before its end', () => {
    const r = parseSse('data: 1\n\nevent: content_block_delta\ndata: {"ty');
    expect(r.events).toEqual([{ event: null, data: '1' }]);
    expect(r.cut).toBe('event: content_block_delta\ndata: {"ty');
  });

  it('reports a complete last line that no blank line closed as cut', () => {
    expect(parseSse('data: 1\n\ndata: 2\n').cut).toBe('data: 2\n');
  });

  it('does not count a trailing keep-alive comment as a cut', () => {
    expect(parseSse('data: 1\n\n: ping\n').cut).toBeNull();
  });
});

describe('SseParser.finish', () => {
  it('returns the same cut event whatever the chunks, and nothing unless asked to keep it', () => {
    const body = Buffer.from('data: 1\r\n\r\nevent: delta\r\ndata: {"ty');
    for (const at of [1, 9, 10, 11, 20, body.length - 1]) {
      const seen: string[] = [];
      const p = new SseParser((e) => seen.push(e.data.toString()), { keepCut: true });
      p.push(body.subarray(0, at));
      p.push(body.subarray(at));
      expect(seen).toEqual(['1']);
      expect(p.finish()?.toString()).toBe('event: delta\ndata: {"ty');
    }
    const plain = new SseParser(() => undefined);
    plain.push(body);
    expect(plain.finish()).toBeNull();
  });
});
