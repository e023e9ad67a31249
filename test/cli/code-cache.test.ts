import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Script } from 'node:vm';
import { crc32 } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { runBuilt } from './run-built';

/*
 * The V8 code cache of the commands that open one session (bin/open.js): written after a first
 * run, accepted by the next, and only a cache — a damaged file, or one V8 rejects, changes no
 * output and is written again; nothing of it lands next to the session or in a harness's folder.
 * PALIMPSEST_DEBUG_CODE_CACHE=1 makes the loader say on stderr what became of it.
 */

const SESSION = 'fixtures/claude-code/short.jsonl';
const base = mkdtempSync(join(tmpdir(), 'palimpsest-cli-code-cache-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const run = (dir: string, args: readonly string[], more: NodeJS.ProcessEnv = {}) =>
  runBuilt(args, 60_000, { ...process.env, PALIMPSEST_CACHE_DIR: dir, PALIMPSEST_DEBUG_CODE_CACHE: '1', ...more });
const said = (stderr: string): string[] => stderr.split('\n').filter((l) => l.startsWith('code cache: '));
const cacheFile = (dir: string, command: string): string => join(dir, 'code-cache', `open-${command}.v8`);

/** The output of `args` with no code cache at all, to compare against. */
async function plain(args: readonly string[]): Promise<{ code: number; stdout: string }> {
  const r = await run(join(base, 'plain'), args, { PALIMPSEST_NO_CODE_CACHE: '1' });
  expect(said(r.stderr)).toEqual([]);
  expect(existsSync(join(base, 'plain', 'code-cache'))).toBe(false);
  return { code: r.code, stdout: r.stdout };
}

describe('the code cache of the commands that open a session', () => {
  it('is written after a first run and accepted by the next, with the same output', async () => {
    const args = ['inspect', SESSION, '--json'];
    const want = await plain(args);
    const dir = join(base, 'a');
    const first = await run(dir, args);
    expect(said(first.stderr)).toEqual(['code cache: absent or foreign', 'code cache: written']);
    expect(readFileSync(cacheFile(dir, 'inspect')).subarray(0, 8).toString()).toBe('PLMV8C01');
    const second = await run(dir, args);
    expect(said(second.stderr)).toEqual(['code cache: accepted']);
    for (const r of [first, second]) expect({ code: r.code, stdout: r.stdout }).toEqual(want);
  });

  it('ignores a damaged file and writes it again, the output unchanged', async () => {
    const args = ['validate', SESSION];
    const want = await plain(args);
    const dir = join(base, 'b');
    await run(dir, args);
    const whole = readFileSync(cacheFile(dir, 'validate'));
    const damaged = Buffer.from(whole);
    damaged[damaged.length - 100] = (damaged[damaged.length - 100] ?? 0) ^ 0xff;
    for (const bytes of [Buffer.from('not a cache at all'), whole.subarray(0, whole.length / 2), damaged]) {
      writeFileSync(cacheFile(dir, 'validate'), bytes);
      const r = await run(dir, args);
      expect(said(r.stderr)).toEqual(['code cache: absent or foreign', 'code cache: written']);
      expect({ code: r.code, stdout: r.stdout }).toEqual(want);
      expect(said((await run(dir, args)).stderr)).toEqual(['code cache: accepted']);
    }
  });

  it("takes V8's rejection of data for another script quietly and writes its own", async () => {
    const args = ['view', SESSION, '--request', '0'];
    const want = await plain(args);
    const dir = join(base, 'c');
    await run(dir, args);
    // The file's own head and key, with V8's data of another script behind them.
    const whole = readFileSync(cacheFile(dir, 'view'));
    const keyEnd = 16 + whole.readUInt32LE(12);
    const rest = Buffer.concat([whole.subarray(12, keyEnd), new Script('"another script"').createCachedData()]);
    const head = Buffer.alloc(12);
    whole.copy(head, 0, 0, 8);
    head.writeUInt32LE(crc32(rest), 8);
    writeFileSync(cacheFile(dir, 'view'), Buffer.concat([head, rest]));
    const r = await run(dir, args);
    expect(said(r.stderr)).toEqual(['code cache: rejected', 'code cache: written']);
    expect({ code: r.code, stdout: r.stdout }).toEqual(want);
    expect(said((await run(dir, args)).stderr)).toEqual(['code cache: accepted']);
  });

  it('writes nothing next to the session, nor in a harness folder, nor with --no-cache', async () => {
    const home = join(base, 'home');
    const sessions = join(home, '.claude', 'projects', '-work');
    mkdirSync(sessions, { recursive: true });
    const session = join(sessions, 'short.jsonl');
    copyFileSync(SESSION, session);
    const inHarness = join(home, '.claude', 'palimpsest-cache');
    const r = await run(inHarness, ['inspect', session], { HOME: home, CLAUDE_CONFIG_DIR: '', XDG_CACHE_HOME: '' });
    expect(said(r.stderr)).toEqual(['code cache: absent or foreign', 'code cache: not written']);
    expect(existsSync(join(inHarness, 'code-cache'))).toBe(false);
    expect(readdirSync(sessions)).toEqual(['short.jsonl']);
    const dir = join(base, 'd');
    const none = await run(dir, ['tokens', SESSION, '--no-cache']);
    expect(said(none.stderr)).toEqual([]);
    expect(existsSync(join(dir, 'code-cache'))).toBe(false);
  });

  it('leaves the commands loaded only when run to dist/cli.js', async () => {
    const dir = join(base, 'e');
    const r = await run(dir, ['runs', '--json']);
    expect(said(r.stderr)).toEqual([]);
    expect(existsSync(join(dir, 'code-cache'))).toBe(false);
  });
});
