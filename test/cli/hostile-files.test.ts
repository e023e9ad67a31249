import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Fifos, scratch } from '../hostile/fifos';

/*
 * The built command on files that are not regular files, and on symbolic link loops. A FIFO
 * could make the command wait forever: every run has a time limit and is killed when it passes
 * it (the test then fails on the kill), and every FIFO made is given a writer afterwards, which
 * releases a read left waiting on it.
 */

const BIN = 'bin/palimpsest.js';
const LIMIT = 10_000;
const CLAUDE_SESSION = 'fixtures/claude-code/4d5611e5-241a-462a-8d15-5122611a9569';

const fifos = new Fifos();
const fifo = (path: string): string => fifos.make(path);
const dirs = scratch('palimpsest-cli-hostile-files-');
const { base, fresh } = dirs;
const children = new Set<ChildProcess>();

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  killed: boolean;
}

/** Runs the command; kills it (and says so) after `limit` ms. */
function run(args: string[], limit = 6_000, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: join(base, 'home'), PALIMPSEST_DATA_DIR: join(base, 'data'), ...env },
    });
    children.add(child);
    let stdout = '';
    let stderr = '';
    let killed = false;
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, limit);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      done({ code, signal, stdout, stderr, killed });
    });
  });
}

afterEach(() => {
  for (const c of children) c.kill('SIGKILL');
  fifos.release();
});

afterAll(() => dirs.remove());

describe('palimpsest on FIFOs, devices and symbolic link loops (built)', () => {
  it('validate finishes on a folder whose subagents/ holds a FIFO, and names it', { timeout: LIMIT }, async () => {
    const dir = fresh('claude');
    cpSync(CLAUDE_SESSION, join(dir, 'sid'), { recursive: true });
    cpSync(`${CLAUDE_SESSION}.jsonl`, join(dir, 'sid.jsonl'));
    const f = fifo(join(dir, 'sid', 'subagents', 'agent-zzfifo.jsonl'));
    const r = await run(['validate', dir, '--json']);
    expect(r.killed).toBe(false);
    const j = JSON.parse(r.stdout) as { sessions: { diagnostics: { rule: string; file: string; message: string }[] }[] };
    expect(j.sessions).toHaveLength(1);
    expect(j.sessions[0]?.diagnostics).toContainEqual(
      expect.objectContaining({ rule: 'READ_IO', file: f, message: `${f} is a FIFO, not a regular file.` }),
    );
  });

  it('inspect on a FIFO exits 2 saying it is a FIFO', { timeout: LIMIT }, async () => {
    const f = fifo(join(fresh('fifo'), 'session.jsonl'));
    const r = await run(['inspect', f]);
    expect(r.killed).toBe(false);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${f} is a FIFO, not a regular file`);
  });

  it('inspect on a device exits 2 saying what it is', { timeout: LIMIT }, async () => {
    const r = await run(['inspect', '/dev/zero', '--format', 'palimpsest']);
    expect(r.killed).toBe(false);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('/dev/zero is a character device, not a regular file');
  });

  it('a symbolic link loop is called a loop by inspect, validate on its folder, and ls', { timeout: LIMIT }, async () => {
    const dir = fresh('loop');
    cpSync('fixtures/palimpsest/basic.jsonl', join(dir, 'basic.jsonl'));
    const loop = join(dir, 'loop.jsonl');
    symlinkSync(loop, loop);
    const inspect = await run(['inspect', loop]);
    expect(inspect.code).toBe(2);
    expect(inspect.stderr).toContain(`${loop} is a symbolic link loop`);
    expect(inspect.stderr).not.toContain('no such file');

    const validate = await run(['validate', dir, '--json']);
    expect(validate.killed).toBe(false);
    const j = JSON.parse(validate.stdout) as { sessions: { path: string; error?: string }[] };
    expect(j.sessions).toContainEqual(expect.objectContaining({ path: loop, error: `${loop} is a symbolic link loop` }));
    expect(j.sessions.map((s) => s.path)).toContain(join(dir, 'basic.jsonl'));

    const ls = await run(['ls', '--root', `palimpsest=${dir}`, '--json'], 6_000, { PALIMPSEST_CACHE_DIR: join(base, 'cache') });
    expect(ls.killed).toBe(false);
    expect(ls.stdout + ls.stderr).toContain(`${loop} is a symbolic link loop; skipped`);
  });

  it('serve refuses a FIFO given as a session', { timeout: LIMIT }, async () => {
    const f = fifo(join(fresh('serve-fifo'), 'session.jsonl'));
    const r = await run(['serve', f, '--port', '0']);
    expect(r.killed).toBe(false);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${f} is a FIFO, not a regular file`);
  });

  it('serve exits within 2 s of one SIGTERM, even with a read stuck on a FIFO', { timeout: LIMIT }, async () => {
    const child = spawn(
      process.execPath,
      ['--input-type=module', '-e', STUCK_SERVE, join(process.cwd(), 'dist', 'cli.js'), fifo(join(fresh('serve-stuck'), 'pipe'))],
      {
        env: { PATH: process.env.PATH ?? '', HOME: join(base, 'home'), PALIMPSEST_DATA_DIR: join(base, 'data') },
      },
    );
    children.add(child);
    let stdout = '';
    const listening = new Promise<void>((ok) => {
      child.stdout.on('data', (b: Buffer) => {
        stdout += b.toString();
        if (stdout.includes('STUCK')) ok();
      });
    });
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((ok) =>
      child.on('close', (code, signal) => ok({ code, signal })),
    );
    await listening;
    const sent = Date.now();
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 4_000);
    const end = await ended;
    clearTimeout(timer);
    children.delete(child);
    expect(Date.now() - sent).toBeLessThan(2_000);
    // Ended by the signal it was sent (not the test's SIGKILL), or by exiting cleanly.
    expect(end.signal === 'SIGTERM' || end.code === 0).toBe(true);
  });
});

/*
 * `palimpsest serve` as the built CLI runs it, with a thread of libuv's pool blocked opening a FIFO
 * the way a read without the checks would be: work no shutdown can cancel, which keeps the event
 * loop alive (and which process.exit() would wait for). One thread only, so the host can start.
 */
const STUCK_SERVE = `
import { open } from 'node:fs/promises';
const [cli, pipe] = process.argv.slice(1);
open(pipe, 'r').catch(() => undefined);
process.argv = [process.argv[0], cli, 'serve', '--port', '0'];
const out = process.stdout.write.bind(process.stdout);
process.stdout.write = (s, ...rest) => {
  const r = out(s, ...rest);
  if (String(s).includes('Stop with Ctrl-C')) out('STUCK\\n');
  return r;
};
await import(cli);
`;
