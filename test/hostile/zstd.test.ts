import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLineAt } from '../main/reader/helpers';
import { LineSource } from '../../src/main/reader/source';
import { BAD_INPUT, brief, readAll, readChunks, split, type ReadResult } from '../main/reader/helpers';

// Multi-frame zstd files as DeepSeek Harness writes them (one frame per append batch), built here
// byte by byte: frames of raw blocks are real zstd frames (the zstd CLI decodes them, checked below
// when it is installed), and the committed fixture gives frames of compressed blocks.

const MAGIC = [0x28, 0xb5, 0x2f, 0xfd];
const text = (lines: readonly string[]): Buffer => Buffer.from(lines.map((l) => `${l}\n`).join(''));
const line = (i: number): string => JSON.stringify({ type: 'user/message', seq: i, data: { text: `line ${i}` } });
const lines = (from: number, to: number): string[] => Array.from({ length: to - from }, (_, k) => line(from + k));

/** A 3-byte block header: `type` 0 raw, 1 RLE, 2 compressed, 3 reserved. */
function blockHeader(last: boolean, type: number, size: number): Buffer {
  const v = (size << 3) | (type << 1) | (last ? 1 : 0);
  return Buffer.from([v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff]);
}

/** A single-segment frame declaring its size, with `content` in raw blocks of at most `blockSize` bytes. */
function rawFrame(content: Buffer, blockSize = 128 * 1024): Buffer {
  const n = content.length;
  const head = n < 256 ? Buffer.from([...MAGIC, 0x20, n]) : Buffer.from([...MAGIC, 0x60, (n - 256) & 0xff, ((n - 256) >> 8) & 0xff]);
  if (n >= 65536 + 256) throw new Error('test frames stay small');
  const parts: Buffer[] = [head];
  let at = 0;
  do {
    const piece = content.subarray(at, at + blockSize);
    at += piece.length;
    parts.push(blockHeader(at >= n, 0, piece.length), piece);
  } while (at < n);
  return Buffer.concat(parts);
}

/** A frame whose first block has the reserved block type: any decoder refuses it at once. */
function badFrame(): Buffer {
  return Buffer.concat([Buffer.from([...MAGIC, 0x20, 20]), blockHeader(true, 3, 20), Buffer.alloc(20, 0x41)]);
}

function skippable(data: Buffer): Buffer {
  const h = Buffer.from([0x53, 0x2a, 0x4d, 0x18, 0, 0, 0, 0]);
  h.writeUInt32LE(data.length, 4);
  return Buffer.concat([h, data]);
}

/** The frames of the committed fixture (zstd -19, five frames of compressed blocks). */
function fixtureFrames(): Buffer[] {
  const all = readFileSync(join(BAD_INPUT, 'frames.jsonl.zst'));
  const starts: number[] = [];
  for (let at = all.indexOf(Buffer.from(MAGIC)); at !== -1; at = all.indexOf(Buffer.from(MAGIC), at + 1)) starts.push(at);
  expect(starts).toHaveLength(5);
  return starts.map((s, i) => all.subarray(s, starts[i + 1] ?? all.length));
}

const read = (bytes: Buffer, chunks?: readonly number[]): ReadResult =>
  readChunks(chunks ? split(bytes, chunks) : [bytes], 'session.jsonl.zst');
const values = (r: ReadResult): unknown[] => r.lines.map((l) => l.value);
const parsed = (ls: readonly string[]): unknown[] => ls.map((l) => JSON.parse(l) as unknown);

