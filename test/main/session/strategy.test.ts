import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSession } from '../../../bench/generate';
import { chooseStrategy, staysCompact, type LoadOptions, type LoadStrategy } from '../../../src/main/session/strategy';

const dir = mkdtempSync(join(tmpdir(), 'palimpsest-strategy-'));
const path = join(dir, 'small.jsonl');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(() => {
  generateSession(path, { seed: 5, profile: 'small', targetEvents: 600 });
});

/** The strategy for the generated file; jobs a ranged strategy started are awaited so none outlives the test. */
async function strategyFor(options: LoadOptions, facts: { isDirectory?: boolean; path?: string } = {}): Promise<LoadStrategy> {
  const p = facts.path ?? path;
  const s = await chooseStrategy({ path: p, isDirectory: facts.isDirectory ?? false, size: statSync(path).size }, options, () => undefined);
  if (s.kind === 'ranges') await Promise.all(s.jobs.map((j) => j.result));
  return s;
}

describe('chooseStrategy', () => {
  it('follows the option that chooses the log, whatever the size', async () => {
    expect(await strategyFor({ compactLog: false, threads: 4 })).toEqual({ kind: 'array' });
    expect(await strategyFor({ compactLog: true, threads: 1 })).toEqual({ kind: 'compact', forced: true });
  });

  it('chooses the array log by size for a small file', async () => {
    const saved = process.env.PALIMPSEST_COMPACT_LOG;
    delete process.env.PALIMPSEST_COMPACT_LOG;
    try {
      expect(await strategyFor({ threads: 4 })).toEqual({ kind: 'array' });
    } finally {
      if (saved !== undefined) process.env.PALIMPSEST_COMPACT_LOG = saved;
    }
  });

  it('reads a plain file in ranges when it is large enough for the threads, and starts their jobs', async () => {
    const s = await strategyFor({ compactLog: true, threads: 3, parallel: { minBytes: 0, mode: 'inline', firstShare: 1 / 3 } });
    expect(s.kind).toBe('ranges');
    if (s.kind !== 'ranges') return;
    expect(s.ranges.length).toBe(3);
    expect(s.jobs.length).toBe(2);
    expect(s.ranges[2]?.end).toBe(statSync(path).size);
  });

  it('reads in ranges only a plain Palimpsest file on more than one thread', async () => {
    const parallel = { minBytes: 0, mode: 'inline' as const };
    expect((await strategyFor({ compactLog: true, threads: 1, parallel })).kind).toBe('compact');
    expect((await strategyFor({ compactLog: true, threads: 2, parallel, format: 'codex' })).kind).toBe('compact');
    expect((await strategyFor({ compactLog: true, threads: 2, parallel }, { path: `${path}.zst` })).kind).toBe('compact');
    expect((await strategyFor({ compactLog: true, threads: 2, parallel }, { isDirectory: true })).kind).toBe('compact');
    expect((await strategyFor({ compactLog: true, threads: 2, parallel: { mode: 'inline' } })).kind).toBe('compact');
  });
});

describe('staysCompact', () => {
  it('keeps a forced compact log, and drops one chosen by size when the importer keeps no line', () => {
    expect(staysCompact({ kind: 'array' }, true)).toBe(false);
    expect(staysCompact({ kind: 'compact', forced: true }, false)).toBe(true);
    expect(staysCompact({ kind: 'compact', forced: false }, false)).toBe(false);
    expect(staysCompact({ kind: 'compact', forced: false }, true)).toBe(true);
    expect(staysCompact({ kind: 'ranges', forced: false, ranges: [], jobs: [] }, false)).toBe(false);
  });
});
