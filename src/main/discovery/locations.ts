import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { HARNESSES, type Harness } from './types';

/*
 * Where each harness keeps its sessions by default, and the variable that moves it. Checked
 * against each harness's own source (or, for Claude Code, its documentation and the tools that
 * read it):
 *
 * - Claude Code: `~/.claude/projects/<encoded-cwd>/<session>.jsonl`. `CLAUDE_CONFIG_DIR` replaces
 *   `~/.claude` (Claude Code's environment-variable documentation; ccusage's "custom paths" page).
 *   ccusage also reads `~/.config/claude/projects` (its "new default") and accepts a
 *   comma-separated list in `CLAUDE_CONFIG_DIR`; both are honoured here so `ls` finds what ccusage
 *   finds.
 * - Codex CLI: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`, CODEX_HOME (when non-empty) else
 *   `~/.codex` (openai/codex codex-rs/utils/home-dir `find_codex_home`; `SESSIONS_SUBDIR =
 *   "sessions"`, `ARCHIVED_SESSIONS_SUBDIR = "archived_sessions"` in codex-rs/rollout/src/lib.rs).
 *   Archived rollouts are listed too.
 * - DeepSeek Harness: `<root>/--<normalized-cwd>--/<encoded-id>/session.jsonl(.zstd)` with root =
 *   `dshHomePath('sessions')` (packages/bundle/base/cordis.patch.yml), the home being `$DSH_HOME`
 *   (empty or blank = unset) else `~/.dsh` (packages/util/home-paths/src/index.ts: `DSH_HOME_ENV`,
 *   `DSH_HOME_DIR_NAME = '.dsh'`), deepseek-ai/deepseek-harness @ b150a551.
 * - Rind: `$RIND_HOME/sessions/<id>/` with RIND_HOME (stripped, non-empty) else `~/.rind`
 *   (agent/infrastructure/paths.py `resolve_rind_home`; jsonl_session_store.py
 *   `resolve_session_root` joins "sessions"), Azzurroooo/rind @ dfe87c5.
 * - cosh: `{data_dir}/sessions/{xxh32(cwd)}/session-*.jsonl` with data_dir = `COSH_DATA_DIR`
 *   (non-empty) else `ProjectDirs::from("", "", "cosh").data_dir()`: `$XDG_DATA_HOME/cosh` or
 *   `~/.local/share/cosh` on Linux, `~/Library/Application Support/cosh` on macOS,
 *   `%APPDATA%\cosh\data` on Windows (src/util/setup.rs `data_dir_override`, DiegoZaluski/co-sh).
 * - Gemini CLI: `<home>/.gemini/tmp/<project>/chats/session-*.json(l)`, subagents in
 *   `chats/<parentSessionId>/<id>.json(l)`, with home = `GEMINI_CLI_HOME` (non-empty) else the user's
 *   home (packages/core/src/utils/paths.ts `homedir`, config/storage.ts `getProjectTempDir`,
 *   services/chatRecordingService.ts; google-gemini/gemini-cli). The project folder is a SHA-256 of
 *   the project root in older versions, a name from `~/.gemini/projects.json` in later ones.
 * - OpenCode: its data folder `$XDG_DATA_HOME/opencode` else `~/.local/share/opencode` on every
 *   platform (xdg-basedir in packages/opencode/src/global/index.ts, anomalyco/opencode), holding
 *   `opencode.db` (or `opencode-<channel>.db`) and, from older versions, `storage/` (1.0.x) and
 *   `project/<project>/storage/` (0.5.x): many sessions each (src/main/dialects/opencode/).
 * - Palimpsest v1 files have no home of their own: only `--root palimpsest=PATH` lists them.
 *
 * Nothing here reads the disk except to complete a `--root`: a root that does not exist is
 * simply empty when walked.
 */

export interface Root {
  readonly harness: Harness;
  /** The folder walked for sessions. */
  readonly path: string;
  /** Where it came from, for `ls` to say: `default`, `$CODEX_HOME`, `--root`. */
  readonly source: string;
}

