import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Diagnostic } from '../../../src/shared/model/diagnostic';
import type { ReaderOptions, ReadStats } from '../../../src/main/reader/types';
import { BAD_INPUT, brief, readAll, readLineAt, type Brief, type ReadResult } from './helpers';

interface Case {
  file: string;
  opts?: ReaderOptions;
  diags: Brief[];
  /** Delivered lines as [line, offset, length, value]. */
  lines: [number, number, number, Record<string, unknown>][];
  stats: ReadStats;
}

const cases: Case[] = [
  {
    file: 'bom.jsonl',
    diags: [['READ_BOM', 'info', 1]],
    lines: [
      [1, 3, 7, { a: 1 }],
      [2, 11, 7, { b: 2 }],
    ],
    stats: { bytes: 19, lines: 2, records: 2, skipped: 0 },
  },
  {
    file: 'crlf.jsonl',
    diags: [['READ_CRLF', 'info', 1]],
    lines: [
      [1, 0, 7, { a: 1 }],
      [2, 9, 9, { b: 'x' }],
      [3, 20, 7, { c: 3 }],
    ],
    stats: { bytes: 29, lines: 3, records: 3, skipped: 0 },
  },
  {
    file: 'blank-lines.jsonl',
    diags: [['READ_BLANK_LINES', 'info', 2]],
    lines: [
      [1, 0, 7, { a: 1 }],
      [4, 13, 7, { b: 2 }],
      [6, 24, 7, { c: 3 }],
    ],
    stats: { bytes: 33, lines: 7, records: 3, skipped: 4 },
  },
  {
    file: 'truncated-last-line.jsonl',
    diags: [['READ_TRUNCATED_LINE', 'warning', 3]],
    lines: [
      [1, 0, 7, { a: 1 }],
      [2, 8, 7, { b: 2 }],
    ],
    stats: { bytes: 29, lines: 3, records: 2, skipped: 1 },
  },
  {
    file: 'invalid-json.jsonl',
    diags: [
      ['READ_INVALID_JSON', 'error', 2],
      ['READ_INVALID_JSON', 'error', 4],
    ],
    lines: [
      [1, 0, 7, { a: 1 }],
      [3, 14, 7, { c: 3 }],
      [5, 31, 7, { d: 4 }],
    ],
    stats: { bytes: 38, lines: 5, records: 3, skipped: 2 },
  },
  {
    file: 'not-object.jsonl',
    diags: [2, 3, 4, 5, 6].map((n): Brief => ['READ_NOT_OBJECT', 'error', n]),
    lines: [
      [1, 0, 7, { a: 1 }],
      [7, 33, 7, { b: 2 }],
    ],
    stats: { bytes: 41, lines: 7, records: 2, skipped: 5 },
  },
  {
    file: 'invalid-utf8.jsonl',
    diags: [
      ['READ_INVALID_UTF8', 'warning', 2],
      ['READ_INVALID_UTF8', 'warning', 3],
      ['READ_INVALID_UTF8', 'warning', 5],
      ['READ_INVALID_JSON', 'error', 5],
    ],
    lines: [
      [1, 0, 7, { a: 1 }],
      [2, 8, 11, { b: 'x\uFFFDy' }],
      [3, 20, 12, { c: 'caf\uFFFD' }],
      [4, 33, 22, { d: 'ok é ✓ 🚀' }],
      [6, 65, 11, { f: '\uFFFD' }],
    ],
    stats: { bytes: 77, lines: 6, records: 5, skipped: 1 },
  },
  {
    file: 'long-line.jsonl',
    opts: { maxLineBytes: 64 },
    diags: [
      ['READ_LINE_TOO_LONG', 'error', 2],
      ['READ_LINE_TOO_LONG', 'error', 4],
    ],
    lines: [
      [1, 0, 7, { a: 1 }],
      [3, 220, 7, { b: 2 }],
    ],
    stats: { bytes: 340, lines: 4, records: 2, skipped: 2 },
  },
  {
    file: 'mixed.jsonl',
    diags: [
      ['READ_BOM', 'info', 1],
      ['READ_CRLF', 'info', 1],
      ['READ_NOT_OBJECT', 'error', 3],
      ['READ_TRUNCATED_LINE', 'warning', 5],
      ['READ_BLANK_LINES', 'info', 2],
    ],
    lines: [
      [1, 3, 7, { a: 1 }],
      [4, 19, 10, { b: 'é' }],
    ],
    stats: { bytes: 36, lines: 5, records: 2, skipped: 3 },
  },
  {
    file: 'empty.jsonl',
    diags: [],
    lines: [],
    stats: { bytes: 0, lines: 0, records: 0, skipped: 0 },
  },
  {
    file: 'not-zstd.jsonl.zst',
    diags: [['READ_ZSTD', 'error', 1]],
    lines: [],
    stats: { bytes: 0, lines: 0, records: 0, skipped: 0 },
  },
];

