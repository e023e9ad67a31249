import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { type CapturedRequest, startMockProvider } from '../mock';
import { CLIENTS, type ClientDef, logRelative } from './clients';
import type { Installed } from './install';
import type { Scenario } from './scenario';
import { runServed } from './serve';
import { runInTerminal } from './run-interactive';
import { type TurnResult, type TurnsContext, type TurnsPlayed, freePort, recorderBase, tail, turnProblem } from './turn';

/*
 * Runs one scenario: a fresh HOME / CODEX_HOME and working directory under the run root, the mock
 * provider on loopback recording into `captured.jsonl`, then each turn of the scenario as a child
 * process (stdin closed, bounded in time, killed with its process group when over). Collects the
 * captured requests and the log files the client wrote.
 *
 * The run directory is fixed (`<root>/<client>-<version>/<scenario>/`, emptied first) so the absolute
 * paths the clients write into their logs are the same from run to run.
 */

export interface RunResult {
  readonly scenario: Scenario;
  readonly client: ClientDef;
  readonly version: string;
  readonly dir: string;
  readonly home: string;
  readonly work: string;
  readonly turns: readonly TurnResult[];
  readonly sessionId: string | null;
  readonly captured: readonly CapturedRequest[];
  readonly capturedPath: string;
  /** The captures `palimpsest record` wrote, one per turn (empty when the run was not recorded). */
  readonly captures: readonly string[];
  /** Absolute paths of the logs written, main files first. */
  readonly logs: readonly string[];
  readonly mainLog: string | null;
  readonly unusedSteps: readonly { step: number; label: string | null; used: number; times: number }[];
  /** Things that went wrong with the run itself (not with Palimpsest's views). */
  readonly problems: readonly string[];
}

export function defaultRunRoot(): string {
  return join(tmpdir(), 'palimpsest-fidelity-run');
}

function runTurn(
  bin: string,
  argv: string[],
  env: Record<string, string>,
  cwd: string,
  timeoutMs: number,
): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string; timedOut: boolean; ms: number }> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn(bin, argv, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    // Keep at most 1 MB of each stream.
    child.stdout.on('data', (c: Buffer) => {
      if (stdout.length < 1_000_000) stdout += c.toString('utf8');
    });
    child.stderr.on('data', (c: Buffer) => {
      if (stderr.length < 1_000_000) stderr += c.toString('utf8');
    });
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
      }
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ code: null, signal: null, stdout, stderr: `${stderr}\n${err.message}`, timedOut, ms: Date.now() - t0 });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut, ms: Date.now() - t0 });
    });
  });
}

/** Each turn a process of its own, continuing the first turn's session. */
async function runProcesses(ctx: TurnsContext): Promise<TurnsPlayed> {
  const { scenario, client, dir, home, work } = ctx;
  const turns: TurnResult[] = [];
  const problems: string[] = [];
  const captures: string[] = [];
  let sessionId: string | null = null;
  for (const [i, t] of scenario.turns.entries()) {
    const resume = i > 0 && t.resume !== false ? sessionId : null;
    if (i > 0 && t.resume !== false && !resume) {
      problems.push(`turn ${i + 1}: no session id to resume`);
      break;
    }
    // Recorded: the client talks to `palimpsest record`, which forwards to the mock and writes a
    // capture per turn; the recorder sets the base URL variables itself.
    const port = ctx.record ? await freePort() : null;
    const baseUrl = port === null ? ctx.mockUrl : recorderBase(port, client.protocol);
    const dirs = { home, work, baseUrl };
    const argv = client.argv({ prompt: t.prompt, resume, args: t.args }, dirs, scenario.settings);
    ctx.log?.(
      `  ${client.id} ${scenario.name} turn ${i + 1}: ${JSON.stringify(t.prompt.slice(0, 60))}${resume ? ' (resume)' : ''}${port !== null ? ' (recorded)' : ''}`,
    );
    let bin = ctx.bin;
    let args = argv;
    if (ctx.record && port !== null) {
      const out = join(dir, `capture-${i + 1}.jsonl`);
      captures.push(out);
      bin = process.execPath;
      args = [ctx.record.cli, 'record', '--out', out, '--upstream', ctx.mockUrl, '--port', String(port), '--', ctx.bin, ...argv];
    }
    const r = await runTurn(bin, args, { ...client.env(dirs), ...scenario.env }, work, scenario.turnTimeoutMs);
    const sid = client.sessionId(r.stdout, r.stderr);
    if (sid && !sessionId) sessionId = sid;
    const result: TurnResult = {
      prompt: t.prompt,
      argv,
      exitCode: r.code,
      signal: r.signal,
      timedOut: r.timedOut,
      durationMs: r.ms,
      sessionId: sid,
      expect: t.expect,
      stdout: tail(r.stdout),
      stderr: tail(r.stderr),
    };
    turns.push(result);
    const problem = turnProblem(i, result, scenario.turnTimeoutMs, r.stderr || r.stdout);
    if (problem) problems.push(problem);
  }
  return { turns, sessionId, captures, problems };
}

