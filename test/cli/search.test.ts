import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/*
 * `palimpsest search` as a user runs it (the built command), over a home whose Claude Code and
 * Codex folders hold real fixture sessions, its index in a private cache folder.
 */

const BIN = 'bin/palimpsest.js';
const base = mkdtempSync(join(tmpdir(), 'palimpsest-cli-search-'));
const home = join(base, 'home');
const project = join(base, 'claude', 'projects', '-home-ada-x');
mkdirSync(home, { recursive: true });
mkdirSync(project, { recursive: true });
for (const f of ['short.jsonl', 'dag_compact_after_rewind_preserved.jsonl']) copyFileSync(`fixtures/claude-code/${f}`, join(project, f));
const day = join(base, 'codex', 'sessions', '2026', '02', '23');
mkdirSync(day, { recursive: true });
const rollout = 'rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl';
copyFileSync(`fixtures/codex/${rollout}`, join(day, rollout));

function run(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '',
      HOME: home,
      PALIMPSEST_CACHE_DIR: join(base, 'cache'),
      CLAUDE_CONFIG_DIR: join(base, 'claude'),
      CODEX_HOME: join(base, 'codex'),
    },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface Hit {
  path: string;
  request: number | null;
  item: { id: string; kind: string };
  snippet: string;
  fate: string | null;
}

describe('palimpsest search (built)', () => {
  it('finds a phrase with its request, item, marked snippet and fate, as JSON', () => {
    const r = run(['search', '"After compaction"', '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout) as { hits: Hit[]; capped: number | null; index: { sessions: number; read: number } };
    expect(j.index).toMatchObject({ sessions: 3, read: 3 });
    // A few matches: every one ranked.
    expect(j.capped).toBeNull();
    expect(j.hits.length).toBeGreaterThan(0);
    const h = j.hits[0] as Hit;
    expect(h.path).toBe(join(project, 'dag_compact_after_rewind_preserved.jsonl'));
    expect(h.snippet).toContain('[After compaction]');
    expect(typeof h.item.id).toBe('string');
    expect(h.fate === null || typeof h.fate === 'string').toBe(true);
    // The session file is only read.
    expect(readFileSync(h.path).equals(readFileSync('fixtures/claude-code/dag_compact_after_rewind_preserved.jsonl'))).toBe(true);

    // A second run reads nothing again.
    const again = JSON.parse(run(['search', '"After compaction"', '--json']).stdout) as { index: { read: number } };
    expect(again.index.read).toBe(0);
  });

  it('filters by harness and by --has, and prints text with the match marked when not a terminal', () => {
    const codex = JSON.parse(run(['search', 'interrupt*', '--harness', 'codex', '--json']).stdout) as { hits: Hit[] };
    expect(codex.hits.every((h) => h.path.includes('/codex/'))).toBe(true);
    const claude = JSON.parse(run(['search', 'interrupt*', '--harness', 'claude-code', '--json']).stdout) as { hits: Hit[] };
    expect(claude.hits.length).toBeGreaterThan(0);
    const has = JSON.parse(run(['search', 'interrupt*', '--has', 'compaction', '--json']).stdout) as { hits: Hit[] };
    expect(has.hits.every((h) => h.path.includes('dag_compact'))).toBe(true);
    const text = run(['search', 'interrupt*', '--harness', 'claude-code']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/»interrupt\w*«/i);
    expect(text.stdout).toMatch(/at the latest request|after the latest request/);
  });

  it('exits 2 with a sentence on a query FTS5 rejects and on bad flags', () => {
    const bad = run(['search', '"unbalanced', '--json']);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout)).toMatchObject({ code: 'USAGE' });
    expect(bad.stderr).toMatch(/not valid full-text search syntax/);
    expect(run(['search', 'x', '--has', 'nothing']).code).toBe(2);
    expect(run(['search', 'x', '--since', 'yesterday']).code).toBe(2);
    expect(run(['search']).code).toBe(2);
  });
});
