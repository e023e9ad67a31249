import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { claudeCodeImporter } from '../../../src/main/importers/claude-code';
import { codexImporter } from '../../../src/main/importers/codex';
import { SessionInspector } from '../../../src/main/session/inspector';
import { loadSession } from '../../../src/main/session/load';
import type { LoadedSession } from '../../../src/main/session/types';
import { shownOf } from './same-session';

/*
 * A session read on (src/main/session/read-on.ts) equals a fresh load of the same bytes: every
 * event and its location, every file's counts, every finding, and the model view and fates of
 * every request on every branch. Real sessions are appended in pieces cut at arbitrary bytes
 * (mid-line too: a partial last line waits for its end), and each whole state is compared.
 */

const CC = 'fixtures/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl';
const CC_SUBAGENT = 'fixtures/claude-code/4d5611e5-241a-462a-8d15-5122611a9569/subagents/agent-a2898e3.jsonl';
const CODEX = 'fixtures/codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl';

/** Cut points of `n` bytes into `pieces` pieces at arbitrary (seeded) bytes. */
function cuts(n: number, pieces: number, seed: number): number[] {
  let x = seed;
  const next = (): number => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * n;
  return [...new Set(Array.from({ length: pieces - 1 }, next).map(Math.floor))].filter((c) => c > 0).sort((a, b) => a - b);
}

