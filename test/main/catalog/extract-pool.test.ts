import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pathToFileURL } from 'node:url';
import type { Database } from '../../../src/main/catalog/db';
import { extractSession } from '../../../src/main/catalog/extract';
import { readInOrder, sessionReader } from '../../../src/main/catalog/extract-pool';
import { SessionCatalog, type UpdateOptions } from '../../../src/main/catalog/update';
import { CLAUDE_PROJECT, CODEX_DAY, harnessEnv, HOME, placeFixtures } from '../fake-home';

/*
 * The session index read on worker threads (extract-pool.ts) against the same read on this thread,
 * over real fixture sessions: Claude Code sessions of several shapes (compactions, rewinds, tool
 * calls, subagents) and the Codex rollouts.
 */

const CC = 'fixtures/claude-code';
// The last with its folder of subagent sessions.
const CC_FILES = [
  'short.jsonl',
  'tool_heavy.jsonl',
  'dag_compact_after_rewind_preserved.jsonl',
  'microcompact.jsonl',
  '4d5611e5-241a-462a-8d15-5122611a9569.jsonl',
];
const CODEX = [
  'rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl',
  'rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl',
  'rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl',
];

let base = '';
let project = '';

const options = (threads: number): UpdateOptions => ({
  ...harnessEnv(base),
  harnesses: ['claude-code', 'codex'],
  content: true,
  extract: extractSession,
  threads,
  // Workers for any size: the fixtures are far below the size that starts them by default.
  parallelMinBytes: 0,
});

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'palimpsest-extract-pool-'));
  project = join(base, CLAUDE_PROJECT);
  placeFixtures(base, {
    [CLAUDE_PROJECT]: [...CC_FILES, '4d5611e5-241a-462a-8d15-5122611a9569'].map((f) => join(CC, f)),
    [CODEX_DAY]: CODEX.map((f) => join('fixtures', 'codex', f)),
    [HOME]: [],
  });
});

afterEach(() => rmSync(base, { recursive: true, force: true }));

/** Every row of every table the content step writes, in rowid order. */
function dump(db: Database): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const [t, order] of [
    ['sessions', 'id'],
    ['requests', 'session, idx'],
    ['compactions', 'rowid'],
    ['findings', 'session, rule, severity'],
    ['items', 'id'],
    ['item_text', 'rowid'],
  ] as const)
    out[t] = db.prepare(`SELECT ${t === 'item_text' ? 'rowid, text' : '*'} FROM ${t} ORDER BY ${order}`).all();
  return out;
}

async function build(name: string, threads: number) {
  const c = SessionCatalog.open(join(base, name));
  const report = await c.update(options(threads));
  return { c, report, rows: dump(c.db) };
}

describe('the session index read on worker threads', () => {
  it('writes the same rows, ids included, as a read on one thread', async () => {
    const one = await build('one', 0);
    const two = await build('two', 2);
    try {
      expect(one.report.threads).toBe(0);
      expect(two.report.threads).toBe(2);
      expect(two.report.added).toBe(CC_FILES.length + CODEX.length);
      expect(two.report.problems).toEqual(one.report.problems);
      expect((two.rows.items as unknown[]).length).toBeGreaterThan(100);
      expect((two.rows.compactions as unknown[]).length).toBeGreaterThan(0);
      expect(two.rows).toEqual(one.rows);
    } finally {
      one.c.close();
      two.c.close();
    }
  });

  it('reports a session a worker cannot read, with its file and line, and indexes the rest', async () => {
    const bad = join(project, 'broken.jsonl');
    writeFileSync(bad, 'this is not JSON\nnor is this\n');
    const { c, report } = await build('cache', 2);
    try {
      expect(report.threads).toBe(2);
      const said = report.problems.filter((p) => p.startsWith(`${bad}: not indexed for search`));
      expect(said).toHaveLength(1);
      expect(said[0]).toMatch(/\bline 1\b/i);
      const rows = c.db.prepare('SELECT path, load_error, requests FROM sessions ORDER BY path').all();
      expect(rows).toHaveLength(CC_FILES.length + CODEX.length + 1);
      for (const r of rows) {
        if (r.path === bad) expect(r.load_error).toMatch(/\bline 1\b/i);
        else {
          expect(r.load_error).toBeNull();
          expect(Number(r.requests)).toBeGreaterThan(0);
        }
      }
    } finally {
      c.close();
    }
  });
});

