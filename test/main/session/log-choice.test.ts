import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMPACT_LOG_MIN_BYTES, defaultLogPlan, LONG_LINE_BYTES, meanLineBytes } from '../../../src/main/session/log-choice';

const dir = mkdtempSync(join(tmpdir(), 'palimpsest-log-choice-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A file of `count` lines of exactly `length` bytes each (the LF included). */
function lines(name: string, length: number, count: number): string {
  const path = join(dir, name);
  const line = `{"kind":"record","type":"t","summary":"${'x'.repeat(length - 42)}"}\n`;
  expect(Buffer.byteLength(line)).toBe(length);
  writeFileSync(path, line.repeat(count));
  return path;
}

describe('meanLineBytes', () => {
  it('measures the mean line of a file from samples spread over it', async () => {
    const path = lines('short.jsonl', 200, 20_000);
    expect(await meanLineBytes(path, 200 * 20_000)).toBe(200);
  });

  it('says nothing of a file without a line end, or of a file that is not there', async () => {
    const path = join(dir, 'one-line.jsonl');
    writeFileSync(path, '{"kind":"record"}');
    expect(await meanLineBytes(path, 17)).toBeNull();
    expect(await meanLineBytes(join(dir, 'missing.jsonl'), 1_000)).toBeNull();
  });
});

describe('defaultLogPlan', () => {
  const short = lines('plan-short.jsonl', 300, 2_000);
  const long = lines('plan-long.jsonl', 3 * LONG_LINE_BYTES, 200);

  it('reads a large plain file of short lines in parallel into the compact log', async () => {
    // Sizes are given: the samples past the end of the file read nothing.
    for (const size of [COMPACT_LOG_MIN_BYTES, 2 ** 31])
      expect(await defaultLogPlan(short, false, size, 2)).toEqual({ compact: true, reason: 'large, short lines' });
  });

  it('keeps the array log for a small file, one thread, a directory or a compressed file', async () => {
    expect(await defaultLogPlan(short, false, COMPACT_LOG_MIN_BYTES - 1, 4)).toEqual({ compact: false, reason: 'small' });
    expect(await defaultLogPlan(short, false, COMPACT_LOG_MIN_BYTES, 1)).toEqual({ compact: false, reason: 'one thread' });
    expect((await defaultLogPlan(dir, true, 2 ** 31, 4)).compact).toBe(false);
    expect((await defaultLogPlan(`${short}.zst`, false, 2 ** 31, 4)).compact).toBe(false);
  });

  it('keeps the array log for a file of long lines, or one it cannot sample', async () => {
    expect(await defaultLogPlan(long, false, COMPACT_LOG_MIN_BYTES, 4)).toEqual({ compact: false, reason: 'long lines' });
    expect(await defaultLogPlan(join(dir, 'gone.jsonl'), false, COMPACT_LOG_MIN_BYTES, 4)).toEqual({
      compact: false,
      reason: 'no line measured',
    });
  });
});