export type Env = Readonly<Record<string, string | undefined>>;

export interface LocateOptions {
  readonly env?: Env;
  /** The user's home; defaults to os.homedir() (tests pass a fake one). */
  readonly home?: string;
  readonly platform?: NodeJS.Platform;
  /** `--root HARNESS=PATH`, repeatable: replaces that harness's default roots. */
  readonly roots?: readonly { harness: Harness; path: string }[];
}

const nonEmpty = (v: string | undefined): string | undefined => (v !== undefined && v.trim() !== '' ? v : undefined);

/** `~` and `~/…` at the start of a path from the environment, as shells and these harnesses expand them. */
function expand(p: string, home: string): string {
  if (p === '~') return home;
  if (p.startsWith('~/') || p.startsWith('~\\')) return join(home, p.slice(2));
  return isAbsolute(p) ? p : resolve(p);
}

function dataHome(env: Env, home: string, platform: NodeJS.Platform, app: string): string {
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', app);
  if (platform === 'win32') return join(nonEmpty(env.APPDATA) ?? join(home, 'AppData', 'Roaming'), app, 'data');
  const xdg = nonEmpty(env.XDG_DATA_HOME);
  return join(xdg !== undefined && isAbsolute(xdg) ? xdg : join(home, '.local', 'share'), app);
}

/** The default roots of each harness, with the environment's overrides applied. */
export function defaultRoots(options: LocateOptions = {}): Root[] {
  const env = options.env ?? process.env;
  const home = options.home ?? homedir();
  const platform = options.platform ?? process.platform;
  const out: Root[] = [];

  const claude = nonEmpty(env.CLAUDE_CONFIG_DIR);
  if (claude !== undefined) {
    for (const part of claude
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      out.push({ harness: 'claude-code', path: join(expand(part, home), 'projects'), source: '$CLAUDE_CONFIG_DIR' });
    }
  } else {
    out.push({ harness: 'claude-code', path: join(home, '.claude', 'projects'), source: 'default' });
    const xdgConfig = nonEmpty(env.XDG_CONFIG_HOME);
    const config = xdgConfig !== undefined && isAbsolute(xdgConfig) ? xdgConfig : join(home, '.config');
    out.push({ harness: 'claude-code', path: join(config, 'claude', 'projects'), source: 'default' });
  }

  const codex = nonEmpty(env.CODEX_HOME);
  const codexHome = codex !== undefined ? expand(codex, home) : join(home, '.codex');
  const codexSource = codex !== undefined ? '$CODEX_HOME' : 'default';
  out.push({ harness: 'codex', path: join(codexHome, 'sessions'), source: codexSource });
  out.push({ harness: 'codex', path: join(codexHome, 'archived_sessions'), source: codexSource });

  const dsh = nonEmpty(env.DSH_HOME);
  out.push({
    harness: 'dsh',
    path: join(dsh !== undefined ? expand(dsh.trim(), home) : join(home, '.dsh'), 'sessions'),
    source: dsh !== undefined ? '$DSH_HOME' : 'default',
  });

  const rind = nonEmpty(env.RIND_HOME);
  out.push({
    harness: 'rind',
    path: join(rind !== undefined ? expand(rind.trim(), home) : join(home, '.rind'), 'sessions'),
    source: rind !== undefined ? '$RIND_HOME' : 'default',
  });

  const cosh = nonEmpty(env.COSH_DATA_DIR);
  out.push({
    harness: 'cosh',
    path: join(cosh !== undefined ? expand(cosh, home) : dataHome(env, home, platform, 'cosh'), 'sessions'),
    source: cosh !== undefined ? '$COSH_DATA_DIR' : 'default',
  });

  const gemini = nonEmpty(env.GEMINI_CLI_HOME);
  out.push({
    harness: 'gemini-cli',
    path: join(gemini !== undefined ? expand(gemini, home) : home, '.gemini', 'tmp'),
    source: gemini !== undefined ? '$GEMINI_CLI_HOME' : 'default',
  });

  // OpenCode keeps its data in the XDG data folder on every platform (xdg-basedir in its global paths).
  const xdgData = nonEmpty(env.XDG_DATA_HOME);
  out.push({
    harness: 'opencode',
    path: join(xdgData !== undefined && isAbsolute(xdgData) ? xdgData : join(home, '.local', 'share'), 'opencode'),
    source: xdgData !== undefined && isAbsolute(xdgData) ? '$XDG_DATA_HOME' : 'default',
  });
  return dedupe(out);
}

