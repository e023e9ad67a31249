import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSession } from '../../../bench/generate';
import { loadSession, type LoadOptions } from '../../../src/main/session/load';
import { firstShare, planRanges, readInRanges, WORKER_HEAD_START_BYTES, type RangeJob } from '../../../src/main/session/parallel-load';
import type { RangeResult } from '../../../src/main/session/range-load';
import type { LoadedSession } from '../../../src/main/session/types';
import { expectSameLoads, fixtureSessions, withoutWrittenSeqs } from './same-session';

const dir = mkdtempSync(join(tmpdir(), 'palimpsest-parallel-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Why the loading thread read a range itself (SessionFile.ranges.readHere). */
const CANNOT_GO_ON = 'the import cannot go on from where the range starts';
const NOT_OURS = 'the format read is not one whose ranges workers read';

/** One thread: the load every ranged load must equal. */
const ONE: LoadOptions = { compactLog: true, threads: 1 };

/**
 * In `threads` ranges of about equal size, whatever the file's size (the default gives this thread
 * a head start of bytes that a small file does not have); the later ranges read on this thread
 * through a structured clone, as a worker's would be.
 */
const ranged = (threads: number, more: LoadOptions = {}): LoadOptions => ({
  compactLog: true,
  threads,
  ...more,
  parallel: { minBytes: 0, mode: 'inline', firstShare: 1 / threads, ...more.parallel },
});

/** Loads `path` in ranges and on one thread, checks they agree, and returns how the ranged load read the file. */
async function rangesOf(path: string, options: LoadOptions): Promise<LoadedSession['files'][number]['ranges'] | null> {
  return expectSameLoads(
    path,
    options,
    { ...ONE, maxLineBytes: options.maxLineBytes, chunkBytes: options.chunkBytes, format: options.format },
    (g) => g.files[0]?.ranges,
  );
}

/** The lines of a generated session, to change before writing them out again. */
let base: string[] = [];
beforeAll(() => {
  const path = join(dir, 'base.jsonl');
  generateSession(path, { seed: 11, profile: 'small', targetEvents: 2_400 });
  base = readFileSync(path, 'utf8').split('\n');
  expect(base.pop()).toBe('');
});

/** Writes `lines` (a changed copy of the base session) as a file; `eol` ends each line. */
function write(name: string, lines: readonly string[], eol = '\n'): string {
  const path = join(dir, name);
  writeFileSync(path, lines.join(eol) + eol);
  return path;
}

/** The base session with line `at` (0-based, three quarters in unless given) replaced by `line`. */
function withLine(name: string, line: string, at = Math.floor(base.length * 0.75)): string {
  const lines = [...base];
  lines[at] = line;
  return write(name, lines);
}

describe('parallel load', () => {
  describe('every fixture session loads in ranges as on one thread', () => {
    for (const path of fixtureSessions()) {
      it(path, async () => {
        for (const threads of [2, 3, 7]) await rangesOf(path, ranged(threads));
        if (path.startsWith('fixtures/palimpsest/') && path.endsWith('.jsonl')) {
          // Written seqs in line order (anchored ranges) and none at all: workers take ranges both ways.
          for (const p of [path, withoutWrittenSeqs(path, dir)]) {
            const r = await rangesOf(p, ranged(3));
            if (readFileSync(p, 'utf8').split('\n').length > 40) expect(r?.byWorkers).toBeGreaterThan(0);
          }
        }
      });
    }
  });

  it('takes every range of a clean session from the workers', async () => {
    const path = write('clean.jsonl', base);
    for (const threads of [2, 4])
      expect(await rangesOf(path, ranged(threads))).toEqual({ count: threads, byWorkers: threads - 1, readHere: [] });
    expect(await rangesOf(path, ranged(4, { chunkBytes: 4_096 }))).toEqual({ count: 4, byWorkers: 3, readHere: [] });
  });

  it('reads with real worker threads, reporting progress that never goes back and ends at the size', async () => {
    const path = write('workers.jsonl', base);
    const seen: number[] = [];
    const r = await rangesOf(path, {
      compactLog: true,
      threads: 3,
      parallel: { minBytes: 0, mode: 'worker', firstShare: 1 / 3 },
      onBytes: (n) => seen.push(n),
    });
    expect(r).toEqual({ count: 3, byWorkers: 2, readHere: [] });
    expect(seen.length).toBeGreaterThan(0);
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThan(seen[i - 1] as number);
    expect(seen.at(-1)).toBe(statSync(path).size);
  });

  it('takes written seqs that count on in line order, and reads a range whose seqs are out of step on this thread', async () => {
    const numbered = base.map((l, i) => JSON.stringify({ ...(JSON.parse(l) as object), seq: i }));
    const numberedPath = write('numbered.jsonl', numbered);
    expect(await rangesOf(numberedPath, ranged(4))).toEqual({ count: 4, byWorkers: 3, readHere: [] });
    // From the second range on, every seq is 5 too many: the range's lines agree among themselves,
    // but not with where the range starts, which only this thread knows. The one-thread load
    // reports it (PALIMPSEST_SEQ) and maps references through the written seqs.
    const split = { threads: 2, firstShare: 0.6 };
    const cut = (await planRanges(numberedPath, statSync(numberedPath).size, split.threads, 16, split.firstShare))?.[1]?.start ?? 0;
    const firstOfRange = readFileSync(numberedPath).subarray(0, cut).toString('utf8').split('\n').length - 1;
    // Past line 1,000, adding 5 keeps every seq's digits, so the cut stays where it was.
    expect(firstOfRange).toBeGreaterThan(1_000);
    const shifted = numbered.map((l, i) => (i < firstOfRange ? l : JSON.stringify({ ...(JSON.parse(l) as object), seq: i + 5 })));
    const shiftedPath = write('shifted.jsonl', shifted);
    expect((await planRanges(shiftedPath, statSync(shiftedPath).size, split.threads, 16, split.firstShare))?.[1]?.start).toBe(cut);
    const options = ranged(split.threads, { parallel: { minBytes: 0, mode: 'inline', firstShare: split.firstShare } });
    expect(await rangesOf(shiftedPath, options)).toEqual({ count: 2, byWorkers: 0, readHere: [CANNOT_GO_ON] });
  });

  it('reads a range on this thread when its own seqs fall out of step partway', async () => {
    const numbered = base.map((l, i) => JSON.stringify({ ...(JSON.parse(l) as object), seq: i < base.length * 0.6 ? i : i + 5 }));
    // The cut is at about 30 %, the step at 60 %: inside the worker's range.
    const r = await rangesOf(write('step.jsonl', numbered), ranged(2, { parallel: { minBytes: 0, mode: 'inline', firstShare: 0.3 } }));
    expect(r).toEqual({ count: 2, byWorkers: 0, readHere: [expect.stringMatching(/writes a seq out of step/)] });
  });

  it('reads the rest on this thread once the first range diverged from line order (references are then mapped)', async () => {
    const numbered = base.map((l, i) => JSON.stringify({ ...(JSON.parse(l) as object), seq: i === 20 ? 50_000 : i }));
    const at = Math.floor(base.length * 0.8);
    // A later line quotes the line that wrote 50000: the one-thread load maps it to seq 20.
    numbered[at] = JSON.stringify({
      kind: 'item',
      seq: at,
      sources: [50_000],
      item: { id: 'quote', role: 'user', blocks: [{ type: 'text', text: 'Quoting line 21.' }] },
    });
    const path = write('diverged.jsonl', numbered);
    expect(await rangesOf(path, ranged(4))).toEqual({ count: 4, byWorkers: 0, readHere: [CANNOT_GO_ON, CANNOT_GO_ON, CANNOT_GO_ON] });
    const s = await loadSession(path, ranged(4));
    try {
      const quote = s.events.at(at);
      expect(quote?.kind === 'item' ? quote.sources : null).toEqual([20]);
    } finally {
      await s.dispose();
    }
  });

  describe('a range with something to report is read on this thread, which reports it as one thread does', () => {
    const cases: Record<string, readonly [RegExp, () => string]> = {
      'invalid JSON': [/READ_INVALID_JSON/, () => withLine('bad-json.jsonl', '{"kind": "item", ')],
      'a JSON value that is not an object': [/READ_NOT_OBJECT/, () => withLine('array.jsonl', '[1, 2]')],
      'a blank line': [/READ_BLANK_LINES/, () => withLine('blank.jsonl', '   ')],
      'an unknown kind': [/not a valid Palimpsest v1 event/, () => withLine('unknown.jsonl', '{"kind":"assistant/chunk","text":"hi"}')],
      'an invalid event': [
        /not a valid Palimpsest v1 event/,
        () => withLine('invalid.jsonl', '{"kind":"item","item":{"id":"","role":"user","blocks":[]}}'),
      ],
      'a later version on a session line': [
        /names a format version other than 1/,
        () => withLine('version.jsonl', JSON.stringify({ ...(JSON.parse(base[0] as string) as object), version: 2 })),
      ],
      'invalid UTF-8': [
        /READ_INVALID_UTF8/,
        () => {
          const path = withLine('utf8.jsonl', '{"kind":"record","type":"hook","summary":"XX"}');
          const bytes = readFileSync(path);
          const at = bytes.indexOf('"XX"');
          bytes[at + 1] = 0xc3;
          bytes[at + 2] = 0x28;
          writeFileSync(path, bytes);
          return path;
        },
      ],
      'CRLF line ends from the middle on': [
        /READ_CRLF/,
        () => {
          const half = Math.floor(base.length / 2);
          return write('crlf.jsonl', [base.slice(0, half).join('\n'), base.slice(half).join('\r\n')], '\r\n');
        },
      ],
      'a last line cut short': [
        /READ_TRUNCATED_LINE/,
        () => {
          const path = join(dir, 'truncated.jsonl');
          writeFileSync(path, base.join('\n') + '\n{"kind":"item","item":{"id":"x');
          return path;
        },
      ],
    };
    for (const [name, [why, make]] of Object.entries(cases)) {
      it(name, async () => {
        const r = await rangesOf(make(), ranged(4));
        expect(r?.count).toBe(4);
        expect(r?.readHere).toContainEqual(expect.stringMatching(why));
        expect((r?.byWorkers ?? 0) + (r?.readHere.length ?? 0)).toBe(3);
      });
    }

    it('a line over the line limit', async () => {
      const path = withLine('long-line.jsonl', JSON.stringify({ kind: 'record', type: 'hook', summary: 'x'.repeat(5_000) }));
      const r = await rangesOf(path, ranged(4, { maxLineBytes: 4_096 }));
      expect(r?.readHere).toContainEqual(expect.stringMatching(/READ_LINE_TOO_LONG/));
    });
  });

  it('reads every range on this thread when the file is not a Palimpsest session', async () => {
    // Sessions long enough for ranges: the workers' Palimpsest import refuses, and so does the loader.
    for (const path of [
      'fixtures/dsh/apps/web/tests/snapshots/goal-multi-turn-actions/session.jsonl',
      'fixtures/codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl',
    ]) {
      expect(await rangesOf(path, ranged(3))).toEqual({ count: 3, byWorkers: 0, readHere: [NOT_OURS, NOT_OURS] });
    }
  });

  it('gives the one-thread load for any number of ranges, share of the first and read size (property)', async () => {
    const path = write('property.jsonl', base.slice(0, 700));
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 9 }),
        fc.double({ min: 0.01, max: 0.99, noNaN: true }),
        fc.constantFrom(64, 1_000, 65_536),
        async (threads, firstShare, chunkBytes) => {
          const r = await rangesOf(path, ranged(threads, { chunkBytes, parallel: { minBytes: 0, mode: 'inline', firstShare } }));
          expect(r?.byWorkers).toBe((r?.count ?? 1) - 1);
        },
      ),
      { numRuns: 15 },
    );
  });
});

