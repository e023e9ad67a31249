import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { RunDirs } from './clients';
import { type TurnResult, type TurnsContext, type TurnsPlayed, freePort, recorderBase, tail, turnProblem } from './turn';

/*
 * A scenario driven through the client's own HTTP server (`drive: 'server'`): the server starts
 * once in the run's HOME and working directory (behind `palimpsest record` when the run is
 * recorded, so the whole run is one capture), each turn is a call to its API (the client's
 * ServeDef), and the server is stopped with SIGTERM at the end, so the client closes its files as
 * it does on a normal exit.
 */

/** How long the server may take to say where it listens. */
const START_MS = 60_000;
const STOP_MS = 10_000;

interface Server {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  output: string;
  exited: boolean;
}

function start(bin: string, args: string[], env: Record<string, string>, cwd: string): Server {
  const child = spawn(bin, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const s: Server = { child, output: '', exited: false };
  // Keep at most 1 MB of what the server prints.
  const keep = (c: Buffer) => {
    if (s.output.length < 1_000_000) s.output += c.toString('utf8');
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  child.on('close', () => {
    s.exited = true;
  });
  child.on('error', (e) => {
    s.output += `\n${e.message}`;
    s.exited = true;
  });
  return s;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor<T>(probe: () => T | null, ms: number): Promise<T | null> {
  const end = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== null || Date.now() > end) return v;
    await sleep(100);
  }
}

/** SIGTERM (the recorder passes it on to the client), then the whole process group when it lingers. */
async function stop(s: Server): Promise<void> {
  if (s.exited || s.child.pid === undefined) return;
  s.child.kill('SIGTERM');
  if ((await waitFor(() => (s.exited ? true : null), STOP_MS)) !== null) return;
  try {
    process.kill(-s.child.pid, 'SIGKILL');
  } catch {
    s.child.kill('SIGKILL');
  }
  await waitFor(() => (s.exited ? true : null), STOP_MS);
}

export async function runServed(ctx: TurnsContext): Promise<TurnsPlayed> {
  const { scenario, client } = ctx;
  const serve = client.serve;
  if (!serve) return { turns: [], sessionId: null, captures: [], problems: [`${client.id} has no server to drive`] };
  const port = ctx.record ? await freePort() : null;
  const dirs: RunDirs = { home: ctx.home, work: ctx.work, baseUrl: port === null ? ctx.mockUrl : recorderBase(port, client.protocol) };
  const captures = port === null ? [] : [join(ctx.dir, 'capture-1.jsonl')];
  const [bin, args] =
    ctx.record && port !== null
      ? [
          process.execPath,
          [
            ctx.record.cli,
            'record',
            '--out',
            join(ctx.dir, 'capture-1.jsonl'),
            '--upstream',
            ctx.mockUrl,
            '--port',
            String(port),
            '--',
            ctx.bin,
            ...serve.argv(),
          ],
        ]
      : [ctx.bin, serve.argv()];
  ctx.log?.(`  ${client.id} ${scenario.name}: ${serve.argv().join(' ')}${port !== null ? ' (recorded)' : ''}`);
  const server = start(bin, args, { ...client.env(dirs), ...scenario.env }, ctx.work);
  const turns: TurnResult[] = [];
  const problems: string[] = [];
  let sessionId: string | null = null;
  try {
    const base = await waitFor(() => (server.exited ? '' : serve.url(server.output)), START_MS);
    if (!base) {
      problems.push(`the server did not start: ${tail(server.output, 300).trim()}`);
      return { turns, sessionId, captures, problems };
    }
    for (const [i, t] of scenario.turns.entries()) {
      const resume = i > 0 && t.resume !== false ? sessionId : null;
      ctx.log?.(
        `  ${client.id} ${scenario.name} turn ${i + 1}: ${JSON.stringify(t.prompt.slice(0, 60))}${resume ? ' (same session)' : ''}`,
      );
      const t0 = Date.now();
      const signal = AbortSignal.timeout(scenario.turnTimeoutMs);
      const r = await serve.turn(base, { prompt: t.prompt, resume, args: t.args }, scenario.settings, signal);
      const ms = Date.now() - t0;
      if (r.sessionId && !sessionId) sessionId = r.sessionId;
      const result: TurnResult = {
        prompt: t.prompt,
        argv: r.calls,
        exitCode: r.status >= 200 && r.status < 300 ? 0 : 1,
        signal: null,
        timedOut: signal.aborted,
        durationMs: ms,
        sessionId: r.sessionId,
        expect: t.expect,
        stdout: tail(r.body),
        stderr: '',
      };
      turns.push(result);
      const problem = turnProblem(i, result, scenario.turnTimeoutMs, `HTTP ${r.status}: ${r.body}`);
      if (problem) problems.push(problem);
      if (signal.aborted) break;
      await sleep(serve.settleMs);
      if (server.exited) {
        problems.push(`the server exited after turn ${i + 1}: ${tail(server.output, 300).trim()}`);
        break;
      }
    }
  } finally {
    await stop(server);
  }
  return { turns, sessionId, captures, problems };
}
