import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { ClientDef } from './clients';
import { baseEnv, filesUnder } from './client-env';

/*
 * Gemini CLI (`@google/gemini-cli`), run headless (`-p`) against the mock's Gemini API. It takes the
 * key from GEMINI_API_KEY and the base URL from GOOGLE_GEMINI_BASE_URL (read by @google/genai, and
 * by the CLI's own auth selection in the later versions); HOME is the run's temporary home, so the
 * chats go to `<home>/.gemini/tmp/<project>/chats/`. Every pinned version takes `-p`,
 * `--output-format json` (whose result object carries `session_id` from 0.2x on), `--yolo` and
 * `--resume <session id>` (their `--help`).
 */

/**
 * The settings every run starts from: the API-key auth (a base URL alone selects the `gateway` auth,
 * which headless mode refuses), and no update check, usage statistics or telemetry.
 */
const SETTINGS = {
  security: { auth: { selectedType: 'gemini-api-key' } },
  general: { disableAutoUpdate: true, disableUpdateNag: true },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
};

export const geminiCli: ClientDef = {
  id: 'gemini-cli',
  pkg: '@google/gemini-cli',
  version: '0.61.0',
  // The whole-`.json` era (0.22 and its last, 0.38), the first JSONL versions (0.41), the first with the `$set` of
  // messages written back (0.45), and the current one.
  versions: ['0.22.4', '0.38.2', '0.41.2', '0.45.2', '0.61.0'],
  protocol: 'gemini',
  bin: (prefix) => join(prefix, 'node_modules', '.bin', 'gemini'),
  argv(turn, _dirs, settings) {
    const a = ['-p', turn.prompt, '--output-format', 'json', '--yolo', ...settings, ...turn.args];
    if (turn.resume) a.push('--resume', turn.resume);
    return a;
  },
  env(dirs) {
    return {
      ...baseEnv(),
      HOME: dirs.home,
      GEMINI_API_KEY: 'fidelity-dummy-key',
      GOOGLE_GEMINI_BASE_URL: dirs.baseUrl,
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
      GEMINI_TELEMETRY_ENABLED: 'false',
      GEMINI_CLI_NO_RELAUNCH: 'true',
      CI: '1',
    };
  },
  homeFiles: () => ({ '.gemini/settings.json': `${JSON.stringify(SETTINGS, null, 2)}\n` }),
  sessionId(stdout) {
    // `--output-format json` prints one result object, pretty-printed, after any other output.
    const m = /"session_id"\s*:\s*"([0-9a-f-]{36})"/i.exec(stdout);
    return m?.[1] ?? null;
  },
  logs: (home) =>
    [...filesUnder(join(home, '.gemini', 'tmp'), '.jsonl'), ...filesUnder(join(home, '.gemini', 'tmp'), '.json')]
      .filter((p) => p.includes('/chats/'))
      .sort((a, b) => depth(a) - depth(b) || a.localeCompare(b)),
  mainLog(logs, sessionId) {
    const mains = logs.filter((l) => /\/chats\/session-[^/]+$/.test(l));
    const short = sessionId?.slice(0, 8);
    const mine = short ? mains.filter((l) => l.includes(`-${short}.json`)) : [];
    // The largest file of the session: a resumed run opens a file of its own under the same id
    // (0.61: the metadata and the opening context only) before it goes on in the session's file.
    const pick = mine.length > 0 ? mine : mains;
    return pick.reduce<string | null>((best, l) => (best === null || statSync(l).size > statSync(best).size ? l : best), null);
  },
};

/** Subagent files sit one folder deeper (`chats/<parentSessionId>/…`): main chats first. */
function depth(p: string): number {
  return p.split('/').length;
}
