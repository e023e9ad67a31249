import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/main/catalog/db';
import { extractSession, type SessionFacts } from '../../../src/main/catalog/extract';
import { HIT_END, HIT_START, searchCatalog, SearchQueryError, sinceOf } from '../../../src/main/catalog/search';
import { CATALOG_FILE } from '../../../src/main/catalog/store';
import { SessionCatalog, type UpdateOptions } from '../../../src/main/catalog/update';
import { SessionInspector } from '../../../src/main/session/inspector';
import { loadSession } from '../../../src/main/session/load';
import { fateAt } from '../../../src/shared/replay/view';
import { CLAUDE_PROJECT, CODEX_DAY, harnessEnv, HOME, placeFixtures } from '../fake-home';

/*
 * The session index over a fake home built from real fixture sessions: three Claude Code sessions
 * (one with a compaction after a rewind) and one Codex rollout, read with the real importers and
 * replay. Checks what is indexed, what a second run reads again (nothing; a touched, appended or
 * removed file), the rebuild of a file of another schema or not a database, and search.
 */

const CC = 'fixtures/claude-code';
const CODEX = 'fixtures/codex/rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl';

let base = '';
let project = '';
let cache = '';
let reads: string[] = [];

const options = (): UpdateOptions => ({
  ...harnessEnv(base),
  harnesses: ['claude-code', 'codex'],
  content: true,
  extract: async (path: string, session?: string): Promise<SessionFacts> => {
    reads.push(path);
    return extractSession(path, session);
  },
});

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'palimpsest-catalog-'));
  project = join(base, CLAUDE_PROJECT);
  placeFixtures(base, {
    [CLAUDE_PROJECT]: ['short.jsonl', 'tool_heavy.jsonl', 'dag_compact_after_rewind_preserved.jsonl'].map((f) => join(CC, f)),
    [CODEX_DAY]: [CODEX],
    [HOME]: [],
  });
  cache = join(base, 'cache');
  reads = [];
});

afterEach(() => rmSync(base, { recursive: true, force: true }));

