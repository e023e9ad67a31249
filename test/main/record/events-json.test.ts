import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EventTimes, eventsJson } from '../../../src/main/record/events-json';
import { Spool, spoolDir } from '../../../src/main/record/spool';

/* An event stream's events made into the capture's JSON from its kept bytes and arrival times. */

const tmp = mkdtempSync(join(tmpdir(), 'palimpsest-events-json-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const dir = spoolDir(tmp);

/** The stream as it arrived in `pieces` (each with its time), through a spool that spills past `limit` bytes. */
async function itemsOf(pieces: readonly [Buffer, number][], limit = 1024 * 1024): Promise<string> {
  const spool = new Spool(dir, { keep: true, sha256: false, utf8: false }, limit);
  const times = new EventTimes();
  for (const [b, t] of pieces) {
    spool.write(b);
    times.mark(spool.bytes, t);
  }
  spool.end();
  const out: Buffer[] = [];
  for await (const b of eventsJson(spool, times)) out.push(b);
  spool.dispose();
  return Buffer.concat(out).toString('utf8');
}

describe('eventsJson', () => {
  it('writes each event exactly as JSON.stringify writes its decoded text', async () => {
    const stream =
      'event: message_start\ndata: {"type":"a","text":"quote \\" back\\\\slash\\ttab é 😀"}\n\n' +
      'data: line one\ndata: \u0001control\u001f\n\n' +
      'event: \u4e2d\ndata: \ufeffmark kept\n\n';
    const got = await itemsOf([[Buffer.from(stream), 1.23456]]);
    const want = [
      { t: 1.235, event: 'message_start', data: '{"type":"a","text":"quote \\" back\\\\slash\\ttab é 😀"}' },
      { t: 1.235, event: null, data: 'line one\n\u0001control\u001f' },
      { t: 1.235, event: '\u4e2d', data: '\ufeffmark kept' },
    ];
    expect(got).toBe(want.map((e) => JSON.stringify(e)).join(','));
  });

  it('decodes bytes that are not UTF-8 as a client does, each bad sequence one U+FFFD', async () => {
    const bytes = Buffer.concat([Buffer.from('data: a'), Buffer.from([0xff, 0xe2, 0x82]), Buffer.from('b"\n\n')]);
    const got = await itemsOf([[bytes, 2]]);
    expect(got).toBe(JSON.stringify({ t: 2, event: null, data: new TextDecoder().decode(bytes.subarray(6, bytes.length - 2)) }));
    expect(JSON.parse(`[${got}]`)[0].data).toBe('a\ufffd\ufffdb"');
  });

  it('times each event by the piece holding the line end that dispatched it, across spilled reads', async () => {
    const event = (n: number): string => `data: ${String(n).padStart(5, '0')} ${'x'.repeat(100)}\n\n`;
    const text = Array.from({ length: 400 }, (_, n) => event(n)).join('');
    const bytes = Buffer.from(text);
    // Pieces of 997 bytes: events end in every position of a piece, and some line ends fall on a boundary.
    const pieces: [Buffer, number][] = [];
    for (let at = 0, k = 0; at < bytes.length; at += 997, k++) pieces.push([bytes.subarray(at, at + 997), k]);
    const items = JSON.parse(`[${await itemsOf(pieces, 4096)}]`) as { t: number; data: string }[];
    expect(items.length).toBe(400);
    items.forEach((e, n) => {
      // The blank line's end is the event's last byte.
      const end = text.indexOf(event(n)) + event(n).length - 1;
      expect(e.t).toBe(Math.floor(end / 997));
      expect(e.data).toBe(`${String(n).padStart(5, '0')} ${'x'.repeat(100)}`);
    });
  });

  it('gives no events when there is no text to parse them from', async () => {
    const out: Buffer[] = [];
    for await (const b of eventsJson(null, new EventTimes())) out.push(b);
    expect(out).toEqual([]);
  });
});