/** Every diagnostic names its file and line and says something a user can read. */
function expectWellFormed(r: ReadResult, path: string): void {
  for (const d of r.diags) {
    expect(Diagnostic.parse(d)).toEqual(d);
    expect(d.file).toBe(path);
    expect(d.line).toBeGreaterThanOrEqual(1);
    expect(d.message).toMatch(/^\S.{15,}\S$/);
  }
}

describe('bad-input corpus', () => {
  for (const c of cases) {
    it(`${c.file}: exact diagnostics, good lines kept with re-readable offsets`, async () => {
      const path = join(BAD_INPUT, c.file);
      const r = await readAll(path, c.opts);
      expect(brief(r.diags)).toEqual(c.diags);
      expect(r.lines.map((l) => [l.line, l.offset, l.length, l.value])).toEqual(c.lines);
      expect(r.stats).toEqual(c.stats);
      expectWellFormed(r, path);
      for (const l of r.lines) expect(await readLineAt(path, l.offset, l.length)).toEqual(l.value);
      // The file is small: a 3-byte read size puts chunk boundaries inside every line.
      const small = await readAll(path, { ...c.opts, chunkBytes: 3 });
      expect(small).toEqual(r);
      // Without reading ahead (the bench's comparison), the same, whatever the read size.
      expect(await readAll(path, { ...c.opts, chunkBytes: 3, readAhead: false })).toEqual(r);
    });
  }

  it('caps one rule at 50 diagnostics per file, then says how many more there were', async () => {
    const path = join(BAD_INPUT, 'many-invalid.jsonl');
    const r = await readAll(path);
    const expected: Brief[] = Array.from({ length: 50 }, (_, i): Brief => ['READ_INVALID_JSON', 'error', i + 2]);
    expected.push(['READ_INVALID_JSON', 'error', 52]);
    expect(brief(r.diags)).toEqual(expected);
    expect(r.diags[50]?.message).toContain('10 more');
    expect(r.diags[50]?.message).toContain('60 in total');
    expect(r.lines.map((l) => [l.line, l.value])).toEqual([
      [1, { first: true }],
      [62, { last: true }],
    ]);
    expect(r.stats).toEqual({ bytes: 500, lines: 62, records: 2, skipped: 60 });
    expectWellFormed(r, path);
    for (const l of r.lines) expect(await readLineAt(path, l.offset, l.length)).toEqual(l.value);
  });

  it('reports a missing file as READ_IO with zero stats, without throwing', async () => {
    const path = join(BAD_INPUT, 'does-not-exist.jsonl');
    const r = await readAll(path);
    expect(brief(r.diags)).toEqual([['READ_IO', 'error', 1]]);
    expect(r.diags[0]?.message).toContain('does not exist');
    expect(r.stats).toEqual({ bytes: 0, lines: 0, records: 0, skipped: 0 });
    expect(await readLineAt(path, 0, 7)).toBeNull();
  });

  it('reports a directory as READ_IO', async () => {
    const r = await readAll(BAD_INPUT);
    expect(brief(r.diags)).toEqual([['READ_IO', 'error', 1]]);
    expect(r.diags[0]?.message).toContain('directory');
    expect(r.stats).toEqual({ bytes: 0, lines: 0, records: 0, skipped: 0 });
    expect(await readLineAt(BAD_INPUT, 0, 7)).toBeNull();
  });

  // root reads files whatever their mode, so the case cannot be made there.
  it.skipIf(process.getuid?.() === 0)('reports an unreadable file (EACCES) as READ_IO', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'palimpsest-reader-'));
    try {
      const path = join(dir, 'locked.jsonl');
      await writeFile(path, '{"a":1}\n');
      await chmod(path, 0o000);
      const r = await readAll(path);
      expect(brief(r.diags)).toEqual([['READ_IO', 'error', 1]]);
      expect(r.diags[0]?.message).toContain('permission denied');
      expect(r.stats).toEqual({ bytes: 0, lines: 0, records: 0, skipped: 0 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('readLineAt returns null, not an exception, for ranges that are not an object', async () => {
    const path = join(BAD_INPUT, 'not-object.jsonl');
    expect(await readLineAt(path, 8, 5)).toBeNull(); // [1,2]
    expect(await readLineAt(path, 1, 5)).toBeNull(); // the middle of a line
    expect(await readLineAt(path, 0, 4096)).toBeNull(); // past the end of the file
    expect(await readLineAt(path, -1, 7)).toBeNull();
    expect(await readLineAt(path, 0, Number.NaN)).toBeNull();
    expect(await readLineAt(path, 0, 7)).toEqual({ a: 1 });
  });
});