describe('a reading thread that stops', () => {
  it('costs the session it was reading, said so, and the rest are read all the same', async () => {
    // A worker that exits as soon as it is given a session: each start costs one session, then
    // the pool gives up on workers and reads the rest on this thread.
    const script = join(base, 'stops.mjs');
    writeFileSync(script, "import { parentPort } from 'node:worker_threads';\nparentPort.on('message', () => process.exit(3));\n");
    const files = [...CC_FILES.map((f) => join(project, f)), ...CODEX.map((f) => join(base, CODEX_DAY, f))];
    const reader = sessionReader(Number.MAX_SAFE_INTEGER, { threads: 1, worker: { url: pathToFileURL(script) }, extract: extractSession });
    const got: { path: string; items: number | null; error: string | null }[] = [];
    try {
      expect(reader.threads).toBe(1);
      await readInOrder(
        files,
        reader.ahead,
        (p) => reader.read(p),
        (p, facts, error) => {
          got.push({ path: p, items: facts?.items.length ?? null, error });
        },
      );
    } finally {
      await reader.close();
    }
    expect(got.map((g) => g.path)).toEqual(files);
    const lost = got.filter((g) => g.error !== null);
    expect(lost.length).toBeGreaterThan(0);
    expect(lost.length).toBeLessThan(files.length);
    for (const g of lost) expect(g.error).toBe('the thread reading it exited (code 3)');
    // Read here after the workers were given up: the same facts a read on this thread gives.
    for (const g of got.filter((x) => x.error === null)) {
      expect(g.items).toBe((await extractSession(g.path)).items.length);
    }
  });
});

describe('a read stopped by its signal', () => {
  it('stops the reading threads, takes nothing more and settles every read asked for', async () => {
    // Workers that never answer and write a beat every few milliseconds while they live: only
    // stopping them ends the reads they were given, and the beats say whether they stopped.
    const beats = join(base, 'beats');
    const script = join(base, 'silent.mjs');
    writeFileSync(
      script,
      [
        "import { appendFileSync } from 'node:fs';",
        "import { parentPort } from 'node:worker_threads';",
        `setInterval(() => appendFileSync(${JSON.stringify(beats)}, '.'), 5);`,
        "parentPort.on('message', () => undefined);",
      ].join('\n'),
    );
    const files = [...CC_FILES.map((f) => join(project, f)), ...CODEX.map((f) => join(base, CODEX_DAY, f))];
    const stop = new AbortController();
    const reader = sessionReader(Number.MAX_SAFE_INTEGER, {
      threads: 2,
      worker: { url: pathToFileURL(script) },
      extract: extractSession,
      signal: stop.signal,
    });
    const asked: string[] = [];
    const taken: string[] = [];
    try {
      const reading = readInOrder(
        files,
        reader.ahead,
        (p) => {
          asked.push(p);
          return reader.read(p);
        },
        (p) => void taken.push(p),
        stop.signal,
      );
      for (let i = 0; i < 400 && !existsSync(beats); i++) await new Promise((r) => setTimeout(r, 10));
      expect(existsSync(beats)).toBe(true);
      stop.abort();
      await expect(reading).rejects.toThrow(/abort/i);
      expect(asked.length).toBeGreaterThan(0);
      expect(taken).toEqual([]);
      const size = statSync(beats).size;
      await new Promise((r) => setTimeout(r, 100));
      expect(statSync(beats).size).toBe(size);
    } finally {
      await reader.close();
    }
  });
});