describe('hostile zstd input', () => {
  it('a frame header asking for a 1.9 GiB window is refused without allocating it', () => {
    // 2^30 + 7/8 of it: under fzstd's own 2 GiB check, so fzstd would allocate it and copy all of
    // it per block.
    const hostile = Buffer.concat([
      Buffer.from([...MAGIC, 0x04, (20 << 3) | 7]),
      blockHeader(true, 0, 5),
      Buffer.from('abcd\n'),
      Buffer.alloc(4),
    ]);
    const good = rawFrame(text(lines(0, 3)));
    const before = process.resourceUsage().maxRSS;
    const started = Date.now();
    const r = read(Buffer.concat([hostile, good]));
    const grewMiB = (process.resourceUsage().maxRSS - before) / 1024;
    expect(values(r)).toEqual(parsed(lines(0, 3)));
    expect(brief(r.diags)).toEqual([['READ_ZSTD', 'error', 1]]);
    expect(r.diags[0]?.message).toContain(`from byte 0 to byte ${hostile.length} could not be decoded`);
    expect(r.diags[0]?.message).toContain("1920 MiB window, over the reader's limit of 128 MiB");
    expect(grewMiB).toBeLessThan(256);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('a single-segment frame declaring a 4 GiB content size is refused (the size is its window)', () => {
    const hostile = Buffer.concat([Buffer.from([...MAGIC, 0xe0, 0, 0, 0, 0, 1, 0, 0, 0]), blockHeader(true, 0, 3), Buffer.from('{}\n')]);
    const r = read(Buffer.concat([rawFrame(text(lines(0, 1))), hostile, rawFrame(text(lines(1, 2)))]));
    expect(values(r)).toEqual(parsed(lines(0, 2)));
    expect(brief(r.diags)).toEqual([['READ_ZSTD', 'error', 2]]);
    expect(r.diags[0]?.message).toContain('4096 MiB window');
  });

  it('a corrupt frame in the middle: every line of the later frames loads, READ_ZSTD names its offset', () => {
    const a = rawFrame(text(lines(0, 3)));
    const c = rawFrame(text(lines(3, 6)));
    const d = rawFrame(text(lines(6, 200)), 1000);
    const bytes = Buffer.concat([a, badFrame(), c, d]);
    const r = read(bytes);
    expect(values(r)).toEqual(parsed(lines(0, 200)));
    expect(brief(r.diags)).toEqual([['READ_ZSTD', 'error', 4]]);
    const m = r.diags[0]?.message ?? '';
    expect(m).toContain(
      `from byte ${a.length} to byte ${a.length + badFrame().length} could not be decoded: a block has the reserved block type`,
    );
    expect(m).toContain('the bad frame declared 20 more bytes of text');
    expect(m).toContain('Reading went on at the next frame');
    expect(r.diags[0]?.file).toBe('session.jsonl.zst');
    // One byte at a time: the same lines, the same report.
    expect(read(bytes, [1])).toEqual(r);
  });

  it('a compressed frame corrupted inside its data: the frames after it still load', () => {
    const frames = fixtureFrames();
    const plain = readFileSync(join(BAD_INPUT, 'frames.jsonl'), 'utf8').split('\n').slice(0, -1);
    const bad = Buffer.from(frames[3] as Buffer);
    bad.fill(0xff, 20, 40);
    const before = frames.slice(0, 3).reduce((n, f) => n + f.length, 0);
    const r = read(Buffer.concat([...frames.slice(0, 3), bad, frames[4] as Buffer]));
    // Frames 1–3 hold lines 1–4, frame 5 lines 7–9; frame 4 (lines 5–6) is lost.
    expect(values(r)).toEqual(parsed([...plain.slice(0, 4), ...plain.slice(6)]));
    expect(brief(r.diags)).toEqual([['READ_ZSTD', 'error', 5]]);
    expect(r.diags[0]?.message).toContain(`from byte ${before} to byte ${before + bad.length} could not be decoded`);
  });

  it('a line split by a corrupt frame is reported, not glued to the next frame', () => {
    // Joined, `{"b":` and `2}` would make the line {"b":2} that was never written.
    const a = rawFrame(Buffer.from('{"a":1}\n{"b":'));
    const c = rawFrame(Buffer.from('2}\n{"c":3}\n'));
    const r = read(Buffer.concat([a, badFrame(), c]));
    expect(values(r)).toEqual([{ a: 1 }, { c: 3 }]);
    expect(brief(r.diags)).toEqual([
      ['READ_ZSTD', 'error', 2],
      ['READ_INVALID_JSON', 'error', 3],
    ]);
    expect(r.diags[0]?.message).toContain('Line 2 was cut short there (5 bytes) and was skipped');
    expect(r.stats).toEqual({ bytes: 24, lines: 4, records: 2, skipped: 2 });
  });

  it('the magic number by chance after a bad frame is not taken for a frame', () => {
    // Two false starts: a block larger than its window, and a frame shorter than it declares.
    const fake1 = Buffer.concat([Buffer.from([...MAGIC, 0x20, 5]), blockHeader(true, 0, 90), Buffer.from('{"fake":1}\n')]);
    const fake2 = Buffer.concat([Buffer.from([...MAGIC, 0x20, 50]), blockHeader(true, 0, 12), Buffer.from('{"fake":2}\n\n')]);
    const a = rawFrame(text(lines(0, 2)));
    const c = rawFrame(text(lines(2, 4)));
    const bytes = Buffer.concat([a, badFrame(), fake1, Buffer.from('noise'), fake2, c]);
    const r = read(bytes);
    expect(values(r)).toEqual(parsed(lines(0, 4)));
    expect(brief(r.diags)).toEqual([['READ_ZSTD', 'error', 3]]);
    expect(r.diags[0]?.message).toContain(`from byte ${a.length} to byte ${bytes.length - c.length}`);
  });

  it('garbage between frames is skipped up to the next frame', () => {
    const a = rawFrame(text(lines(0, 2)));
    const junk = Buffer.from('not zstd at all\n{"x":1}\n');
    const r = read(Buffer.concat([a, junk, rawFrame(text(lines(2, 4)))]));
    expect(values(r)).toEqual(parsed(lines(0, 4)));
    expect(brief(r.diags)).toEqual([['READ_ZSTD', 'error', 3]]);
    expect(r.diags[0]?.message).toContain(
      `from byte ${a.length} to byte ${a.length + junk.length} could not be decoded: no zstd frame starts there`,
    );
  });

  it('a skippable frame is passed over, and the scan after a bad frame can resume at one', () => {
    const a = rawFrame(text(lines(0, 2)));
    const skip = skippable(Buffer.from('metadata'));
    const bytes = Buffer.concat([a, skip, badFrame(), skip, rawFrame(text(lines(2, 4)))]);
    const r = read(bytes);
    expect(values(r)).toEqual(parsed(lines(0, 4)));
    expect(brief(r.diags)).toEqual([['READ_ZSTD', 'error', 3]]);
    const bad = a.length + skip.length;
    expect(r.diags[0]?.message).toContain(`from byte ${bad} to byte ${bad + badFrame().length}`);
  });

  it('a truncated last frame keeps the blocks that decoded and reports the cut', () => {
    const a = rawFrame(text(lines(0, 2)));
    const last = rawFrame(text(lines(2, 40)), 500);
    const cut = Buffer.concat([a, last.subarray(0, 1200)]);
    const r = read(cut);
    // Blocks of 500 bytes: the first two arrived whole; the line they cut off is reported.
    const got = values(r);
    expect(got.slice(0, 2)).toEqual(parsed(lines(0, 2)));
    expect(got.length).toBeGreaterThan(2);
    expect(got).toEqual(parsed(lines(0, got.length)));
    expect(brief(r.diags)).toEqual([['READ_ZSTD', 'error', got.length + 1]]);
    expect(r.diags[0]?.message).toContain(
      `from byte ${a.length} to the end of the file could not be decoded: the file ends inside this frame`,
    );
    expect(r.diags[0]?.message).toContain('was cut short there');
  });

  it('a file that is all garbage after the magic number reads nothing, reports once, and ends', () => {
    let seed = 12345;
    const noise = Buffer.alloc(256 * 1024);
    for (let i = 0; i < noise.length; i++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      noise[i] = seed >>> 24;
    }
    const started = Date.now();
    const r = read(Buffer.concat([Buffer.from(MAGIC), noise]));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(r.lines).toEqual([]);
    expect(r.diags[0]?.rule).toBe('READ_ZSTD');
    expect(r.diags[0]?.message).toContain('from byte 0 to the end of the file could not be decoded');
    expect(r.diags.filter((d) => d.rule === 'READ_ZSTD')).toHaveLength(1);
  });

  it('magic numbers planted throughout a bad stretch cannot make the search quadratic', () => {
    // Period 1003: a raw block header at 0 and a frame header at 3 whose own block headers land
    // at 9 + k·1003. Every false start walks to the end of the file before it fails.
    const unit = Buffer.alloc(1003, 0x78);
    blockHeader(false, 0, 1000).copy(unit, 0);
    Buffer.from([...MAGIC, 0x00, 0x00]).copy(unit, 3);
    blockHeader(false, 0, 1000).copy(unit, 9);
    const bytes = Buffer.concat(Array.from({ length: 1000 }, () => unit));
    const started = Date.now();
    const r = read(bytes);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(r.lines).toEqual([]);
    expect(brief(r.diags)).toEqual([['READ_ZSTD', 'error', 1]]);
    expect(r.diags[0]?.message).toContain('the search for the next frame met too many false starts and stopped');
  }, 20_000);

  it('bad frames are read alike however the file is cut into chunks', () => {
    const a = rawFrame(text(lines(0, 3)));
    const files = [
      Buffer.concat([a, badFrame(), rawFrame(text(lines(3, 30)), 100)]),
      Buffer.concat([rawFrame(Buffer.from('{"a":1}\n{"b":')), Buffer.from('junk'), rawFrame(Buffer.from('2}\n'))]),
      Buffer.concat([a, skippable(Buffer.alloc(10)), rawFrame(text(lines(3, 30)), 100).subarray(0, 400)]),
    ];
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: files.length - 1 }),
        fc.array(fc.integer({ min: 1, max: 60 }), { minLength: 1, maxLength: 8 }),
        (i, sizes) => {
          const bytes = files[i] as Buffer;
          expect(read(bytes, sizes)).toEqual(read(bytes));
        },
      ),
      { numRuns: 80 },
    );
  });

  describe('on disk', () => {
    let dir = '';
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'palimpsest-hostile-zstd-'));
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it('lines after a corrupt frame are re-read at the offsets the reader gave', async () => {
      const path = join(dir, 'session.jsonl.zstd');
      await writeFile(path, Buffer.concat([rawFrame(Buffer.from('{"a":1}\n{"b":')), badFrame(), rawFrame(text(lines(0, 50)), 300)]));
      const r = await readAll(path, { chunkBytes: 7 });
      expect(values(r)).toEqual([{ a: 1 }, ...parsed(lines(0, 50))]);
      const source = new LineSource(path);
      try {
        for (const l of r.lines) {
          expect(await readLineAt(path, l.offset, l.length)).toEqual(l.value);
          expect(await source.read(l.offset, l.length)).toEqual(l.value);
        }
      } finally {
        await source.dispose();
      }
    });

    it('the frames built here are real zstd frames (checked with the zstd CLI when installed)', async (ctx) => {
      let cli = true;
      try {
        execFileSync('zstd', ['--version'], { stdio: 'ignore', timeout: 5000 });
      } catch {
        cli = false;
      }
      if (!cli) ctx.skip();
      const path = join(dir, 'built.jsonl.zst');
      await writeFile(path, Buffer.concat([rawFrame(text(lines(0, 3))), skippable(Buffer.from('x')), rawFrame(text(lines(3, 90)), 700)]));
      const out = execFileSync('zstd', ['-d', '-c', '-q', path], { timeout: 10_000 });
      expect(out.toString()).toBe(text(lines(0, 90)).toString());
    });
  });
});