describe('readInRanges', () => {
  it('stops a worker that has gone silent and reads its range on this thread', async () => {
    const path = write('stalled.jsonl', base.slice(0, 400));
    const size = statSync(path).size;
    const ranges = (await planRanges(path, size, 2, 16, 0.5)) ?? [];
    expect(ranges).toHaveLength(2);
    let cancelled = 0;
    // A hung worker: no result, no message, ever.
    const hung: RangeJob = {
      range: ranges[1] as RangeJob['range'],
      result: new Promise<RangeResult>(() => undefined),
      cancel: () => void cancelled++,
      lastHeard: () => 0,
    };
    const lines: number[] = [];
    const diagnostics: unknown[] = [];
    const t0 = performance.now();
    const read = await readInRanges(
      path,
      ranges,
      [hung],
      (l) => lines.push(l.line),
      (d) => diagnostics.push(d),
      {},
      () => true,
      () => {
        throw new Error('a refused range is never taken');
      },
      { report: () => undefined },
      50,
    );
    expect(performance.now() - t0).toBeLessThan(5_000);
    expect(cancelled).toBeGreaterThan(0);
    expect(read.readHere).toEqual(['the worker sent nothing for 50 ms']);
    expect(read.stats).toMatchObject({ lines: 400, records: 400, skipped: 0, bytes: size });
    expect(lines).toEqual(Array.from({ length: 400 }, (_, i) => i + 1));
    expect(diagnostics).toEqual([]);
  });
});

