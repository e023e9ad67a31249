import { appendFile, copyFile, mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/main/catalog/db';
import { listSessions } from '../../../src/main/catalog/list';
import { CATALOG_FILE as INDEX_FILE } from '../../../src/main/catalog/store';
import { discoverSessions, type DiscoverOptions } from '../../../src/main/discovery/discover';
import type { Harness, SessionSummary } from '../../../src/main/discovery/types';
import { placeFixtures } from '../fake-home';

/*
 * A fake home with each harness's layout, built from the repository's fixtures: Claude Code (the
 * real 2.1.39 session with its two subagent files, and a small one), Codex (a rollout under
 * sessions/YYYY/MM/DD and one archived), DeepSeek Harness (zstd and plain), Rind (a session
 * folder), cosh (under the XDG data folder) — and Palimpsest v1 files given with --root.
 */

const CC = 'fixtures/claude-code';
const BIG = '4d5611e5-241a-462a-8d15-5122611a9569';
const CODEX = 'fixtures/codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl';
const CODEX_SMALL = 'fixtures/codex/rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl';
const DSH = 'fixtures/dsh/examples/headless-agent/tests/snapshots/compaction-recovery/session.jsonl';
const RIND = 'fixtures/rind/20260514_101500_a1b2c3d4';
const COSH = 'fixtures/cosh/session-ses_7f3a.jsonl';

let home = '';
let cache = '';

/** The layout under a home (or under each harness's folder given in `layout`, as its variable moves it). */
function fakeHome(base: string, layout: { claude?: string; codex?: string; dsh?: string; rind?: string; cosh?: string } = {}): void {
  const claude = layout.claude ?? join(base, '.claude');
  const codex = layout.codex ?? join(base, '.codex');
  const dsh = layout.dsh ?? join(base, '.dsh');
  const rind = layout.rind ?? join(base, '.rind');
  const cosh = layout.cosh ?? join(base, '.local', 'share', 'cosh');
  placeFixtures(base, {
    [join(claude, 'projects', '-home-ada-spotter')]: [
      join(CC, `${BIG}.jsonl`),
      join(CC, BIG),
      { from: join(CC, 'short.jsonl'), as: '55604662-cf2a-4331-851a-ec234028f8ca.jsonl' },
    ],
    // Not sessions: a folder of another tool, a stray file.
    [join(claude, 'todos')]: [{ name: 'x.jsonl', text: '{}\n' }],
    [join(codex, 'sessions', '2026', '02', '23')]: [CODEX],
    [join(codex, 'archived_sessions')]: [CODEX_SMALL],
    [codex]: [{ name: 'history.jsonl', text: '{"session_id":"x"}\n' }],
    [join(dsh, 'sessions', '--home-ada-cal--', 'abc')]: [{ from: DSH, as: 'session.jsonl' }],
    [join(dsh, 'sessions', '_no-cwd', 'def')]: ['fixtures/dsh-zstd/session.jsonl.zstd'],
    [join(rind, 'sessions')]: [RIND],
    [join(cosh, 'sessions', '1a2b3c4d')]: [COSH],
  });
}

/** Options isolated from the real machine: a fake home, no inherited variables, a private index. */
function opts(extra: Partial<DiscoverOptions> = {}, env: Record<string, string> = {}): DiscoverOptions {
  return { home, env: { PALIMPSEST_CACHE_DIR: cache, ...env }, platform: 'linux', ...extra };
}

const byHarness = (ss: readonly SessionSummary[], h: Harness): SessionSummary[] => ss.filter((s) => s.harness === h);

beforeEach(async () => {
  const base = await mkdtemp(join(tmpdir(), 'palimpsest-discovery-'));
  home = join(base, 'home');
  cache = join(base, 'cache');
  fakeHome(home);
});

describe('discovery over a fake home', () => {
  it('lists every harness from its default location, with project, start, size, requests and compactions', async () => {
    const d = await discoverSessions(opts());
    expect(d.problems).toEqual([]);
    const summary = d.sessions.map((s) => [s.harness, s.requests, s.compactions]).sort();
    expect(summary).toEqual(
      [
        ['claude-code', 1, 0],
        ['claude-code', 139, 1],
        ['codex', 1, 0],
        ['codex', 287, 1],
        ['cosh', 10, 1],
        ['dsh', 4, 1],
        ['dsh', 4, 1],
        ['rind', 8, 3],
      ].sort(),
    );
    const big = d.sessions.find((s) => s.id === BIG);
    expect(big).toMatchObject({
      harness: 'claude-code',
      project: '/home/USER/projects/spotter-worktrees/spotter-dov',
      startedAt: '2026-02-12T16:02:23.545Z',
      harnessVersion: '2.1.39',
      files: 3,
      cached: false,
    });
    const rind = byHarness(d.sessions, 'rind')[0];
    expect(rind).toMatchObject({
      id: '20260514_101500_a1b2c3d4',
      project: '/home/ada/cal',
      title: 'The test `formatDate` fails on CI',
      path: join(home, '.rind', 'sessions', '20260514_101500_a1b2c3d4'),
    });
    expect(byHarness(d.sessions, 'codex').map((s) => s.project)).toEqual(expect.arrayContaining([expect.any(String)]));
    // Newest first.
    const starts = d.sessions.map((s) => s.startedAt ?? '');
    expect(starts).toEqual([...starts].sort().reverse());
  });

  it('folds subagent files into their parent session: one session, its size includes them', async () => {
    const d = await discoverSessions(opts({ harnesses: ['claude-code'] }));
    expect(d.sessions).toHaveLength(2);
    const big = d.sessions.find((s) => s.id === BIG) as SessionSummary;
    const sizes = [3158801, 296675, 31159];
    expect(big.files).toBe(3);
    expect(big.bytes).toBe(sizes.reduce((a, b) => a + b, 0));
    expect(big.path.endsWith(`${BIG}.jsonl`)).toBe(true);
    expect(d.sessions.some((s) => s.path.includes('subagents'))).toBe(false);
  });

  it('folds a 2.0-style agent file beside the sessions into the session its first line names', async () => {
    const project = join(home, '.claude', 'projects', '-home-ada-spotter');
    await copyFile(join(CC, BIG, 'subagents', 'agent-a2898e3.jsonl'), join(project, 'agent-a2898e3.jsonl'));
    await writeFile(
      join(project, 'agent-orphan.jsonl'),
      '{"parentUuid":null,"isSidechain":true,"sessionId":"not-here","type":"user","uuid":"x","message":{"role":"user","content":"hi"}}\n',
    );
    const d = await discoverSessions(opts({ harnesses: ['claude-code'] }));
    expect(d.sessions.map((s) => [s.path.split('/').pop(), s.files]).sort()).toEqual([
      [`${BIG}.jsonl`, 4],
      ['55604662-cf2a-4331-851a-ec234028f8ca.jsonl', 1],
      ['agent-orphan.jsonl', 1],
    ]);
  });

  it('walks a folder reached by two roots once (~/.config/claude a link to ~/.claude)', async () => {
    await mkdir(join(home, '.config'), { recursive: true });
    await symlink(join(home, '.claude'), join(home, '.config', 'claude'));
    const d = await discoverSessions(opts({ harnesses: ['claude-code'] }));
    expect(d.sessions).toHaveLength(2);
    expect(d.roots.map((r) => r.sessions)).toEqual([2, 0]);
  });

  it('never fails on missing folders: an empty home lists nothing and says where it looked', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'palimpsest-empty-'));
    const d = await discoverSessions({ home: empty, env: { PALIMPSEST_CACHE_DIR: cache }, platform: 'linux' });
    expect(d.sessions).toEqual([]);
    expect(d.problems).toEqual([]);
    expect(d.roots.every((r) => !r.exists)).toBe(true);
    expect(d.roots.map((r) => r.harness)).toEqual(expect.arrayContaining(['claude-code', 'codex', 'dsh', 'rind', 'cosh']));
  });

  it('follows the environment overrides, each replacing its default', async () => {
    const elsewhere = await mkdtemp(join(tmpdir(), 'palimpsest-env-'));
    fakeHome(elsewhere, {
      claude: join(elsewhere, 'cc'),
      codex: join(elsewhere, 'cx'),
      dsh: join(elsewhere, 'dh'),
      rind: join(elsewhere, 'rh'),
      cosh: join(elsewhere, 'co'),
    });
    const env = {
      CLAUDE_CONFIG_DIR: join(elsewhere, 'cc'),
      CODEX_HOME: join(elsewhere, 'cx'),
      DSH_HOME: join(elsewhere, 'dh'),
      RIND_HOME: join(elsewhere, 'rh'),
      COSH_DATA_DIR: join(elsewhere, 'co'),
    };
    const d = await discoverSessions(opts({}, env));
    expect(d.sessions).toHaveLength(8);
    for (const s of d.sessions) expect(s.path.startsWith(elsewhere)).toBe(true);
    const sources = Object.fromEntries(d.roots.map((r) => [r.harness, r.source]));
    expect(sources).toEqual({
      'claude-code': '$CLAUDE_CONFIG_DIR',
      codex: '$CODEX_HOME',
      dsh: '$DSH_HOME',
      rind: '$RIND_HOME',
      cosh: '$COSH_DATA_DIR',
      'gemini-cli': 'default',
      opencode: 'default',
    });
  });

  it('takes cosh from XDG_DATA_HOME, several Claude folders from CLAUDE_CONFIG_DIR, and --root over a default', async () => {
    const xdg = await mkdtemp(join(tmpdir(), 'palimpsest-xdg-'));
    placeFixtures(xdg, { [join('cosh', 'sessions', 'ff')]: [COSH] });
    const second = await mkdtemp(join(tmpdir(), 'palimpsest-cc2-'));
    placeFixtures(second, {
      [join('projects', 'p')]: [{ from: join(CC, 'tool_heavy.jsonl'), as: 'd6e0bada-1959-4eec-a9d2-0bfade768d8f.jsonl' }],
    });
    const d = await discoverSessions(
      opts({ harnesses: ['cosh', 'claude-code'] }, { XDG_DATA_HOME: xdg, CLAUDE_CONFIG_DIR: `${join(home, '.claude')},${second}` }),
    );
    expect(byHarness(d.sessions, 'cosh').map((s) => s.path)).toEqual([join(xdg, 'cosh', 'sessions', 'ff', 'session-ses_7f3a.jsonl')]);
    expect(byHarness(d.sessions, 'claude-code')).toHaveLength(3);

    const r = await discoverSessions(
      opts({
        roots: [
          { harness: 'claude-code', path: second },
          { harness: 'palimpsest', path: 'fixtures/palimpsest' },
        ],
      }),
    );
    expect(byHarness(r.sessions, 'claude-code').map((s) => s.requests)).toEqual([4]);
    expect(byHarness(r.sessions, 'palimpsest').length).toBeGreaterThanOrEqual(10);
    expect(byHarness(r.sessions, 'codex')).toHaveLength(2); // other harnesses keep their defaults
  });
});

