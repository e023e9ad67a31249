import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/main/catalog/db';
import { CATALOG_FILE } from '../../src/main/catalog/store';
import { runBuilt } from './run-built';

/*
 * Two writers of one session index: `palimpsest search` (which reads every session's content into
 * the index) twice and `palimpsest ls` twice, started at once as four processes on one cache
 * folder over a home of real fixture sessions. Each must succeed through the index (no fallback to
 * scanning), and the index they leave must be whole and hold what one process alone writes.
 */

const base = mkdtempSync(join(tmpdir(), 'palimpsest-cli-writers-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const CC = 'fixtures/claude-code';
for (const p of ['-home-ada-a', '-home-ada-b', '-home-ada-c']) {
  mkdirSync(join(base, 'claude', 'projects', p), { recursive: true });
  for (const f of readdirSync(CC).filter((n) => n.endsWith('.jsonl'))) copyFileSync(join(CC, f), join(base, 'claude', 'projects', p, f));
}
const day = join(base, 'codex', 'sessions', '2026', '02', '23');
mkdirSync(day, { recursive: true });
for (const f of readdirSync('fixtures/codex').filter((n) => n.endsWith('.jsonl'))) copyFileSync(join('fixtures/codex', f), join(day, f));
const SESSIONS = 3 * readdirSync(CC).filter((n) => n.endsWith('.jsonl')).length + readdirSync(day).length;

const env = (cache: string): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH ?? '',
  HOME: join(base, 'home'),
  PALIMPSEST_CACHE_DIR: join(base, cache),
  CLAUDE_CONFIG_DIR: join(base, 'claude'),
  CODEX_HOME: join(base, 'codex'),
});

/** What an index holds, table by table, in an order that does not depend on who wrote first. */
function contents(cache: string) {
  const db = openDatabase(join(base, cache, CATALOG_FILE));
  try {
    return {
      integrity: db
        .prepare('PRAGMA integrity_check')
        .all()
        .map((r) => r.integrity_check),
      sessions: db
        .prepare(
          'SELECT path, session_key, harness, stamps = content_stamps AS fresh, requests, compactions, findings, load_error FROM sessions ORDER BY path, session_key',
        )
        .all()
        .map(({ _metadata: _m, ...r }) => r),
      requests: db.prepare('SELECT count(*) AS n FROM requests').get()?.n,
      items: db.prepare('SELECT count(*) AS n FROM items').get()?.n,
      texts: db.prepare('SELECT count(*) AS n FROM item_text').get()?.n,
      orphans: db.prepare('SELECT count(*) AS n FROM items WHERE session NOT IN (SELECT id FROM sessions)').get()?.n,
    };
  } finally {
    db.close();
  }
}

describe('two processes writing one session index', () => {
  it('both succeed through the index, and leave it whole, as one process alone would', async () => {
    const runs = await Promise.all([
      runBuilt(['search', 'compaction', '--json'], 120_000, env('cache')),
      runBuilt(['ls', '--json'], 120_000, env('cache')),
      runBuilt(['search', 'compaction', '--json'], 120_000, env('cache')),
      runBuilt(['ls', '--json'], 120_000, env('cache')),
    ]);
    for (const r of runs) {
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
    }
    for (const r of [runs[1], runs[3]]) {
      const j = JSON.parse(r?.stdout ?? '') as { sessions: unknown[]; index: { path: string | null; problems: string[] } };
      expect(j.sessions).toHaveLength(SESSIONS);
      expect(j.index).toMatchObject({ path: join(base, 'cache', CATALOG_FILE), problems: [] });
    }

    // One process alone, in a folder of its own.
    const alone = await runBuilt(['search', 'compaction', '--json'], 120_000, env('alone'));
    expect(alone.code).toBe(0);
    const hits = (stdout: string) => (JSON.parse(stdout) as { hits: unknown[] }).hits;
    expect(hits(runs[0]?.stdout ?? '')).toEqual(hits(alone.stdout));
    expect(hits(runs[2]?.stdout ?? '')).toEqual(hits(alone.stdout));

    const both = contents('cache');
    expect(both.integrity).toEqual(['ok']);
    expect(both.sessions).toHaveLength(SESSIONS);
    expect(both.orphans).toBe(0);
    expect(both).toEqual(contents('alone'));
  });
});
