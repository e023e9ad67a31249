import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { MockProvider } from '../mock';
import type { ClientDef, InteractiveDef } from './clients';
import type { TurnResult } from './run';
import { freePort, RECORD_ROUTE, tail } from './run-shared';
import type { Scenario } from './scenario';
import { TerminalSession } from './terminal';

/*
 * The turns of an `interactive` scenario, typed into one session of the client in a terminal
 * (./terminal.ts) rather than run as one headless process each. A turn ends when the mock, the
 * logs and the screen have been still for QUIET_MS and the client shows no work in progress; the
 * session ends with the client's own exit command, then the terminal is closed.
 */

/** How long nothing may change before a turn counts as done: longer than a tool call's pause between requests. */
const QUIET_MS = 3_000;
const EXIT_MS = 5_000;

export interface InteractiveRun {
  readonly turns: TurnResult[];
  readonly problems: string[];
  readonly captures: string[];
}

export async function runInteractive(
  scenario: Scenario,
  client: ClientDef,
  def: InteractiveDef,
  bin: string,
  ctx: {
    readonly home: string;
    readonly work: string;
    readonly dir: string;
    readonly mock: MockProvider;
    readonly opts: { readonly log?: (s: string) => void; readonly record?: { readonly cli: string } };
  },
): Promise<InteractiveRun> {
  const { home, work, dir, mock, opts } = ctx;
  const problems: string[] = [];
  const captures: string[] = [];
  const turns: TurnResult[] = [];
  // Recorded: one `palimpsest record` for the whole session, as a user would wrap the client.
  const port = opts.record ? await freePort() : null;
  const baseUrl = port === null ? mock.url : `http://127.0.0.1:${port}/${RECORD_ROUTE[client.protocol] ?? 'anthropic'}`;
  const dirs = { home, work, baseUrl };
  const env = { ...client.env(dirs), ...scenario.env, TERM: 'xterm-256color' };
  delete (env as Record<string, string | undefined>).NO_COLOR;
  for (const [p, text] of Object.entries(def.homeFiles(dirs, env))) {
    mkdirSync(dirname(join(home, p)), { recursive: true });
    writeFileSync(join(home, p), text);
  }
  const argv = def.argv(dirs, scenario.settings);
  let cmd = bin;
  let args = argv;
  if (opts.record && port !== null) {
    const out = join(dir, 'capture-1.jsonl');
    captures.push(out);
    cmd = process.execPath;
    args = [opts.record.cli, 'record', '--out', out, '--upstream', mock.url, '--port', String(port), '--', bin, ...argv];
  }
  // What a turn is watched by besides the screen: the requests the mock has seen and the logs' sizes.
  const state = (): string => `${mock.requests.length}:${logSizes(client, home)}`;
  const term = await TerminalSession.start({ bin: cmd, argv: args, env, cwd: work });
  try {
    const ready = await term.settle(state, def, QUIET_MS, scenario.turnTimeoutMs);
    if (ready.timedOut) problems.push(`the interactive client did not settle after starting: ${tail(ready.screen, 300).trim()}`);
    for (const [i, t] of scenario.turns.entries()) {
      if (ready.timedOut) break;
      opts.log?.(
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
  return { turns, problems, captures };
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