describe('the session index', () => {
  it('indexes every session with its requests, compactions and item texts, and reads nothing again when nothing changed', async () => {
    const c = SessionCatalog.open(cache);
    const first = await c.update(options());
    expect(first.rebuilt).toBeNull();
    expect(first.sessions).toBe(4);
    expect(first.added).toBe(4);
    expect(reads).toHaveLength(4);
    const dag = c.db.prepare('SELECT requests, compactions, models FROM sessions WHERE path LIKE ?').get('%dag_compact%');
    // The same counts `inspect` gives: read through the same loader and replay.
    const inspector = new SessionInspector(await loadSession(join(project, 'dag_compact_after_rewind_preserved.jsonl')));
    const state = inspector.replay();
    expect(dag?.requests).toBe(state.requests.length);
    expect(dag?.compactions).toBe(state.compactions.length);
    expect(JSON.parse(dag?.models as string)).toContain('claude-sonnet-4-20250514');
    await inspector.session.dispose();

    reads = [];
    const second = await c.update(options());
    expect(reads).toEqual([]);
    expect(second.reused).toBe(4);
    expect(second.added + second.changed + second.appended + second.removed).toBe(0);
    c.close();
  });

  it('says whether a hit was still in the model view at the latest request, as the replay does', async () => {
    const c = SessionCatalog.open(cache);
    await c.update(options());
    const hits = searchCatalog(c.db, '"After compaction"', { has: 'compaction' }).hits;
    expect(hits.length).toBeGreaterThan(0);
    const h = hits[0];
    expect(h?.path).toContain('dag_compact_after_rewind_preserved.jsonl');
    expect(h?.snippet).toContain(`${HIT_START}After compaction${HIT_END}`);
    const inspector = new SessionInspector(await loadSession(h?.path as string));
    const state = inspector.replay();
    const rec = state.itemById.get(h?.item.id as string);
    const last = state.requests[state.requests.length - 1];
    expect(rec && last).toBeTruthy();
    expect(h?.item.seq).toBe(rec?.seq);
    if (rec && last) expect(h?.fate).toBe(rec.seq < last.seq ? (fateAt(rec, last.seq)?.fate ?? null) : null);
    // The request named is the first made after the item.
    if (rec && h?.request !== null && h?.request !== undefined) {
      expect(state.requests[h.request]?.seq).toBeGreaterThan(rec.seq);
      if (h.request > 0) expect(state.requests[h.request - 1]?.seq).toBeLessThan(rec.seq);
    }
    await inspector.session.dispose();
    c.close();
  });

  it('reads again only a touched or appended file, and drops a removed one', async () => {
    const c = SessionCatalog.open(cache);
    await c.update(options());
    const file = join(project, 'short.jsonl');
    reads = [];
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    const touched = await c.update(options());
    expect(reads).toEqual([file]);
    expect(touched.changed).toBe(1);

    reads = [];
    const lines = readFileSync(join(CC, 'short.jsonl'), 'utf8').trimEnd().split('\n');
    appendFileSync(file, `${lines[lines.length - 1] ?? ''}\n`);
    const appended = await c.update(options());
    expect(reads).toEqual([file]);
    expect(appended.appended).toBe(1);

    reads = [];
    rmSync(join(project, 'tool_heavy.jsonl'));
    const gone = await c.update(options());
    expect(reads).toEqual([]);
    expect(gone.removed).toBe(1);
    expect(c.db.prepare('SELECT count(*) AS n FROM sessions WHERE path LIKE ?').get('%tool_heavy%')?.n).toBe(0);
    // Its texts went with it: no item row points at a session that is gone.
    expect(c.db.prepare('SELECT count(*) AS n FROM items WHERE session NOT IN (SELECT id FROM sessions)').get()?.n).toBe(0);
    expect(c.db.prepare('SELECT count(*) AS n FROM item_text WHERE rowid NOT IN (SELECT id FROM items)').get()?.n).toBe(0);
    c.close();
  });

  it('rebuilds an index of another schema version, with a note', async () => {
    const c = SessionCatalog.open(cache);
    await c.update(options());
    c.db.prepare("UPDATE meta SET value = '0' WHERE key = 'schema'").run();
    c.close();
    const again = SessionCatalog.open(cache);
    expect(again.rebuilt).toMatch(/schema 0.*rebuilt/);
    reads = [];
    const r = await again.update(options());
    expect(r.added).toBe(4);
    expect(searchCatalog(again.db, 'compaction').hits.length).toBeGreaterThan(0);
    again.close();
  });

  it('rebuilds a corrupt index file instead of failing', async () => {
    mkdirSync(cache, { recursive: true });
    writeFileSync(join(cache, CATALOG_FILE), 'not a database '.repeat(1000));
    const c = SessionCatalog.open(cache);
    expect(c.rebuilt).toMatch(/corrupt.*rebuilt/);
    const r = await c.update(options());
    expect(r.sessions).toBe(4);
    c.close();
    // And the file left behind is a database of the current schema.
    const db = openDatabase(join(cache, CATALOG_FILE));
    expect(db.prepare("SELECT value FROM meta WHERE key = 'schema'").get()?.value).toBeTypeOf('string');
    db.close();
  });

  it('never writes to a session file', async () => {
    const file = join(project, 'dag_compact_after_rewind_preserved.jsonl');
    const before = readFileSync(file);
    const c = SessionCatalog.open(cache);
    await c.update(options());
    c.close();
    expect(readFileSync(file).equals(before)).toBe(true);
  });
});

