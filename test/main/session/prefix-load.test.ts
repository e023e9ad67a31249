import { copyFileSync, mkdtempSync, rmSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureClaudeBig } from '../../../bench/claude';
import { loadSession } from '../../../src/main/session/load';
import { expectSameEvents, expectSameSessions } from './same-session';

/*
 * A load of a file's first lines (LoadOptions.prefixBytes), for the first view of a large session,
 * and a load stopped by its signal: on a real Claude Code session twice over, built as the bench
 * builds its large one.
 */

const dir = mkdtempSync(join(tmpdir(), 'palimpsest-prefix-'));
let big: string;

beforeAll(() => {
  big = ensureClaudeBig(dir, 5_000_000);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a load of the first lines of a file', () => {
  it.each([
    ['the array log', false],
    ['the compact log', true],
  ])(
    'is the session of the file cut after those lines, and says so (%s)',
    async (_log, compactLog) => {
      const path = join(dir, `cut-${compactLog}.jsonl`);
      copyFileSync(big, path);
      const prefix = await loadSession(path, { prefixBytes: 2_000_000, compactLog });
      try {
        expect(prefix.prefix?.total).toBe(statSync(path).size);
        const read = prefix.prefix?.read ?? 0;
        expect(read).toBeGreaterThanOrEqual(2_000_000);
        // This file is the test's own copy: cutting it is how the reference is made.
        truncateSync(path, read);
        const cut = await loadSession(path, { compactLog });
        try {
          expect(cut.prefix).toBeUndefined();
          expectSameEvents(prefix, cut);
          // The array log answers at(-1) as an array does: the whole comparison is the compact log's.
          if (compactLog) expectSameSessions(prefix, cut);
        } finally {
          await cut.dispose();
        }
      } finally {
        await prefix.dispose();
      }
    },
    120_000,
  );

  it('stops when its signal is aborted', async () => {
    const abort = new AbortController();
    let reads = 0;
    const load = loadSession(big, {
      signal: abort.signal,
      chunkBytes: 64 * 1024,
      onBytes: () => {
        if (++reads === 2) abort.abort(new Error('closed'));
      },
    });
    await expect(load).rejects.toThrow('closed');
    expect(reads).toBe(2);
  }, 60_000);
});