/**
 * The roots to walk: the defaults, except for each harness named by a `--root`, whose roots are
 * exactly the ones given. A `--root` path is taken as given by the user: the folder of sessions
 * itself (`…/projects`, `…/sessions`), or the harness's home, which is recognised and completed
 * (`~/.claude` → `~/.claude/projects`; `~/.codex` → its sessions and archived_sessions).
 */
export function resolveRoots(options: LocateOptions = {}): Root[] {
  const given = options.roots ?? [];
  const named = new Set(given.map((r) => r.harness));
  const home = options.home ?? homedir();
  const out = defaultRoots(options).filter((r) => !named.has(r.harness));
  for (const r of given)
    for (const path of completeRoot(r.harness, expand(r.path, home))) out.push({ harness: r.harness, path, source: '--root' });
  return dedupe(out);
}

/**
 * A harness home given where its session folder was meant: both are accepted. The folder is
 * completed only when the completed path exists (an explicit `--root` may be checked on disk).
 */
function completeRoot(harness: Harness, path: string): string[] {
  const base = path.replace(/[\\/]+$/, '') || path;
  const last = base.split(/[\\/]/).pop() ?? '';
  const sub = (...names: string[]): string[] => {
    if (names.includes(last)) return [base];
    const found = names.map((n) => join(base, n)).filter((p) => existsSync(p));
    return found.length > 0 ? found : [base];
  };
  switch (harness) {
    case 'claude-code':
      return sub('projects');
    case 'codex':
      return sub('sessions', 'archived_sessions');
    case 'dsh':
    case 'rind':
    case 'cosh':
      return sub('sessions');
    case 'gemini-cli':
      // `~/.gemini/tmp` itself, `~/.gemini`, or the home (`GEMINI_CLI_HOME`) that holds `.gemini`.
      if (last === 'tmp') return [base];
      if (existsSync(join(base, 'tmp'))) return [join(base, 'tmp')];
      return existsSync(join(base, '.gemini', 'tmp')) ? [join(base, '.gemini', 'tmp')] : [base];
    default:
      return [base];
  }
}

function dedupe(roots: Root[]): Root[] {
  const seen = new Set<string>();
  return roots.filter((r) => {
    const k = `${r.harness}\u0000${resolve(r.path)}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** Parses `HARNESS=PATH` (the `--root` flag); throws a sentence for the user on anything else. */
export function parseRootFlag(value: string): { harness: Harness; path: string } {
  const eq = value.indexOf('=');
  const name = eq < 0 ? '' : value.slice(0, eq);
  const path = eq < 0 ? '' : value.slice(eq + 1);
  const harness = HARNESSES.find((h) => h === name || ALIASES[name] === h);
  if (!harness || path === '') {
    throw new Error(`--root takes HARNESS=PATH with HARNESS one of ${HARNESSES.join(', ')}; got "${value}"`);
  }
  return { harness, path };
}

/** Other spellings accepted for a harness name. */
export const ALIASES: Readonly<Record<string, Harness>> = {
  claude: 'claude-code',
  'claude-code': 'claude-code',
  codex: 'codex',
  dsh: 'dsh',
  deepseek: 'dsh',
  'deepseek-harness': 'dsh',
  rind: 'rind',
  cosh: 'cosh',
  gemini: 'gemini-cli',
  'gemini-cli': 'gemini-cli',
  palimpsest: 'palimpsest',
  opencode: 'opencode',
};
