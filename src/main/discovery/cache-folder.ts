import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { type Env, type LocateOptions, resolveRoots } from './locations';

/*
 * Palimpsest's cache folder — the session index (src/main/catalog), the health rows and the token
 * counts — and the harness folders it must stay out of: Palimpsest never writes where a harness
 * keeps its sessions.
 */

const SESSION_FOLDERS = new Set(['projects', 'sessions', 'archived_sessions']);

/** The cache folder: `$PALIMPSEST_CACHE_DIR`, else `$XDG_CACHE_HOME/palimpsest`, else `~/.cache/palimpsest`. */
export function indexDir(env: Env = process.env, home: string = homedir()): string {
  const own = env.PALIMPSEST_CACHE_DIR;
  if (own !== undefined && own.trim() !== '') return resolve(own);
  const xdg = env.XDG_CACHE_HOME;
  if (xdg !== undefined && xdg.trim() !== '' && isAbsolute(xdg)) return join(xdg, 'palimpsest');
  return join(home, '.cache', 'palimpsest');
}

/** `child` is `parent` or inside it. */
export function isInside(child: string, parent: string): boolean {
  const r = relative(resolve(parent), resolve(child));
  return r === '' || (!r.startsWith('..') && !isAbsolute(r));
}

/**
 * The folders a cache must stay out of: each root, and the harness home above a root that is a
 * harness's session folder (`~/.claude` for `~/.claude/projects`) unless that home is the user's
 * home or a filesystem root.
 */
export function harnessFolders(roots: readonly { path: string }[], home: string = homedir()): string[] {
  const out = new Set<string>();
  for (const r of roots) {
    const p = resolve(r.path);
    out.add(p);
    const up = dirname(p);
    if (!SESSION_FOLDERS.has(basename(p))) continue;
    if (up !== p && up !== resolve(home) && dirname(up) !== up) out.add(up);
  }
  return [...out];
}

/**
 * The harness folder (default roots and `options`' own) that holds `dir`, or null when `dir` is
 * outside all of them and a cache may be written there.
 */
export function harnessFolderHolding(dir: string, options: LocateOptions = {}): string | null {
  const home = options.home ?? homedir();
  const forbidden = harnessFolders(resolveRoots({ ...options, roots: [] }).concat(resolveRoots(options)), home);
  return forbidden.find((f) => isInside(dir, f)) ?? null;
}