describe('search over the index', () => {
  it('takes phrases, prefixes and filters, ranked best first', async () => {
    const c = SessionCatalog.open(cache);
    await c.update(options());
    const prefix = searchCatalog(c.db, 'interrupt*').hits;
    expect(prefix.length).toBeGreaterThan(0);
    for (const h of prefix) expect(h.snippet.toLowerCase()).toContain(`${HIT_START}interrupt`);
    for (let i = 1; i < prefix.length; i++) expect(prefix[i]?.rank).toBeGreaterThanOrEqual(prefix[i - 1]?.rank as number);
    const phrase = searchCatalog(c.db, '"Request interrupted by user"').hits;
    expect(phrase.length).toBeGreaterThan(0);
    expect(phrase.length).toBeLessThanOrEqual(prefix.length);

    expect(searchCatalog(c.db, 'interrupt*', { harness: 'codex' }).hits).toEqual([]);
    expect(searchCatalog(c.db, 'interrupt*', { harness: 'claude-code' }).hits.length).toBe(prefix.length);
    expect(searchCatalog(c.db, 'interrupt*', { project: 'no-such-project' }).hits).toEqual([]);
    expect(searchCatalog(c.db, 'interrupt*', { since: '2099-01-01T00:00:00.000Z' }).hits).toEqual([]);
    expect(searchCatalog(c.db, 'interrupt*', { model: 'gpt-' }).hits).toEqual([]);
    const withCompaction = searchCatalog(c.db, 'compaction', { has: 'compaction' }).hits;
    expect(withCompaction.every((h) => h.path.includes('dag_compact'))).toBe(true);
    expect(searchCatalog(c.db, 'REDACTED*', { harness: 'codex' }).hits.length).toBeGreaterThan(0);
    c.close();
  });

  it('says when it ranked only the matches indexed last, and ranks those as a full search would', async () => {
    const c = SessionCatalog.open(cache);
    await c.update(options());
    const all = searchCatalog(c.db, 'REDACTED*', {}, 1000);
    expect(all.capped).toBeNull();
    const n = all.hits.length;
    expect(n).toBeGreaterThanOrEqual(10);
    // Every match, by bm25, straight from FTS5: what an uncapped search returns, in that order.
    const fts = c.db
      .prepare('SELECT rowid AS id, bm25(item_text) AS rank FROM item_text WHERE item_text MATCH ? ORDER BY rank')
      .all('REDACTED*');
    expect(fts).toHaveLength(n);
    expect(all.hits.map((h) => h.rank)).toEqual(fts.map((r) => Number(r.rank)));

    const cap = Math.floor(n / 2);
    const some = searchCatalog(c.db, 'REDACTED*', {}, 3, cap);
    expect(some.capped).toBe(cap);
    expect(some.hits).toHaveLength(3);
    // The best three of the `cap` matches of highest rowid (indexed last), not of all.
    const last = new Set(
      c.db
        .prepare('SELECT rowid AS id FROM item_text WHERE item_text MATCH ? ORDER BY rowid DESC LIMIT ?')
        .all('REDACTED*', cap)
        .map((r) => Number(r.id)),
    );
    const best = fts.filter((r) => last.has(Number(r.id))).slice(0, 3);
    expect(some.hits.map((h) => h.rank)).toEqual(best.map((r) => Number(r.rank)));
    for (const h of some.hits) expect(h.snippet.toLowerCase()).toContain(`${HIT_START}redacted`);
    // Exactly `cap` matches: all were ranked, nothing to say.
    expect(searchCatalog(c.db, 'REDACTED*', {}, 3, n).capped).toBeNull();
    c.close();
  });

  it('rejects a query FTS5 cannot parse with a sentence, not a crash', async () => {
    const c = SessionCatalog.open(cache);
    await c.update(options());
    expect(() => searchCatalog(c.db, '"unbalanced').hits).toThrow(SearchQueryError);
    expect(() => searchCatalog(c.db, 'AND').hits).toThrow(SearchQueryError);
    expect(() => searchCatalog(c.db, '  ').hits).toThrow(SearchQueryError);
    c.close();
  });

  it('reads --since as a date or a span back from now', () => {
    const now = Date.parse('2026-03-10T00:00:00Z');
    expect(sinceOf('7d', now)).toBe('2026-03-03T00:00:00.000Z');
    expect(sinceOf('12h', now)).toBe('2026-03-09T12:00:00.000Z');
    expect(sinceOf('2026-02-01', now)).toBe('2026-02-01T00:00:00.000Z');
    expect(() => sinceOf('last week', now)).toThrow(SearchQueryError);
  });
});
