import { describe, expect, it } from 'vitest';
import { ByteArena, FIRST_CHUNK_BYTES, MAX_CHUNK_BYTES } from '../../../src/main/session/byte-arena';

const bytes = (s: string): Buffer => Buffer.from(s, 'utf8');

describe('ByteArena', () => {
  it('gives back each put range as the text it encodes, by ref in put order, across many chunks and table growths', () => {
    const arena = new ByteArena();
    const texts: string[] = [];
    for (let i = 0; i < 5_000; i++) texts.push(`{"n":${i},"t":"${'é日😀x'.repeat(i % 97)}"}`);
    // Each put reads a range inside a larger buffer that is overwritten right after, as the reader's is.
    const scratch = Buffer.alloc(64 * 1024);
    texts.forEach((t, i) => {
      const b = bytes(t);
      b.copy(scratch, 7);
      expect(arena.put(scratch, 7, 7 + b.length)).toBe(i);
      scratch.fill(0xff);
    });
    expect(arena.size).toBe(texts.length);
    arena.trim();
    texts.forEach((t, i) => expect(arena.text(i)).toBe(t));
  });

  it('starts with a small chunk, doubles it up to the largest size, and stays there', () => {
    const arena = new ByteArena();
    expect(arena.allocatedBytes).toBe(0);
    const line = Buffer.alloc(1000, 0x61);
    arena.put(line, 0, line.length);
    expect(arena.allocatedBytes).toBe(FIRST_CHUNK_BYTES);
    // 40 MB: chunks of 64 KiB, 128 KiB, … 16 MiB, then 16 MiB more: about 1.2× what they hold
    // (doubling without a cap would reach 1.6×, chunks that never grow would be hundreds).
    const total = 40_000_000;
    for (let put = line.length; put < total; put += line.length) arena.put(line, 0, line.length);
    expect(arena.chunkCount).toBeLessThanOrEqual(11);
    expect(arena.allocatedBytes).toBeLessThan(1.3 * total);
    expect(arena.text(arena.size - 1)).toBe('a'.repeat(1000));
  });

  it('keeps an empty range, and a line longer than a chunk in a chunk of its own, with the lines around it intact', () => {
    const arena = new ByteArena();
    const before = arena.put(bytes('abc'), 0, 3);
    const empty = arena.put(bytes('abc'), 1, 1);
    const long = 'z'.repeat(MAX_CHUNK_BYTES + 5);
    const big = arena.put(bytes(long), 0, long.length);
    const after = arena.put(bytes('{"é":1}'), 0, bytes('{"é":1}').length);
    expect([arena.text(before), arena.text(empty), arena.text(big) === long, arena.text(after)]).toEqual(['abc', '', true, '{"é":1}']);
    expect(arena.allocatedBytes).toBeGreaterThanOrEqual(FIRST_CHUNK_BYTES + long.length);
  });

  it('decodes invalid UTF-8 as the reader does (replacement characters)', () => {
    const arena = new ByteArena();
    const raw = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]);
    expect(arena.text(arena.put(raw, 0, raw.length))).toBe(raw.toString('utf8'));
  });

  it('refuses ranges outside the buffer and refs it does not have', () => {
    const arena = new ByteArena();
    expect(() => arena.put(bytes('abc'), 2, 1)).toThrow(RangeError);
    expect(() => arena.put(bytes('abc'), 0, 4)).toThrow(RangeError);
    arena.put(bytes('abc'), 0, 3);
    for (const bad of [-1, 1, 0.5, Number.NaN]) expect(() => arena.text(bad)).toThrow(RangeError);
  });

  it('gives up the unused end of its last chunk when trimmed, and goes on in a new chunk', () => {
    const arena = new ByteArena();
    const refs = Array.from({ length: 100 }, (_, i) => arena.put(bytes(`line ${i}`), 0, `line ${i}`.length));
    expect(arena.allocatedBytes).toBe(FIRST_CHUNK_BYTES);
    arena.trim();
    const used = refs.reduce((n, r) => n + arena.text(r).length, 0);
    expect(arena.allocatedBytes).toBe(used);
    const next = arena.put(bytes('after'), 0, 5);
    expect(arena.chunkCount).toBe(2);
    expect(refs.map((r) => arena.text(r))).toEqual(refs.map((_, i) => `line ${i}`));
    expect(arena.text(next)).toBe('after');
  });

  it('takes the entries of another arena after its own, its chunks as they are', () => {
    const a = new ByteArena();
    const b = new ByteArena();
    a.put(bytes('a0'), 0, 2);
    b.put(bytes('b0'), 0, 2);
    b.put(bytes('b1 é'), 0, bytes('b1 é').length);
    // Through a structured clone, as from a worker: Buffers come back as Uint8Arrays.
    const part = structuredClone(b.export());
    expect(a.adopt(part)).toBe(1);
    const after = a.put(bytes('a1'), 0, 2);
    expect([0, 1, 2, after].map((r) => a.text(r))).toEqual(['a0', 'b0', 'b1 é', 'a1']);
    expect(a.size).toBe(4);
  });
});
