import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, runBuilt } from './run-built';

const RECOVERY = 'fixtures/dsh/examples/headless-agent/tests/snapshots/compaction-recovery/session.jsonl';
const LINES = readFileSync(RECOVERY, 'utf8')
  .split('\n')
  .filter((l) => l !== '');

type Update = Record<string, unknown> & { type: string };

/** `inspect FILE --follow --json` as a child process, its JSON lines collected as they come. */
function follow(file: string): { child: ChildProcess; updates: Update[]; exited: Promise<number | null>; stderr(): string } {
  const child = spawn(process.execPath, [BIN, 'inspect', file, '--follow', '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const updates: Update[] = [];
  let rest = '';
  child.stdout?.on('data', (d: Buffer) => {
    const parts = (rest + d.toString('utf8')).split('\n');
    rest = parts.pop() ?? '';
    for (const p of parts) if (p.trim() !== '') updates.push(JSON.parse(p) as Update);
  });
  let said = '';
  child.stderr?.on('data', (d: Buffer) => void (said += d.toString('utf8')));
  const exited = new Promise<number | null>((ok) => child.on('exit', (code) => ok(code)));
  return { child, updates, exited, stderr: () => said };
}

async function until(what: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((ok) => setTimeout(ok, 25));
  }
}

const withoutType = ({ type: _, ...rest }: Update): Record<string, unknown> => rest;

describe('palimpsest inspect --follow --json', () => {
  let dir: string;
  let file: string;
  let run: ReturnType<typeof follow> | null;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'palimpsest-follow-cli-'));
    file = join(dir, 'session.jsonl');
    run = null;
  });
  afterEach(() => {
    if (run && run.child.exitCode === null) run.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints what is appended as entries of inspect --json, and exits 0 on SIGTERM', async () => {
    writeFileSync(file, LINES.slice(0, 3).join('\n') + '\n');
    run = follow(file);
    const { updates } = run;
    const started = run;
    await until(() => started.stderr().includes('Following'));
    // A half-written line waits: nothing is read of it, no finding about it.
    const rest = LINES.slice(3).join('\n') + '\n';
    appendFileSync(file, rest.slice(0, 30));
    await new Promise((ok) => setTimeout(ok, 400));
    expect(updates.filter((u) => u.type === 'finding')).toEqual([]);
    appendFileSync(file, rest.slice(30));
    const whole = JSON.parse((await runBuilt(['inspect', file, '--json'], 60_000)).stdout) as {
      requests: Record<string, unknown>[];
      compactions: Record<string, unknown>[];
      diagnostics: Record<string, unknown>[];
    };
    await until(() => updates.some((u) => u.type === 'compaction' && u.outcome === 'committed'));
    await until(() => new Set(updates.filter((u) => u.type === 'request').map((u) => u.index)).size === whole.requests.length);
    // The last entry given for each index or id is the one a fresh inspection shows (but the token estimate, not counted while following).
    const last = new Map<unknown, Record<string, unknown>>();
    for (const u of updates) if (u.type === 'request') last.set(u.index, { ...withoutType(u), estimatedTokens: null });
    expect([...last.values()]).toEqual(whole.requests.map((r) => ({ ...r, estimatedTokens: null })));
    const compactions = updates.filter((u) => u.type === 'compaction').map(withoutType);
    expect(compactions.at(-1)).toEqual(whole.compactions.at(-1));
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });

  it('reports a bad appended line by file and line, and a truncation as reloaded', async () => {
    writeFileSync(file, LINES.join('\n') + '\n');
    run = follow(file);
    const { updates } = run;
    await until(() => updates.some((u) => u.type === 'compaction'));
    appendFileSync(file, '{"cut off\n');
    await until(() => updates.some((u) => u.type === 'finding' && u.rule === 'READ_INVALID_JSON'));
    expect(updates.find((u) => u.rule === 'READ_INVALID_JSON')).toMatchObject({ file, line: LINES.length + 1 });
    writeFileSync(file, LINES.slice(0, 14).join('\n') + '\n');
    await until(() => updates.some((u) => u.type === 'reloaded'));
    const at = updates.findIndex((u) => u.type === 'reloaded');
    expect(updates[at]).toMatchObject({ type: 'reloaded', path: file, reason: expect.stringMatching(/truncated/) as unknown });
    // After the note, the whole (shorter) session again: no compaction any more.
    await until(() => updates.slice(at).some((u) => u.type === 'request'));
    expect(updates.slice(at + 1).some((u) => u.type === 'compaction')).toBe(false);
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
  });
});