describe('firstShare', () => {
  it('gives this thread a head start of WORKER_HEAD_START_BYTES over each worker, and the whole of a file too small for one', () => {
    const size = 400 * 1024 * 1024;
    for (const threads of [2, 3, 4]) {
      const first = firstShare(threads, size) * size;
      const worker = (size - first) / (threads - 1);
      expect(first - worker).toBeCloseTo(WORKER_HEAD_START_BYTES, 0);
    }
    expect(firstShare(2, WORKER_HEAD_START_BYTES / 2)).toBe(1);
    expect(firstShare(1, size)).toBe(1);
  });
});

describe('planRanges', () => {
  it('cuts a file at line starts into contiguous ranges, the first holding the lines sniffing reads', async () => {
    const path = write('plan.jsonl', base.slice(0, 300));
    const bytes = readFileSync(path);
    for (const threads of [2, 3, 5, 50]) {
      for (const first of [0.01, 0.5, 0.99]) {
        const ranges = await planRanges(path, bytes.length, threads, 16, first);
        expect(ranges).not.toBeNull();
        const rs = ranges ?? [];
        expect(rs.length).toBeGreaterThan(1);
        expect(rs.length).toBeLessThanOrEqual(threads);
        expect(rs[0]?.start).toBe(0);
        expect(rs.at(-1)?.end).toBe(bytes.length);
        for (let k = 1; k < rs.length; k++) {
          expect(rs[k]?.start).toBe(rs[k - 1]?.end);
          expect(rs[k]?.start).toBeLessThan(rs[k]?.end ?? 0);
          expect(bytes[(rs[k]?.start ?? 0) - 1]).toBe(0x0a);
        }
        const firstLines = bytes.subarray(0, rs[0]?.end).toString('utf8').split('\n').length - 1;
        expect(firstLines).toBeGreaterThanOrEqual(16);
      }
    }
  });

  it('does not cut a file of fewer lines than sniffing reads, or one thread', async () => {
    const path = write('short.jsonl', base.slice(0, 16));
    expect(await planRanges(path, statSync(path).size, 4, 17)).toBeNull();
    expect(await planRanges(path, statSync(path).size, 1, 4)).toBeNull();
  });

  it('loads a large-enough file on one thread when no workers are wanted', async () => {
    const path = write('one-thread.jsonl', base);
    const s = await loadSession(path, { compactLog: true, threads: 1, parallel: { minBytes: 0, mode: 'inline', firstShare: 0.5 } });
    try {
      expect(s.files[0]?.ranges).toBeUndefined();
    } finally {
      await s.dispose();
    }
  });
});