export async function runScenario(
  scenario: Scenario,
  installed: Pick<Extract<Installed, { ok: true }>, 'bin'>,
  opts: { root?: string; log?: (s: string) => void; client?: ClientDef; record?: { readonly cli: string } } = {},
): Promise<RunResult> {
  const client = opts.client ?? CLIENTS[scenario.client];
  const dir = join(opts.root ?? defaultRunRoot(), `${client.id}-${client.version}`, scenario.name);
  rmSync(dir, { recursive: true, force: true });
  const home = join(dir, 'home');
  const work = join(dir, 'work');
  mkdirSync(home, { recursive: true });
  mkdirSync(work, { recursive: true });
  const capturedPath = join(dir, 'captured.jsonl');
  const mock = await startMockProvider({ script: scenario.script, recordPath: capturedPath });
  const files = {
    ...client.homeFiles?.({ home, work, baseUrl: mock.url }),
    ...Object.fromEntries(Object.entries(scenario.homeFiles).map(([p, v]) => [p, `${JSON.stringify(v, null, 2)}\n`])),
  };
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(dirname(join(home, p)), { recursive: true });
    writeFileSync(join(home, p), text);
  }
  const ctx: TurnsContext = {
    scenario,
    client,
    bin: installed.bin,
    dir,
    home,
    work,
    mockUrl: mock.url,
    record: opts.record,
    log: opts.log,
  };
  let played: TurnsPlayed;
  try {
    played =
      scenario.drive === 'server'
        ? await runServed(ctx)
        : scenario.drive === 'terminal'
          ? await runInTerminal(ctx)
          : await runProcesses(ctx);
  } finally {
    await mock.dispose();
  }
  const { turns, sessionId, captures } = played;
  const problems = [...played.problems];
  const logs = client.logs(home);
  if (logs.length === 0) problems.push('the client wrote no log');
  return {
    scenario,
    client,
    version: client.version,
    dir,
    home,
    work,
    turns,
    sessionId,
    captured: [...mock.requests],
    capturedPath,
    captures,
    logs,
    mainLog: client.mainLog(logs, sessionId),
    unusedSteps: mock.player.unused(),
    problems,
  };
}

/** Where a run's fixtures go: `<fixtures>/logs/<client>-<version>/<scenario>/`. */
export function fixtureDir(fixturesRoot: string, client: ClientDef, scenario: string): string {
  return join(fixturesRoot, 'logs', `${client.id}-${client.version}`, scenario);
}

/**
 * Copies a run's logs (under their paths relative to the client's home: `projects/…`,
 * `sessions/…`), its `captured.jsonl` and a `run.json` summary into the fixtures folder.
 */
export function copyRun(r: RunResult, fixturesRoot: string): string {
  const out = fixtureDir(fixturesRoot, r.client, r.scenario.name);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const rel: string[] = [];
  for (const l of r.logs) {
    const p = logRelative(r.client, r.home, l);
    mkdirSync(dirname(join(out, p)), { recursive: true });
    copyFileSync(l, join(out, p));
    rel.push(p);
  }
  if (existsSync(r.capturedPath)) copyFileSync(r.capturedPath, join(out, 'captured.jsonl'));
  const captures = r.captures
    .filter((c) => existsSync(c))
    .map((c) => {
      copyFileSync(c, join(out, basename(c)));
      return basename(c);
    });
  const summary = {
    scenario: r.scenario.name,
    client: r.client.id,
    version: r.version,
    description: r.scenario.description,
    covers: r.scenario.covers,
    runDir: r.dir,
    sessionId: r.sessionId,
    mainLog: r.mainLog ? logRelative(r.client, r.home, r.mainLog) : null,
    logs: rel,
    requests: r.captured.length,
    captures,
    turns: r.turns.map((t) => ({
      prompt: t.prompt,
      argv: t.argv,
      exitCode: t.exitCode,
      timedOut: t.timedOut,
      durationMs: t.durationMs,
      sessionId: t.sessionId,
      stdout: t.stdout,
      stderr: t.stderr,
    })),
    unusedSteps: r.unusedSteps,
    problems: r.problems,
  };
  writeFileSync(join(out, 'run.json'), `${JSON.stringify(summary, null, 2)}\n`);
  return out;
}
