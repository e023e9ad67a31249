import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMPACT_LOG_MIN_BYTES, defaultLogPlan, LARGE_FILE_BYTES, LONG_LINE_BYTES, meanLineBytes } from '../../../src/main/session/log-choice';

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

  it('reads a large plain file in parallel into the compact log', async () => {
    expect((await defaultLogPlan(short, false, COMPACT_LOG_MIN_BYTES, 2)).compact).toBe(true);
    // The largest files too, when their lines are short (sizes are given: the samples past the end read nothing).
    expect((await defaultLogPlan(short, false, LARGE_FILE_BYTES, 4)).compact).toBe(true);
  });

  it('keeps the array log for a small file, one thread, a directory or a compressed file', async () => {
    expect(await defaultLogPlan(short, false, COMPACT_LOG_MIN_BYTES - 1, 4)).toEqual({ compact: false, reason: 'small' });
    expect(await defaultLogPlan(short, false, COMPACT_LOG_MIN_BYTES, 1)).toEqual({ compact: false, reason: 'one thread' });
    expect((await defaultLogPlan(dir, true, LARGE_FILE_BYTES, 4)).compact).toBe(false);
    expect((await defaultLogPlan(`${short}.zst`, false, LARGE_FILE_BYTES, 4)).compact).toBe(false);
  });

  it('keeps the array log for the largest files of long lines, not for smaller ones', async () => {
    expect(await defaultLogPlan(long, false, LARGE_FILE_BYTES, 4)).toEqual({ compact: false, reason: 'large, long lines' });
    expect((await defaultLogPlan(long, false, LARGE_FILE_BYTES - 1, 4)).compact).toBe(true);
  });
});
