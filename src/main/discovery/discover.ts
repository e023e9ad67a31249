import { realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { SessionIndex, harnessFolders, indexDir } from './index-cache';
import { type LocateOptions, type Root, resolveRoots } from './locations';
import { listOpenCode } from './opencode';
import { scanSession } from './scan';
import type { Harness, ScanResult, SessionCandidate, SessionSummary } from './types';
import { walkRoot } from './walk';

export interface DiscoverOptions extends LocateOptions {
  /** Only these harnesses (default: all). */
  readonly harnesses?: readonly Harness[];
  /** Use the persistent index (default true). */
  readonly useIndex?: boolean;
  /** The index folder; default from PALIMPSEST_CACHE_DIR / XDG_CACHE_HOME / ~/.cache. */
  readonly indexDir?: string;
  /** Scans sessions the index does not hold; default: in this thread (see ./parallel.ts for workers). */
  readonly scanMany?: (candidates: readonly SessionCandidate[]) => ScanResult[] | Promise<ScanResult[]>;
  readonly now?: number;
}

export interface RootReport extends Root {
  readonly exists: boolean;
  readonly sessions: number;
}

export interface Discovery {
  readonly sessions: SessionSummary[];
  readonly roots: RootReport[];
  readonly index: {
    /** The index file, or null with `--no-cache`. */
    readonly path: string | null;
    readonly hits: number;
    readonly scanned: number;
    readonly written: boolean;
    readonly problems: readonly string[];
  };
  /** Folders that could not be listed, sessions that could not be read. */
  readonly problems: readonly string[];
}

const scanEach = (cs: readonly SessionCandidate[]): ScanResult[] => cs.map(scanSession);

export interface Walked {
  readonly roots: RootReport[];
  /** Sessions to scan (or find in an index), one per path. */
  readonly candidates: SessionCandidate[];
  /** OpenCode's sessions, listed from their databases and storage trees. */
  readonly listed: SessionSummary[];
  readonly problems: string[];
}

/**
 * Walks the roots discovery looks in (every harness's, or `harnesses`'), without reading a session:
 * what `discoverSessions` and the session index (src/main/catalog) both start from. Never throws.
 */
export async function walkSessions(options: DiscoverOptions = {}): Promise<Walked> {
  const want = options.harnesses ? new Set(options.harnesses) : null;
  const roots = resolveRoots(options).filter((r) => !want || want.has(r.harness));

  const problems: string[] = [];
  const reports: RootReport[] = [];
  const candidates: SessionCandidate[] = [];
  const listed: SessionSummary[] = [];
  const seen = new Set<string>();
  const walked = new Set<string>();
  for (const root of roots) {
    // Most default roots do not exist (harnesses not installed): no realpath, no walk, no exception.
    if (!exists(root.path)) {
      reports.push({ ...root, exists: false, sessions: 0 });
      continue;
    }
    // The same folder twice (a symbolic link between two default roots): walked once.
    const real = realOrSame(root.path);
    if (walked.has(`${root.harness}\u0000${real}`)) {
      reports.push({ ...root, exists: true, sessions: 0 });
      continue;
    }
    walked.add(`${root.harness}\u0000${real}`);
    const w = walkRoot(root);
    problems.push(...w.problems);
    let n = 0;
    for (const c of w.candidates) {
      if (c.harness === 'opencode') {
        // One folder, many sessions: listed below, never scanned nor kept in the index.
        n += (await listOpenCode(c, problems)).map((s) => listed.push(s)).length;
        continue;
      }
      if (seen.has(c.path)) continue;
      seen.add(c.path);
      candidates.push(c);
      n++;
    }
    reports.push({ ...root, exists: w.exists, sessions: n });
  }
  return { roots: reports, candidates, listed, problems };
}

/**
 * Lists the local sessions of every harness (or of `harnesses`) from their default roots and the
 * environment's overrides (./locations.ts), summarised by a fast scan (./scan.ts) or, when no file
 * changed, from the persistent index (./index-cache.ts). Never throws for a missing or unreadable
 * folder, file or index: those are reported in `problems`.
 */
export async function discoverSessions(options: DiscoverOptions = {}): Promise<Discovery> {
  const env = options.env ?? process.env;
  const home = options.home ?? homedir();
  const now = options.now ?? Date.now();
  const want = options.harnesses ? new Set(options.harnesses) : null;
  const roots = resolveRoots(options).filter((r) => !want || want.has(r.harness));
  const { roots: reports, candidates, listed, problems } = await walkSessions(options);

  const useIndex = options.useIndex !== false;
  const index = useIndex
    ? SessionIndex.open(
        options.indexDir ?? indexDir(env, home),
        harnessFolders(resolveRoots({ ...options, roots: [] }).concat(roots), home),
      )
    : SessionIndex.none();
  const results: (ScanResult | null)[] = candidates.map((c) => index.lookup(c, now));
  const todo: number[] = [];
  results.forEach((r, i) => {
    if (r === null) todo.push(i);
  });
  if (todo.length > 0) {
    const scanned = await (options.scanMany ?? scanEach)(todo.map((i) => candidates[i] as SessionCandidate));
    todo.forEach((i, k) => {
      const r = scanned[k] as ScanResult;
      results[i] = r;
      index.store(candidates[i] as SessionCandidate, r, now);
    });
  }
  index.prune(now);
  const written = index.save();

  const fresh = new Set(todo);
  const sessions: SessionSummary[] = candidates.map((c, i) => {
    const r = results[i] as ScanResult;
    let bytes = 0;
    let mtimeMs = 0;
    for (const f of c.files) {
      bytes += f.size;
      if (f.mtimeMs > mtimeMs) mtimeMs = f.mtimeMs;
    }
    for (const p of r.problems) problems.push(p);
    return { ...r, harness: c.harness, path: c.path, bytes, files: c.files.length, mtimeMs, cached: !fresh.has(i) };
  });
  sessions.push(...listed);
  sessions.sort(newestFirst);
  return {
    sessions,
    roots: reports,
    index: {
      path: useIndex && index.enabled ? index.path : null,
      hits: index.hits,
      scanned: todo.length,
      written,
      problems: index.problems,
    },
    problems,
  };
}

function exists(p: string): boolean {
  try {
    return statSync(p, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return true; // there, but not ours to stat (EACCES…): the walk says so
  }
}

function realOrSame(p: string): string {
  try {
    return realpathSync.native(p);
  } catch {
    return p;
  }
}

/** Newest first by start time (sessions without one last), then by path: the order every listing shows. */
export function newestFirst(a: SessionSummary, b: SessionSummary): number {
  const x = a.startedAt ?? '';
  const y = b.startedAt ?? '';
  if (x !== y) return x < y ? 1 : -1;
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}
