import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ClientDef } from './clients';
import { TerminalSession } from './terminal';
import { type TurnResult, type TurnsContext, type TurnsPlayed, freePort, recorderBase, tail } from './turn';

/*
 * The turns of a `drive: 'terminal'` scenario, typed into one session of the client in a terminal
 * (./terminal.ts) rather than run as one headless process each. A turn ends when the mock, the
 * logs and the screen have been still for QUIET_MS and the client shows no work in progress; the
 * session ends with the client's own exit command, then the terminal is closed.
 */

/** How long nothing may change before a turn counts as done: longer than a tool call's pause between requests. */
const QUIET_MS = 3_000;
const EXIT_MS = 5_000;

/** The turns of a `drive: 'terminal'` scenario, typed into one interactive session of the client. */
export async function runInTerminal(ctx: TurnsContext): Promise<TurnsPlayed> {
  const { scenario, client, home, work, dir } = ctx;
  const problems: string[] = [];
  const captures: string[] = [];
  const turns: TurnResult[] = [];
  const def = client.interactive;
  if (!def) return { turns, sessionId: null, captures, problems: [`${client.id} has no interactive mode here: the scenario cannot run`] };
  if (!(await TerminalSession.available()))
    return { turns, sessionId: null, captures, problems: ['tmux is not installed: the scenario typed into a terminal cannot run'] };
  // Recorded: one `palimpsest record` for the whole session, as a user would wrap the client.
  const port = ctx.record ? await freePort() : null;
  const baseUrl = port === null ? ctx.mockUrl : recorderBase(port, client.protocol);
  const dirs = { home, work, baseUrl };
  const env = { ...client.env(dirs), ...scenario.env, TERM: 'xterm-256color' };
  delete (env as Record<string, string | undefined>).NO_COLOR;
  for (const [p, text] of Object.entries(def.homeFiles(dirs, env))) {
    mkdirSync(dirname(join(home, p)), { recursive: true });
    writeFileSync(join(home, p), text);
  }
  const argv = def.argv(dirs, scenario.settings);
  let cmd = ctx.bin;
  let args = argv;
  if (ctx.record && port !== null) {
    const out = join(dir, 'capture-1.jsonl');
    captures.push(out);
    cmd = process.execPath;
    args = [ctx.record.cli, 'record', '--out', out, '--upstream', ctx.mockUrl, '--port', String(port), '--', ctx.bin, ...argv];
  }
  // What a turn is watched by besides the screen: the requests the mock has recorded and the logs' sizes.
  const state = (): string => `${recorded(dir)}:${logSizes(client, home)}`;
  const term = await TerminalSession.start({ bin: cmd, argv: args, env, cwd: work });
  try {
    const ready = await term.settle(state, def, QUIET_MS, scenario.turnTimeoutMs);
    if (ready.timedOut) problems.push(`the interactive client did not settle after starting: ${tail(ready.screen, 300).trim()}`);
    for (const [i, t] of scenario.turns.entries()) {
      if (ready.timedOut) break;
      ctx.log?.(
        `  ${client.id} ${scenario.name} turn ${i + 1} (typed): ${JSON.stringify(t.prompt.slice(0, 60))}${port !== null ? ' (recorded)' : ''}`,
      );
      await term.type(t.prompt);
      const r = await term.settle(state, def, QUIET_MS, scenario.turnTimeoutMs);
      turns.push({
        prompt: t.prompt,
        argv,
        exitCode: null,
        signal: null,
        timedOut: r.timedOut,
        durationMs: r.ms,
        sessionId: null,
        expect: t.expect,
        stdout: tail(r.screen),
        stderr: '',
      });
      if (r.timedOut) {
        problems.push(`turn ${i + 1} did not settle after ${scenario.turnTimeoutMs} ms: ${tail(r.screen, 300).trim()}`);
        break;
      }
    }
    await term.type(def.exit);
    await term.settle(state, { busy: /$^/, ready: /(?:)/ }, 1_000, EXIT_MS);
  } finally {
    await term[Symbol.asyncDispose]();
  }
  return { turns, sessionId: null, captures, problems };
}

/** The size of the mock's recording (captured.jsonl, in the run's folder): it grows with every request. */
function recorded(dir: string): number {
  try {
    return statSync(join(dir, 'captured.jsonl')).size;
  } catch {
    return 0;
  }
}

/** The sizes of the client's logs, as one string that changes whenever one grows. */
function logSizes(client: ClientDef, home: string): string {
  return client
    .logs(home)
    .map((l) => {
      try {
        return statSync(l).size;
      } catch {
        return -1;
      }
    })
    .join(',');
}
