import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discoverSessions, type DiscoverOptions } from '../../../src/main/discovery/discover';
import { CatalogHealthSource } from '../../../src/main/catalog/health-source';
import { SessionFilesHealthSource, type Target } from '../../../src/main/health/session-files';
import type { SessionHealth } from '../../../src/shared/health/row';
import { CLAUDE_PROJECT, CODEX_DAY, GEMINI_CHATS, harnessEnv, HOME, placeFixtures } from '../fake-home';

/*
 * The health rows the session index keeps against the rows built by loading each session (the
 * report's other source), over a fake home of real sessions of four harnesses: Claude Code (one
 * with a compaction after a rewind), Codex CLI, Gemini CLI and Palimpsest's own format (a
 * compaction of every outcome). Then a changed file's row follows it and a removed file's goes.
 */

const CC = 'fixtures/claude-code';
const CODEX = 'fixtures/codex/rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl';
const GEMINI = 'fixtures/gemini-cli/session-2025-12-30T01-16-3f9ce747.json';
const PALIMPSEST = 'fixtures/palimpsest/compaction-lifecycle.jsonl';

let base = '';
let project = '';
let cache = '';

const discover = (): DiscoverOptions => ({
  ...harnessEnv(base),
  harnesses: ['claude-code', 'codex', 'gemini-cli', 'palimpsest'],
  roots: [{ harness: 'palimpsest', path: join(base, 'own') }],
});

/** The rows of the other source: every session discovery lists, loaded. */
async function loaded(): Promise<SessionHealth[]> {
  const d = await discoverSessions({ ...discover(), useIndex: false });
  const targets: Target[] = d.sessions.map((s) => ({ key: s.path, path: s.path, harness: s.harness, project: s.project }));
  const r = await new SessionFilesHealthSource({ targets, useCache: false }).rows();
  expect(r.problems).toEqual([]);
  return r.rows;
}

const byKey = (rows: readonly SessionHealth[]): SessionHealth[] => [...rows].sort((a, b) => (a.key < b.key ? -1 : 1));

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'palimpsest-health-catalog-'));
  project = join(base, CLAUDE_PROJECT);
  placeFixtures(base, {
    [CLAUDE_PROJECT]: ['short.jsonl', 'dag_compact_after_rewind_preserved.jsonl', 'microcompact.jsonl'].map((f) => join(CC, f)),
    [CODEX_DAY]: [CODEX],
    [GEMINI_CHATS]: [GEMINI],
    own: [{ from: PALIMPSEST, as: 'lifecycle.jsonl' }],
    [HOME]: [],
  });
  cache = join(base, 'cache');
});

afterEach(() => rmSync(base, { recursive: true, force: true }));

describe('health rows from the session index', () => {
  it('equal the rows built by loading each session, for four harnesses', async () => {
    const source = new CatalogHealthSource({ discover: discover(), dir: cache });
    expect(source.stored()).toBeNull();
    const first = await source.rows();
    expect(first.problems).toEqual([]);
    expect(first.built).toBe(6);
    expect(first.cached).toBe(0);
    expect(new Set(first.rows.map((r) => r.harness))).toEqual(new Set(['claude-code', 'codex', 'gemini-cli', 'palimpsest']));
    const files = await loaded();
    expect(files).toHaveLength(6);
    expect(byKey(first.rows)).toEqual(byKey(files));
    // Real content, not empty rows: the lifecycle's five outcomes and the rewound session's compaction.
    const own = first.rows.find((r) => r.harness === 'palimpsest');
    expect(own?.compactions.map((c) => c.outcome)).toEqual(['rejected', 'failed', 'fallback', 'committed', 'cancelled']);

    // Read again: nothing loaded, the same rows; and what the index holds without updating is the same.
    const second = await source.rows();
    expect(second.built).toBe(0);
    expect(second.cached).toBe(6);
    expect(byKey(second.rows)).toEqual(byKey(first.rows));
    expect(byKey(source.stored()?.rows ?? [])).toEqual(byKey(first.rows));
  });

  it('follows a changed session and drops a removed one', async () => {
    const source = new CatalogHealthSource({ discover: discover(), dir: cache });
    const first = await source.rows();
    const short = join(project, 'short.jsonl');
    const before = first.rows.find((r) => r.path === short);
    expect(before?.requests).toBeGreaterThan(0);

    // Append a copy of a real session's lines to it: more requests than before, as loading it says.
    appendFileSync(short, readFileSync(join(CC, 'tool_heavy.jsonl')));
    rmSync(join(project, 'microcompact.jsonl'));
    const second = await source.rows();
    expect(second.built).toBe(1);
    expect(second.rows.map((r) => r.path)).not.toContain(join(project, 'microcompact.jsonl'));
    expect(second.rows).toHaveLength(5);
    const after = second.rows.find((r) => r.path === short);
    expect(after?.requests).toBeGreaterThan(before?.requests ?? 0);
    expect(byKey(second.rows)).toEqual(byKey(await loaded()));
  });

  it('stops at the next session when aborted, and the next update reads the rest', async () => {
    const source = new CatalogHealthSource({ discover: discover(), dir: cache });
    const stop = new AbortController();
    const stopped = await source.rows((p) => {
      if (p.done === 1) stop.abort();
    }, stop.signal);
    expect(stopped.built).toBe(1);
    expect(stopped.rows).toHaveLength(1);
    expect(stopped.notes.join('\n')).toMatch(/index update was stopped/);

    // Aborted before its turn: nothing read, the rows the index holds.
    const before = await source.rows(undefined, AbortSignal.abort());
    expect([before.built, before.cached, before.rows.length]).toEqual([0, 1, 1]);

    const rest = await source.rows();
    expect([rest.built, rest.cached]).toEqual([5, 1]);
    expect(rest.notes.join('\n')).not.toMatch(/stopped/);
    expect(byKey(rest.rows)).toEqual(byKey(await loaded()));
  });

  it('leaves out sessions of roots it was not asked for', async () => {
    await new CatalogHealthSource({ discover: discover(), dir: cache }).rows();
    const codexOnly = new CatalogHealthSource({ discover: { ...discover(), harnesses: ['codex'] }, dir: cache });
    expect(codexOnly.stored()?.rows.map((r) => r.harness)).toEqual(['codex']);
    expect((await codexOnly.rows()).rows.map((r) => r.harness)).toEqual(['codex']);
  });

  it('lists a session that cannot be loaded with its error and goes on', async () => {
    const bad = join(project, 'broken.jsonl');
    appendFileSync(bad, '{"not": "a claude code line"\n');
    const r = await new CatalogHealthSource({ discover: discover(), dir: cache }).rows();
    expect(r.rows).toHaveLength(6);
    expect(r.problems.map((p) => p.path)).toContain(bad);
  });
});
