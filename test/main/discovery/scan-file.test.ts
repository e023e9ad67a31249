import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanFileSync, scanLinesSync, type BlockScanner } from '../../../src/main/discovery/scan-file';

/*
 * The two ways a scan reads a file give a scanner the same lines: the line splitter (scanFileSync)
 * and a buffer of whole lines at a time (scanLinesSync, what the Claude Code scan uses), across
 * reads, for lines longer than a read, a last line without LF, and lines over the limit.
 */

class Collect implements BlockScanner {
  readonly seen: string[] = [];
  line(buf: Buffer, start: number, end: number): void {
    this.seen.push(buf.toString('latin1', start, end));
  }
  block(buf: Buffer, start: number, end: number): void {
    let p = start;
    while (p < end) {
      let e = buf.indexOf(0x0a, p);
      if (e < 0 || e > end) e = end;
      this.line(buf, p, e);
      p = e + 1;
    }
  }
}

describe('scanLinesSync', () => {
  const lines = [
    'a',
    '',
    'x'.repeat(700_000),
    'y'.repeat(1_500_000),
    'short',
    'z'.repeat(3_000_000),
    '{"k":1}\r',
    '',
    'w'.repeat(999_999),
    'last',
  ];
  for (const [name, text] of [
    ['with a final LF', `${lines.join('\n')}\n`],
    ['without a final LF', lines.join('\n')],
  ] as const) {
    it(`gives the lines the splitter gives, ${name}`, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'palimpsest-lines-'));
      const p = join(dir, 'f.jsonl');
      await writeFile(p, text, 'latin1');
      const a = new Collect();
      const b = new Collect();
      expect(scanLinesSync(p, a).error).toBeNull();
      expect(scanFileSync(p, b).error).toBeNull();
      expect(a.seen).toEqual(b.seen);
      expect(a.seen.length).toBe(lines.length);
      // Over a limit of 1 MB: the three longer lines are skipped, as by the splitter.
      const c = new Collect();
      const d = new Collect();
      scanLinesSync(p, c, 1_000_000);
      scanFileSync(p, d, 1_000_000);
      expect(c.seen).toEqual(d.seen);
      expect(c.seen.map((l) => l.length)).toEqual([1, 0, 700_000, 5, 8, 0, 999_999, 4]);
    });
  }

  it('says why a file cannot be read', () => {
    expect(scanLinesSync('/nonexistent/palimpsest', new Collect()).error).toMatch(/ENOENT/);
  });
});
