import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJsonl } from '../../../src/main/reader';
import { type JsonLine } from '../../../src/main/reader/types';
import { BAD_INPUT } from './helpers';

/**
 * JsonLine.bytes/start/end are what a compact log keeps of a line (src/main/session/compact-log.ts):
 * they must be exactly the bytes JSON.parse read — no BOM, no CR, nothing of the next line — and
 * valid while the callback runs, whatever the read chunks.
 */
describe('JsonLine bytes', () => {
  const files = readdirSync(BAD_INPUT).filter((f) => f.endsWith('.jsonl') || f.endsWith('.zst'));

  for (const chunkBytes of [1, 7, 64, 1 << 20]) {
    it(`are the line's text as parsed, for every bad-input file, read in chunks of ${chunkBytes} bytes`, async () => {
      let checked = 0;
      for (const f of files) {
        await readJsonl(
          join(BAD_INPUT, f),
          (l) => {
            expect(l.bytes).toBeDefined();
            const start = l.start as number;
            const end = l.end as number;
            expect(end - start).toBe(l.length);
            const text = (l.bytes as Buffer).toString('utf8', start, end);
            expect(text.startsWith('\uFEFF')).toBe(false);
            expect(text.endsWith('\r')).toBe(false);
            expect(JSON.parse(text)).toEqual(l.value);
            checked++;
          },
          () => undefined,
          { chunkBytes, maxLineBytes: 1 << 16 },
        );
      }
      expect(checked).toBeGreaterThan(20);
    });
  }
});

describe('the line receiver', () => {
  it('gets, as an object with a line method, the lines a callback gets', async () => {
    const files = readdirSync(BAD_INPUT).filter((f) => f.endsWith('.jsonl') || f.endsWith('.zst'));
    for (const f of files) {
      const byCallback: unknown[] = [];
      const a = await readJsonl(
        join(BAD_INPUT, f),
        (l) => byCallback.push([l.value, l.line, l.offset, l.length]),
        () => undefined,
        { chunkBytes: 7 },
      );
      const receiver = {
        seen: [] as unknown[],
        line(l: JsonLine): void {
          this.seen.push([l.value, l.line, l.offset, l.length]);
        },
      };
      const b = await readJsonl(join(BAD_INPUT, f), receiver, () => undefined, { chunkBytes: 7 });
      expect(receiver.seen, f).toEqual(byCallback);
      expect(b, f).toEqual(a);
    }
  });
});
