import { join, relative } from 'node:path';
import { openCode } from './client-opencode';
import { baseEnv, filesUnder } from './client-env';
import { geminiCli } from './gemini-client';

/*
 * The real agent clients the fidelity suite runs, pinned. Each one says how to install it (an npm
 * package whose platform package carries the native binary), how to run one turn headless against
 * the mock provider, how to find the session id it used, and where its logs are.
 *
 * Each client is run at several pinned versions (`versions`, oldest first; `version` is the
 * current one, the last). `clientAt` gives the definition for one version; where a version's
 * command line differs, its argv says so (checked with that version's own `--help`).
 */

export type ClientId = 'claude-code' | 'codex' | 'gemini-cli' | 'opencode';

export interface TurnSpec {
  readonly prompt: string;
  /** The session to continue (null: a new session). */
  readonly resume: string | null;
  /** Extra command-line arguments the scenario adds. */
  readonly args: readonly string[];
}

export interface RunDirs {
  /** The temporary HOME (Claude Code, Gemini CLI) or CODEX_HOME (Codex). */
  readonly home: string;
  /** The working directory the client runs in. */
  readonly work: string;
  /** The mock provider's base URL (`http://127.0.0.1:<port>`). */
  readonly baseUrl: string;
}

/** How a client runs interactively, in a terminal (./terminal.ts), for a scenario with `drive: 'terminal'`. */
export interface InteractiveDef {
  argv(dirs: RunDirs, settings: readonly string[]): string[];
  /** Files that answer the first-run screens an interactive start shows (path relative to the home → text). */
  homeFiles(dirs: RunDirs, env: Readonly<Record<string, string>>): Record<string, string>;
  /** Matches the screen while the client is working on a turn. */
  readonly busy: RegExp;
  /** Matches the screen when the client waits for input (nothing is typed before). */
  readonly ready: RegExp;
  /** Typed at the end to leave the client. */
  readonly exit: string;
}

export interface ClientDef {
  readonly id: ClientId;
  readonly pkg: string;
  /** The version this definition runs. */
  readonly version: string;
  /** Every pinned version of the matrix, oldest first; the last is the current one. */
  readonly versions: readonly string[];
  /** The mock protocol the client speaks. */
  readonly protocol: string;
  /** The executable inside an install prefix. */
  bin(prefix: string): string;
  argv(turn: TurnSpec, dirs: RunDirs, settings: readonly string[]): string[];
  env(dirs: RunDirs): Record<string, string>;
  /** Files the client needs in its home before the first turn (path relative to the home → text). */
  homeFiles?(dirs: RunDirs): Record<string, string>;
  /** The session id a turn used, from its stdout/stderr (null: not found). */
  sessionId(stdout: string, stderr: string): string | null;
  /** The log files the client wrote under `home`, main session files first (absolute paths). */
  logs(home: string): string[];
  /** The file to open in Palimpsest for a session (its main log). */
  mainLog(logs: readonly string[], sessionId: string | null): string | null;
  /** The client's interactive mode, for the scenarios typed into it (absent: it has none here). */
  readonly interactive?: InteractiveDef;
  /** The client's HTTP server, for the scenarios driven through it (absent: the client has none). */
  readonly serve?: ServeDef;
}

/** A client's own HTTP server, for a scenario with `drive: 'server'` (./serve.ts). */
export interface ServeDef {
  /** The arguments that start the server on a free port on loopback. */
  argv(): string[];
  /** The server's base URL, from what it has printed so far (null: not listening yet). */
  url(output: string): string | null;
  /** How long to wait after each turn for work the client does once the turn has answered. */
  readonly settleMs: number;
  /** Runs one turn through the API, within `signal`; `turn.resume` is the session to continue. */
  turn(base: string, turn: TurnSpec, settings: readonly string[], signal: AbortSignal): Promise<ServedTurn>;
}

export interface ServedTurn {
  /** The calls made, one a line (`POST /session/…`), for run.json. */
  readonly calls: readonly string[];
  /** The last call's HTTP status (0: it never answered). */
  readonly status: number;
  /** The last call's answer (or why there was none). */
  readonly body: string;
  readonly sessionId: string | null;
}