describe('the listing through the session index (listSessions)', () => {
  it('writes the index on the first run, answers the second without scanning, and writes nothing when nothing changed', async () => {
    const first = await listSessions(opts());
    expect(first.index).toMatchObject({ path: join(cache, INDEX_FILE), hits: 0, scanned: 8, written: true, problems: [] });
    const strip = (ss: readonly SessionSummary[]) => ss.map(({ cached: _c, ...rest }) => rest);
    // The same sessions, in the same order, as a scan without the index.
    expect(strip(first.sessions)).toEqual(strip((await discoverSessions(opts())).sessions));
    const before = await stat(join(cache, INDEX_FILE));
    const second = await listSessions(opts());
    expect(second.index).toMatchObject({ hits: 8, scanned: 0, written: false });
    expect(second.sessions.every((s) => s.cached)).toBe(true);
    expect(strip(second.sessions)).toEqual(strip(first.sessions));
    const after = await stat(join(cache, INDEX_FILE));
    expect([after.size, after.mtimeMs]).toEqual([before.size, before.mtimeMs]);
  });

  it('re-scans a session whose file grew, whose mtime changed, or that gained a subagent file — and only it', async () => {
    await listSessions(opts());
    const project = join(home, '.claude', 'projects', '-home-ada-spotter');
    const small = join(project, '55604662-cf2a-4331-851a-ec234028f8ca.jsonl');
    const lines = (await readFile(join(CC, 'tool_heavy.jsonl'), 'utf8')).split('\n').filter(Boolean);
    // Appended: a new model call (its session id is another's, which changes nothing here).
    await appendFile(small, `${lines.find((l) => l.includes('"type":"assistant"')) as string}\n`);
    let d = await listSessions(opts());
    expect(d.index).toMatchObject({ hits: 7, scanned: 1 });
    expect(d.sessions.find((s) => s.path === small)?.requests).toBe(2);

    const later = new Date(Date.now() + 60_000);
    await utimes(join(project, `${BIG}.jsonl`), later, later);
    d = await listSessions(opts());
    expect(d.index).toMatchObject({ hits: 7, scanned: 1 });

    await copyFile(join(CC, BIG, 'subagents', 'agent-a2898e3.jsonl'), join(project, BIG, 'subagents', 'agent-anew.jsonl'));
    d = await listSessions(opts());
    expect(d.index).toMatchObject({ hits: 7, scanned: 1 });
    expect(d.sessions.find((s) => s.id === BIG)?.files).toBe(4);

    await rm(small);
    d = await listSessions(opts());
    expect(d.index).toMatchObject({ hits: 7, scanned: 0 });
    expect(d.sessions).toHaveLength(7);
  });

  it('scans again a summary made by another version of its scanner', async () => {
    await listSessions(opts());
    const db = openDatabase(join(cache, INDEX_FILE));
    const row = db.prepare("SELECT id, summary FROM sessions WHERE harness = 'rind'").get();
    db.prepare('UPDATE sessions SET summary = ? WHERE id = ?').run(
      JSON.stringify({ ...(JSON.parse(row?.summary as string) as object), scanner: -1, requests: 999 }),
      row?.id,
    );
    db.close();
    const d = await listSessions(opts());
    expect(d.index).toMatchObject({ hits: 7, scanned: 1 });
    expect(byHarness(d.sessions, 'rind').map((s) => s.requests)).toEqual([8]);
  });

  it('reports a corrupt index or one of another schema, rebuilds it, never failing', async () => {
    await listSessions(opts());
    // The file and its WAL (SQLite reads pages from the WAL first) replaced by what is not a database.
    await rm(join(cache, `${INDEX_FILE}-wal`), { force: true });
    await rm(join(cache, `${INDEX_FILE}-shm`), { force: true });
    await writeFile(join(cache, INDEX_FILE), 'not a database '.repeat(100));
    const d = await listSessions(opts());
    expect(d.index.problems).toEqual([expect.stringMatching(/is corrupt .*; it is rebuilt/)]);
    expect(d.index).toMatchObject({ hits: 0, scanned: 8, written: true });
    expect(d.sessions).toHaveLength(8);
    const again = await listSessions(opts());
    expect(again.index).toMatchObject({ hits: 8, scanned: 0, problems: [] });

    const db = openDatabase(join(cache, INDEX_FILE));
    db.prepare("UPDATE meta SET value = '0' WHERE key = 'schema'").run();
    db.close();
    const third = await listSessions(opts());
    expect(third.index).toMatchObject({ hits: 0, scanned: 8, problems: [expect.stringMatching(/has schema 0.*it is rebuilt/)] });
  });

  it('is never written into a harness folder, and is not used with --no-cache', async () => {
    const inside = join(home, '.claude', 'cache');
    const d = await listSessions({ home, env: { PALIMPSEST_CACHE_DIR: inside }, platform: 'linux' });
    expect(d.sessions).toHaveLength(8);
    expect(d.index.path).toBeNull();
    expect(d.index.problems).toEqual([expect.stringMatching(/inside .*\.claude.*never writes there.*the sessions were scanned/)]);
    await expect(readdir(inside)).rejects.toThrow();

    const none = await listSessions(opts({ useIndex: false }));
    expect(none.index).toMatchObject({ path: null, hits: 0, scanned: 8, written: false, problems: [] });
    await expect(readdir(cache)).rejects.toThrow();
  });

  it('lists by scanning, with a note, when the index folder cannot hold a database', async () => {
    await mkdir(join(cache, '..'), { recursive: true });
    await writeFile(cache, 'a file where the folder should be');
    const d = await listSessions(opts());
    expect(d.sessions).toHaveLength(8);
    expect(d.index).toMatchObject({ path: null, scanned: 8 });
    expect(d.index.problems).toEqual([expect.stringMatching(/could not be opened .*; the sessions were scanned/)]);
  });

  it('lists by scanning, with a note, when another process holds the index past the busy timeout', async () => {
    await listSessions(opts({ harnesses: ['rind'] }));
    // Another connection writing, and not done: a run that must write waits, then does without.
    const other = openDatabase(join(cache, INDEX_FILE));
    other.exec('BEGIN IMMEDIATE');
    other.prepare("INSERT INTO meta (key, value) VALUES ('held', 'x')").run();
    const held = await listSessions({ ...opts(), busyTimeoutMs: 50 });
    expect(held.sessions).toHaveLength(8);
    expect(held.index).toMatchObject({ path: null, scanned: 8 });
    expect(held.index.problems).toEqual([expect.stringMatching(/could not be updated .*(locked|busy).*; the sessions were scanned/i)]);
    // A run with nothing to write reads the index as it stands.
    const reads = await listSessions({ ...opts({ harnesses: ['rind'] }), busyTimeoutMs: 50 });
    expect(reads.index).toMatchObject({ path: join(cache, INDEX_FILE), hits: 1, scanned: 0, problems: [] });
    other.exec('COMMIT');
    other.close();
    expect((await listSessions(opts())).index).toMatchObject({ hits: 1, scanned: 7, problems: [] });
  });

  it('lives in XDG_CACHE_HOME, else ~/.cache, when PALIMPSEST_CACHE_DIR is not set', async () => {
    const xdg = await mkdtemp(join(tmpdir(), 'palimpsest-xdgcache-'));
    await listSessions({ home, env: { XDG_CACHE_HOME: xdg }, platform: 'linux', harnesses: ['rind'] });
    expect(await readdir(join(xdg, 'palimpsest'))).toContain(INDEX_FILE);
    await listSessions({ home, env: {}, platform: 'linux', harnesses: ['rind'] });
    expect(await readdir(join(home, '.cache', 'palimpsest'))).toContain(INDEX_FILE);
  });
});
