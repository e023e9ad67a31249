import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readChunks, split } from './helpers';

const enc = (s: string): Uint8Array => Buffer.from(s, 'utf8');
const noLf = (bytes: Uint8Array): Uint8Array => bytes.map((b) => (b === 0x0a ? 0x20 : b));

/** The bytes of one line, without its terminator: good, blank, or bad in each way the reader knows. */
const lineBytes: fc.Arbitrary<Uint8Array> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .dictionary(
        fc.string({ unit: 'grapheme', maxLength: 6 }),
        fc.oneof(fc.string({ unit: 'grapheme', maxLength: 12 }), fc.integer(), fc.constant(null)),
      )
      .map((o) => enc(JSON.stringify(o))),
  },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', '\t  ', '\r').map(enc) },
  { weight: 1, arbitrary: fc.constantFrom('[1,2]', '"s"', '0', 'null', 'true').map(enc) },
  { weight: 1, arbitrary: fc.constantFrom('{"a":', 'nope', '}', '{"a":1}}').map(enc) },
  // Arbitrary bytes: invalid UTF-8, stray CRs, BOM-like sequences in the middle.
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 16 }).map(noLf) },
  // Invalid UTF-8 inside an otherwise valid object: a warning, and the line is still delivered.
  {
    weight: 1,
    arbitrary: fc
      .uint8Array({ minLength: 1, maxLength: 4 })
      .map((b) => Buffer.concat([enc('{"s":"'), b.map((x) => 0x80 | (x & 0x3f)), enc('"}')])),
  },
  // Long lines, to cross the maxLineBytes limit from either side and across chunks.
  { weight: 1, arbitrary: fc.integer({ min: 20, max: 150 }).map((n) => enc(`{"p":"${'é'.repeat(n >> 1)}${'x'.repeat(n & 1)}"}`)) },
);

const content: fc.Arbitrary<Uint8Array> = fc
  .record({
    bom: fc.boolean(),
    lines: fc.array(fc.tuple(lineBytes, fc.constantFrom('\n', '\r\n')), { maxLength: 25 }),
    lastTerminated: fc.boolean(),
  })
  .map(({ bom, lines, lastTerminated }) => {
    const parts: Uint8Array[] = bom ? [Uint8Array.from([0xef, 0xbb, 0xbf])] : [];
    lines.forEach(([bytes, eol], i) => {
      parts.push(bytes);
      if (i < lines.length - 1 || lastTerminated) parts.push(enc(eol));
    });
    return Buffer.concat(parts);
  });

const chunkSizes = fc.oneof(
  fc.constant([1]),
  fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 1, maxLength: 10 }),
  fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 10 }),
);

describe('reading does not depend on chunk boundaries', () => {
  it('delivers identical lines, offsets, diagnostics and stats for any split', () => {
    fc.assert(
      fc.property(content, chunkSizes, fc.integer({ min: 16, max: 200 }), (bytes, sizes, maxLineBytes) => {
        const opts = { maxLineBytes };
        const whole = readChunks([bytes], 'p.jsonl', opts);
        const pieces = readChunks(split(bytes, sizes), 'p.jsonl', opts);
        expect(pieces).toEqual(whole);

        expect(whole.stats.bytes).toBe(bytes.length);
        expect(whole.stats.records).toBe(whole.lines.length);
        expect(whole.stats.lines).toBe(whole.stats.records + whole.stats.skipped);
        for (const l of whole.lines) {
          const text = Buffer.from(bytes.subarray(l.offset, l.offset + l.length)).toString('utf8');
          expect(JSON.parse(text)).toEqual(l.value);
          expect(l.length).toBeLessThanOrEqual(maxLineBytes);
        }
      }),
      { numRuns: 400 },
    );
  });
});
