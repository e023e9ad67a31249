import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { baseEnv, filesUnder } from './client-env';
import type { ClientDef } from './clients';
import { openCodeServe } from './client-opencode-serve';

/*
 * OpenCode (`opencode-ai`, whose platform package carries the binary), run headless with
 * `opencode run --format json "prompt"` and continued with `--session ID`. Its data, config,
 * cache and state folders all live in the temporary HOME (the XDG variables), and its config
 * comes whole from OPENCODE_CONFIG_CONTENT: one OpenAI-compatible provider, `mock`, pointed at
 * the mock provider, with two models: `mock/mock-model` (a large context) and `mock/mock-small`
 * (a context small enough that a usage the mock reports overflows it, which starts OpenCode's
 * automatic compaction). A scenario picks the small one with `-m mock/mock-small`.
 *
 * The scenarios with `drive: 'server'` run `opencode serve` instead, with the same environment, and
 * send each turn through its API (./client-opencode-serve.ts).
 *
 * Versions: 1.0.x keeps its sessions in a JSON tree (`storage/`), later ones in an SQLite database
 * (`opencode.db`, with its `-wal` file beside it when the client did not checkpoint on exit).
 */

const MODEL = 'mock/mock-model';

/** The config OpenCode runs with (its opencode.json schema). */
export function openCodeConfig(baseUrl: string): string {
  const limit = (context: number) => ({ context, output: 4096 });
  return JSON.stringify({
    $schema: 'https://opencode.ai/config.json',
    autoupdate: false,
    share: 'disabled',
    model: MODEL,
    provider: {
      mock: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Mock',
        options: { baseURL: `${baseUrl}/v1`, apiKey: 'sk-fidelity-dummy-key' },
        models: {
          'mock-model': { name: 'Mock model', limit: limit(200_000) },
          'mock-small': { name: 'Mock model with a small context', limit: limit(24_000) },
        },
      },
    },
  });
}

/** OpenCode's data folder inside a run's HOME. */
const dataDir = (home: string): string => join(home, '.local', 'share', 'opencode');

export const openCode: ClientDef = {
  id: 'opencode',
  pkg: 'opencode-ai',
  version: '1.18.33',
  // A 1.0.x (the JSON `storage/` tree), two early SQLite versions, a 1.14 (its summarizer call has a
  // shape of its own), and the current one; every one takes `run --format json`, `--session` and
  // `-m` (their `run --help`). 1.17.20 publishes no linux-x64 binary.
  versions: ['1.0.162', '1.2.27', '1.3.2', '1.14.41', '1.18.33'],
  protocol: 'openai-chat',
  bin: (prefix) => join(prefix, 'node_modules', '.bin', 'opencode'),
  argv(turn, _dirs, settings) {
    const a = ['run', '--format', 'json', ...settings, ...turn.args];
    if (turn.resume) a.push('--session', turn.resume);
    a.push(turn.prompt);
    return a;
  },
  env(dirs) {
    return {
      ...baseEnv(),
      HOME: dirs.home,
      XDG_DATA_HOME: join(dirs.home, '.local', 'share'),
      XDG_CONFIG_HOME: join(dirs.home, '.config'),
      XDG_CACHE_HOME: join(dirs.home, '.cache'),
      XDG_STATE_HOME: join(dirs.home, '.local', 'state'),
      OPENCODE_CONFIG_CONTENT: openCodeConfig(dirs.baseUrl),
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    };
  },
  sessionId(stdout) {
    // `--format json` prints one event a line, each with the session's id.
    const m = /"sessionID":"(ses_[A-Za-z0-9]+)"/.exec(stdout);
    return m?.[1] ?? null;
  },
  logs(home) {
    const dir = dataDir(home);
    const dbs = ['opencode.db', 'opencode.db-wal'].map((n) => join(dir, n)).filter((p) => existsSync(p));
    return [...dbs, ...filesUnder(join(dir, 'storage'), '.json')];
  },
  mainLog(logs) {
    const db = logs.find((l) => l.endsWith('/opencode.db'));
    if (db) return db;
    const tree = logs.find((l) => l.includes('/storage/'));
    return tree ? tree.slice(0, tree.indexOf('/storage/') + '/storage'.length) : null;
  },
  serve: openCodeServe,
};
