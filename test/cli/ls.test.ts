import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/*
 * `palimpsest ls` as a user runs it: the built command (bin/palimpsest.js → dist/cli.js, or
 * dist/ls.js when bin hands `ls` to it), with the harnesses' folders given by the environment.
 * Skipped, with the reason, while the built CLI has no `ls` command.
 */

const BIN = 'bin/palimpsest.js';
const BIG = '4d5611e5-241a-462a-8d15-5122611a9569';

const base = mkdtempSync(join(tmpdir(), 'palimpsest-cli-ls-'));
const home = join(base, 'home');
const claude = join(base, 'claude');
const codex = join(base, 'codex');
mkdirSync(home, { recursive: true });
mkdirSync(join(claude, 'projects', '-home-ada-spotter'), { recursive: true });
copyFileSync(`fixtures/claude-code/${BIG}.jsonl`, join(claude, 'projects', '-home-ada-spotter', `${BIG}.jsonl`));
cpSync(`fixtures/claude-code/${BIG}`, join(claude, 'projects', '-home-ada-spotter', BIG), { recursive: true });
mkdirSync(join(codex, 'sessions', '2026', '02', '23'), { recursive: true });
const rollout = 'rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl';
copyFileSync(`fixtures/codex/${rollout}`, join(codex, 'sessions', '2026', '02', '23', rollout));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: Record<string, string> = {}, entry = BIN): Run {
  const r = spawnSync(process.execPath, [entry, ...args], {
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '',
      HOME: home,
      PALIMPSEST_CACHE_DIR: join(base, 'cache'),
      CLAUDE_CONFIG_DIR: claude,
      CODEX_HOME: codex,
      ...env,
    },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const probe = run(['ls', '--harness', 'palimpsest', '--json']);
const wired = probe.code === 0;

describe.skipIf(!wired)(`palimpsest ls (built)${wired ? '' : ` — skipped: ${probe.stderr.split('\n')[0] ?? ''}`}`, () => {
  it('lists the sessions of the folders the environment names, subagents folded, as stable JSON', () => {
    const r = run(['ls', '--json', '--harness', 'claude-code,codex']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const j = JSON.parse(r.stdout) as {
      palimpsest: number;
      sessions: Record<string, unknown>[];
      roots: { source: string }[];
      index: { hits: number; scanned: number };
    };
    expect(j.palimpsest).toBe(1);
    expect(j.sessions.map((s) => [s.harness, s.requests, s.compactions, s.files])).toEqual([
      ['codex', 6, 0, 1],
      ['claude-code', 139, 1, 3],
    ]);
    expect(j.sessions[1]).toMatchObject({
      id: BIG,
      project: '/home/USER/projects/spotter-worktrees/spotter-dov',
      bytes: 3158801 + 296675 + 31159,
    });
    expect(new Set(j.roots.map((x) => x.source))).toEqual(new Set(['$CLAUDE_CONFIG_DIR', '$CODEX_HOME']));
    expect(j.index).toMatchObject({ hits: 0, scanned: 2 });

    const again = JSON.parse(run(['ls', '--json', '--harness', 'claude-code,codex']).stdout) as {
      index: { hits: number; scanned: number };
    };
    expect(again.index).toMatchObject({ hits: 2, scanned: 0 });
  });

  it('reports a corrupt index on stderr, rebuilds it and still exits 0', () => {
    mkdirSync(join(base, 'cache2'), { recursive: true });
    writeFileSync(join(base, 'cache2', 'index.db'), 'garbage');
    const r = run(['ls', '--harness', 'codex'], { PALIMPSEST_CACHE_DIR: join(base, 'cache2') });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/palimpsest ls: the index .* is corrupt .*it is rebuilt/);
    expect(r.stdout).toMatch(/^HARNESS/);
  });

  it('lists by scanning, with a note on stderr, when the index cannot be opened, and still exits 0', () => {
    writeFileSync(join(base, 'not-a-folder'), 'a file where the cache folder should be');
    const r = run(['ls', '--harness', 'codex'], { PALIMPSEST_CACHE_DIR: join(base, 'not-a-folder') });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/palimpsest ls: the index in .*not-a-folder could not be opened .*; the sessions were scanned/);
    expect(r.stdout).toMatch(/^HARNESS/);
    expect(r.stdout).toMatch(/\nindex: not used; 1 scanned\n$/);
  });

  it('exits 2 on bad usage', () => {
    const r = run(['ls', '--root', 'nonsense']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--root takes HARNESS=PATH/);
  });
});

describe.skipIf(!existsSync('dist/ls.js'))('dist/ls.js, the discovery bundle on its own', () => {
  it('gives the same JSON as the CLI', () => {
    const r = run(['ls', '--json', '--harness', 'codex', '--no-cache'], {}, 'dist/ls.js');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout) as { sessions: { requests: number }[]; index: { path: string | null } };
    expect(j.sessions.map((s) => s.requests)).toEqual([6]);
    expect(j.index.path).toBeNull();
  });
});