export const claudeCode: ClientDef = {
  id: 'claude-code',
  pkg: '@anthropic-ai/claude-code',
  version: '2.1.332',
  // A 2.0.x (top-level `agent-*.jsonl` subagent files), an early 2.1, a 2.1.9x, the last before the
  // `api-request` records, and the current one. Every one takes the same `-p` flags (their `--help`).
  versions: ['2.0.77', '2.1.9', '2.1.97', '2.1.197', '2.1.332'],
  protocol: 'anthropic-messages',
  bin: (prefix) => join(prefix, 'node_modules', '.bin', 'claude'),
  argv(turn, _dirs, settings) {
    const a = ['-p', turn.prompt, '--output-format', 'json', '--allowedTools', 'Bash', ...settings, ...turn.args];
    if (turn.resume) a.push('--resume', turn.resume);
    return a;
  },
  env(dirs) {
    return {
      ...baseEnv(),
      HOME: dirs.home,
      ANTHROPIC_BASE_URL: dirs.baseUrl,
      ANTHROPIC_API_KEY: 'sk-ant-fidelity-dummy-key',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    };
  },
  sessionId(stdout) {
    // `--output-format json` prints one result object (possibly after other lines).
    for (const line of stdout.split('\n').reverse()) {
      const t = line.trim();
      if (!t.startsWith('{')) continue;
      try {
        const v = JSON.parse(t) as { session_id?: unknown };
        if (typeof v.session_id === 'string') return v.session_id;
      } catch {
        // not the result line
      }
    }
    return null;
  },
  logs: (home) =>
    filesUnder(join(home, '.claude', 'projects'), '.jsonl').sort(
      (a, b) => Number(a.includes('/subagents/')) - Number(b.includes('/subagents/')) || a.localeCompare(b),
    ),
  mainLog(logs, sessionId) {
    const mains = logs.filter((l) => !l.includes('/subagents/'));
    return (sessionId ? mains.find((l) => l.endsWith(`/${sessionId}.jsonl`)) : undefined) ?? mains[0] ?? null;
  },
  interactive: {
    argv: (_dirs, settings) => ['--allowedTools', 'Bash', ...settings],
    // The first-run screens, answered as a user who has used it before: onboarding done, the
    // working folder trusted, the API key from the environment approved (by its last 20 characters).
    homeFiles: ({ work }, env) => ({
      '.claude.json': `${JSON.stringify(
        {
          hasCompletedOnboarding: true,
          theme: 'dark',
          numStartups: 5,
          customApiKeyResponses: { approved: [(env.ANTHROPIC_API_KEY ?? '').slice(-20)], rejected: [] },
          projects: { [work]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true, allowedTools: ['Bash'] } },
        },
        null,
        2,
      )}\n`,
    }),
    busy: /esc to interrupt/i,
    // The input line: "❯" (or ">" in older versions) and a space or a no-break space, at the start of a screen line.
    ready: /^[❯>][ \u00a0]/mu,
    exit: '/exit',
  },
};

export const codex: ClientDef = {
  id: 'codex',
  pkg: '@openai/codex',
  version: '0.171.0',
  // One of each line (0.4x, 0.5x, 0.7x, 0.11x), the one before the current, and the current one.
  // Every one has `exec resume`, `-c`, `--skip-git-repo-check` and
  // `--dangerously-bypass-approvals-and-sandbox` (their `exec --help`).
  versions: ['0.47.0', '0.59.0', '0.77.0', '0.118.0', '0.169.0', '0.171.0'],
  protocol: 'openai-responses',
  bin: (prefix) => join(prefix, 'node_modules', '.bin', 'codex'),
  argv(turn, dirs, settings) {
    const provider = `model_providers.mock={name="mock",base_url="${dirs.baseUrl}/v1",wire_api="responses",env_key="MOCK_KEY",request_max_retries=2,stream_max_retries=1}`;
    const a = [
      'exec',
      '--skip-git-repo-check',
      '--dangerously-bypass-approvals-and-sandbox',
      '-c',
      'model_provider=mock',
      '-c',
      provider,
      ...settings,
      ...turn.args,
    ];
    if (turn.resume) a.push('resume', turn.resume);
    a.push(turn.prompt);
    return a;
  },
  env(dirs) {
    return { ...baseEnv(), HOME: dirs.home, CODEX_HOME: dirs.home, MOCK_KEY: 'sk-fidelity-dummy-key' };
  },
  sessionId(stdout, stderr) {
    const m = /session id:\s*([0-9a-f-]{36})/i.exec(`${stderr}\n${stdout}`);
    return m?.[1] ?? null;
  },
  logs: (home) => filesUnder(join(home, 'sessions'), '.jsonl'),
  mainLog(logs, sessionId) {
    return (sessionId ? logs.find((l) => l.includes(sessionId)) : undefined) ?? logs[0] ?? null;
  },
};

export const CLIENTS: Readonly<Record<ClientId, ClientDef>> = {
  'claude-code': claudeCode,
  codex,
  'gemini-cli': geminiCli,
  opencode: openCode,
};

/** The definition of a client at one of its pinned versions (null: not a pinned version). */
export function clientAt(id: ClientId, version: string): ClientDef | null {
  const base = CLIENTS[id];
  if (!base.versions.includes(version)) return null;
  return version === base.version ? base : { ...base, version };
}

/**
 * The versions a run covers: `current` (each client's current version), `older` (the matrix but
 * the current version), `all` (the whole matrix), or a comma-separated list (versions of no client are an error, returned as a string).
 */
export function selectVersions(id: ClientId, spec: string): string[] | string {
  const c = CLIENTS[id];
  if (spec === 'current') return [c.version];
  if (spec === 'all') return [...c.versions];
  if (spec === 'older') return c.versions.filter((v) => v !== c.version);
  const asked = spec
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
  const unknown = asked.filter((v) => !Object.values(CLIENTS).some((k) => k.versions.includes(v)));
  if (asked.length === 0 || unknown.length > 0)
    return `--versions takes current, older, all or pinned versions; not pinned: ${unknown.join(', ') || spec}`;
  return asked.filter((v) => c.versions.includes(v));
}

/** A log path relative to the client's home, for copying into fixtures (`projects/…`, `sessions/…`). */
export function logRelative(client: ClientDef, home: string, path: string): string {
  const base =
    client.id === 'claude-code'
      ? join(home, '.claude')
      : client.id === 'gemini-cli'
        ? join(home, '.gemini')
        : client.id === 'opencode'
          ? join(home, '.local', 'share', 'opencode')
          : home;
  return relative(base, path);
}
