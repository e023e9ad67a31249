import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isZstdPath } from '../../../src/main/reader';
import { BAD_INPUT, brief, readAll, readChunks, readLineAt, split } from './helpers';

const plain = join(BAD_INPUT, 'frames.jsonl');
const zst = join(BAD_INPUT, 'frames.jsonl.zst');

describe('zstd sources', () => {
  it('knows zstd files by suffix', () => {
    expect(isZstdPath('a/session.jsonl.zstd')).toBe(true);
    expect(isZstdPath('a/session.jsonl.zst')).toBe(true);
    expect(isZstdPath('a/session.jsonl')).toBe(false);
    expect(isZstdPath('a/zstd.jsonl')).toBe(false);
  });

  it('a multi-frame .jsonl.zst reads as the same lines as its plain twin', async () => {
    const a = await readAll(plain);
    const b = await readAll(zst);
    expect(a.lines).toHaveLength(9);
    expect(b).toEqual(a);
    expect(a.diags).toEqual([]);
    // Tiny reads cut frames and blocks at every place.
    expect(await readAll(zst, { chunkBytes: 5 })).toEqual(a);
  });

  it('readLineAt re-reads every line from both, at decompressed offsets', async () => {
    const { lines } = await readAll(plain);
    for (const l of lines) {
      expect(await readLineAt(plain, l.offset, l.length)).toEqual(l.value);
      expect(await readLineAt(zst, l.offset, l.length)).toEqual(l.value);
    }
    const last = lines[lines.length - 1];
    expect(last).toBeDefined();
    if (last) expect(await readLineAt(zst, last.offset, last.length + 10)).toBeNull();
  });

  it('the .zstd suffix is read the same way', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'palimpsest-reader-'));
    try {
      const path = join(dir, 'session.jsonl.zstd');
      await copyFile(zst, path);
      const r = await readAll(path);
      expect(r.lines.map((l) => l.value)).toEqual((await readAll(plain)).lines.map((l) => l.value));
      const l5 = r.lines[4];
      if (l5) expect(await readLineAt(path, l5.offset, l5.length)).toEqual(l5.value);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a zstd stream cut short keeps the frames before the cut and reports READ_ZSTD', async () => {
    const path = join(BAD_INPUT, 'truncated.jsonl.zst');
    const r = await readAll(path);
    const twin = (await readAll(plain)).lines.slice(0, 6);
    expect(r.lines).toEqual(twin);
    expect(brief(r.diags)).toEqual([['READ_ZSTD', 'error', 7]]);
    expect(r.diags[0]?.message).toContain('from byte 421 to the end of the file could not be decoded: the file ends inside this frame');
    expect(r.stats).toEqual({ bytes: 1066, lines: 6, records: 6, skipped: 0 });
    for (const l of r.lines) expect(await readLineAt(path, l.offset, l.length)).toEqual(l.value);
  });

  it('a corrupt frame is reported with READ_ZSTD at its line, and the frames after it still load', async () => {
    const path = join(BAD_INPUT, 'corrupt.jsonl.zst');
    const r = await readAll(path);
    // Frame 3 (line 4 of the plain twin) is lost; the lines after it are numbered as read.
    const twin = (await readAll(plain)).lines.map((l) => l.value);
    expect(r.lines.map((l) => l.value)).toEqual([...twin.slice(0, 3), ...twin.slice(4)]);
    expect(brief(r.diags)).toEqual([['READ_ZSTD', 'error', 4]]);
    expect(r.diags[0]?.file).toBe(path);
    for (const l of r.lines) expect(await readLineAt(path, l.offset, l.length)).toEqual(l.value);
  });

  it('zstd results do not depend on chunk boundaries', async () => {
    const files = ['frames.jsonl.zst', 'truncated.jsonl.zst', 'corrupt.jsonl.zst'];
    const bytes = await Promise.all(files.map((f) => readFile(join(BAD_INPUT, f))));
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: files.length - 1 }),
        fc.array(fc.integer({ min: 1, max: 80 }), { minLength: 1, maxLength: 12 }),
        (i, sizes) => {
          const name = files[i] ?? '';
          const data = bytes[i] ?? Buffer.alloc(0);
          expect(readChunks(split(data, sizes), name)).toEqual(readChunks([data], name));
        },
      ),
      { numRuns: 60 },
    );
  });
});