describe('reading a followed session on', () => {
  let dir: string;
  const open: LoadedSession[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'palimpsest-read-on-'));
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.dispose()));
    rmSync(dir, { recursive: true, force: true });
  });
  const keep = (s: LoadedSession): LoadedSession => (open.push(s), s);

  /**
   * Writes `source`'s bytes to `file` in pieces, from `start` on; after each, reads the session on
   * from the last one (or, at the end of a line, loads it again when it cannot), and compares every
   * state that ends with a whole line with a fresh load. Returns how many of the pieces were read on.
   */
  async function follow(sessionPath: string, file: string, source: Buffer, start: number, pieces: number, seed: number): Promise<number> {
    writeFileSync(file, source.subarray(0, start));
    let current = keep(await loadSession(sessionPath, { resumable: true }));
    expect(current.readOn).toBeTypeOf('function');
    let readOn = 0;
    const points = [...cuts(source.length - start, pieces, seed).map((c) => c + start), source.length];
    let from = start;
    for (const to of points) {
      appendFileSync(file, source.subarray(from, to));
      from = to;
      const next = await current.readOn?.();
      const whole = source[to - 1] === 0x0a;
      if (next) {
        readOn++;
        current = keep(next);
      } else if (whole) current = keep(await loadSession(sessionPath, { resumable: true }));
      // As a follower does, a piece that ends mid-line with no whole line in it waits for its end.
      if (!whole) continue;
      const fresh = keep(await loadSession(sessionPath));
      expect(shownOf(new SessionInspector(current))).toEqual(shownOf(new SessionInspector(fresh)));
    }
    return readOn;
  }

  /** The byte after the `n`th line feed of `b`. */
  const afterLine = (b: Buffer, n: number): number => {
    let at = 0;
    for (let k = 0; k < n; k++) at = b.indexOf(0x0a, at) + 1;
    return at;
  };

  it('reads a Claude Code session with a compaction on, piece by piece, as a fresh load reads it', async () => {
    const source = readFileSync(CC);
    const file = join(dir, 'session.jsonl');
    // From before the compaction (line 754) to the end, in 12 pieces.
    const n = await follow(file, file, source, afterLine(source, 700), 12, 7);
    expect(n).toBeGreaterThanOrEqual(9);
  });

  it('reads a Codex rollout with compactions on, piece by piece, as a fresh load reads it', async () => {
    const source = readFileSync(CODEX);
    expect(source.toString('utf8')).toContain('"type":"compacted"');
    const file = join(dir, 'rollout.jsonl');
    const n = await follow(file, file, source, afterLine(source, 40), 12, 11);
    expect(n).toBeGreaterThanOrEqual(9);
  });

  it('reads on a subagent file that grows while the main file waits, and loads again when the main file grows', async () => {
    const main = join(dir, 'session.jsonl');
    mkdirSync(join(dir, 'session', 'subagents'), { recursive: true });
    const sub = join(dir, 'session', 'subagents', 'agent-a2898e3.jsonl');
    cpSync(CC, main);
    const source = readFileSync(CC_SUBAGENT);
    const n = await follow(main, sub, source, afterLine(source, 20), 8, 3);
    expect(n).toBeGreaterThanOrEqual(5);
    // The main file is not the last file read: appending to it reads the session again.
    const before = keep(await loadSession(main, { resumable: true }));
    appendFileSync(main, readFileSync(CC, 'utf8').split('\n')[5] + '\n');
    expect(await before.readOn?.()).toBeNull();
  });

  it('loads again when a line cannot be read, or the session was read on since', async () => {
    const source = readFileSync(CC);
    const file = join(dir, 'session.jsonl');
    writeFileSync(file, source.subarray(0, afterLine(source, 100)));
    const first = keep(await loadSession(file, { resumable: true }));
    appendFileSync(file, source.subarray(afterLine(source, 100), afterLine(source, 110)));
    const second = await first.readOn?.();
    expect(second).toBeTruthy();
    keep(second as LoadedSession);
    // The first session's import has gone past it.
    expect(await first.readOn?.()).toBeNull();
    appendFileSync(file, '{"type": broken\n');
    expect(await (second as LoadedSession).readOn?.()).toBeNull();
  });

  it('does not read on a session loaded without asking, or of a format that does not', async () => {
    const file = join(dir, 'session.jsonl');
    writeFileSync(file, readFileSync(CC));
    expect(keep(await loadSession(file)).readOn).toBeUndefined();
    const palimpsest = join(dir, 'p.jsonl');
    writeFileSync(palimpsest, readFileSync('fixtures/palimpsest/compaction-lifecycle.jsonl'));
    expect(keep(await loadSession(palimpsest, { resumable: true })).readOn).toBeUndefined();
  });

  /** The paths to byte arrays in the object graph of `root`, not going into `skip` (the log it writes into). */
  function byteArraysIn(root: object, skip: object): string[] {
    const found: string[] = [];
    const seen = new Set<unknown>([skip]);
    const todo: [unknown, string][] = [[root, '']];
    for (let next = todo.pop(); next; next = todo.pop()) {
      const [v, at] = next;
      if (typeof v !== 'object' || v === null || seen.has(v)) continue;
      seen.add(v);
      if (ArrayBuffer.isView(v) || v instanceof ArrayBuffer) found.push(at);
      else if (v instanceof Map) for (const [k, x] of v) todo.push([k, `${at}<key>`], [x, `${at}.get()`]);
      else if (v instanceof Set) for (const x of v) todo.push([x, `${at}<member>`]);
      else for (const k of Object.keys(v)) todo.push([(v as Record<string, unknown>)[k], `${at}.${k}`]);
    }
    return found;
  }

  it("keeps no bytes of a line in the import it keeps open (they would hold the reader's chunk)", async () => {
    const kept: { state: object; sink: object }[] = [];
    const openSession = claudeCodeImporter.openSession?.bind(claudeCodeImporter);
    const openFile = codexImporter.open.bind(codexImporter);
    vi.spyOn(claudeCodeImporter, 'openSession').mockImplementation((sink) => {
      const state = (openSession as NonNullable<typeof openSession>)(sink);
      kept.push({ state, sink });
      return state;
    });
    vi.spyOn(codexImporter, 'open').mockImplementation((file, sink) => {
      const state = openFile(file, sink);
      kept.push({ state, sink });
      return state;
    });
    try {
      for (const source of [CC, CODEX]) {
        const file = join(dir, basename(source));
        writeFileSync(file, readFileSync(source));
        kept.length = 0;
        const loaded = keep(await loadSession(file, { resumable: true }));
        expect(loaded.readOn).toBeTypeOf('function');
        expect(kept).toHaveLength(1);
        const { state, sink } = kept[0] as { state: object; sink: object };
        expect(byteArraysIn(state, sink)).toEqual([]);
      }
    } finally {
      vi.restoreAllMocks();
    }
  });
});
