import { realpathSync, statSync } from 'node:fs';
import { type LocateOptions, type Root, resolveRoots } from './locations';
import { listOpenCode, listingStamp } from './opencode';
import { scanSession } from './scan';
import type { Harness, ScanResult, SessionCandidate, SessionSummary } from './types';
import { walkRoot } from './walk';

export interface DiscoverOptions extends LocateOptions {
  /** Only these harnesses (default: all). */
  readonly harnesses?: readonly Harness[];
  /**
   * List through the session index (src/main/catalog/list.ts; default true); false: scan every
   * session (`--no-cache`). discoverSessions itself never uses the index.
   */
  readonly useIndex?: boolean;
  /** The session index's folder (src/main/catalog); default from PALIMPSEST_CACHE_DIR / XDG_CACHE_HOME / ~/.cache. */
  readonly indexDir?: string;
  /** Scans sessions the index does not hold; default: in this thread (see ./parallel.ts for workers). */
  readonly scanMany?: (candidates: readonly SessionCandidate[]) => ScanResult[] | Promise<ScanResult[]>;
}

export interface RootReport extends Root {
  readonly exists: boolean;
  readonly sessions: number;
}

export interface Discovery {
  readonly sessions: SessionSummary[];
  readonly roots: RootReport[];
  readonly index: {
    /** The index file, or null when none was used (`--no-cache`, or it could not be: see `problems`). */
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
  /** OpenCode's sessions, listed from their databases and storage trees (or kept: `cached`). */
  readonly listed: SessionSummary[];
  /** Each OpenCode data folder, and whether it was listed in this run. */
  readonly folders: ListedFolder[];
  readonly problems: string[];
}

/** An OpenCode data folder as the walk listed it. */
export interface ListedFolder {
  readonly path: string;
  /** What its listing depends on (./opencode.ts listingStamp); null: listed every time. */
  readonly stamp: string | null;
  /** Listed in this run (not kept), and without error. */
  readonly fresh: boolean;
  /** What its listing said (damaged rows …), in sentences. */
  readonly notes: readonly string[];
}

/**
 * A listing kept from an earlier run for a data folder whose stamp is `stamp` (the session index),
 * or null to list the folder now.
 */
export type KeptListing = (c: SessionCandidate, stamp: string) => { sessions: SessionSummary[]; notes: string[] } | null;

/**
 * Walks the roots discovery looks in (every harness's, or `harnesses`'), without reading a session:
 * what `discoverSessions` and the session index (src/main/catalog) both start from. Never throws.
 */
export async function walkSessions(options: DiscoverOptions = {}, kept?: KeptListing): Promise<Walked> {
  const want = options.harnesses ? new Set(options.harnesses) : null;
  const roots = resolveRoots(options).filter((r) => !want || want.has(r.harness));

  const problems: string[] = [];
  const reports: RootReport[] = [];
  const candidates: SessionCandidate[] = [];
  const listed: SessionSummary[] = [];
  const folders: ListedFolder[] = [];
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
        // One folder, many sessions: listed rather than scanned, or the listing kept when its databases are unchanged.
        const stamp = listingStamp(c);
        const hit = stamp !== null && kept ? kept(c, stamp) : null;
        const notes: string[] = [];
        const got = hit ? hit.sessions.map((s) => ({ ...s, cached: true })) : await listOpenCode(c, notes);
        if (hit) notes.push(...hit.notes);
        problems.push(...notes);
        folders.push({ path: c.path, stamp, fresh: !hit && got !== null, notes });
        n += (got ?? []).map((s) => listed.push(s)).length;
        continue;
      }
      if (seen.has(c.path)) continue;
      seen.add(c.path);
      candidates.push(c);
      n++;
    }
    reports.push({ ...root, exists: w.exists, sessions: n });
  }
  return { roots: reports, candidates, listed, folders, problems };
}

/**
 * Lists the local sessions of every harness (or of `harnesses`) from their default roots and the
 * environment's overrides (./locations.ts), each summarised by a fast scan (./scan.ts), with no
 * index: what `palimpsest ls --no-cache` does, and what the listing through the session index
 * (src/main/catalog/list.ts) falls back to when the index cannot be used. Never throws for a
 * missing or unreadable folder or file: those are reported in `problems`.
 */
export async function discoverSessions(options: DiscoverOptions = {}): Promise<Discovery> {
  const { roots: reports, candidates, listed, problems } = await walkSessions(options);
  const results = candidates.length > 0 ? await (options.scanMany ?? scanEach)(candidates) : [];
  const sessions: SessionSummary[] = candidates.map((c, i) => {
    const r = results[i] as ScanResult;
    for (const p of r.problems) problems.push(p);
    return summaryOf(c, r);
  });
  sessions.push(...listed);
  sessions.sort(newestFirst);
  return { sessions, roots: reports, index: { path: null, hits: 0, scanned: candidates.length, written: false, problems: [] }, problems };
}

/** A scanned candidate as `ls` lists it: its scan, with its files' total size and newest mtime. */
function summaryOf(c: SessionCandidate, r: ScanResult): SessionSummary {
  let bytes = 0;
  let mtimeMs = 0;
  for (const f of c.files) {
    bytes += f.size;
    if (f.mtimeMs > mtimeMs) mtimeMs = f.mtimeMs;
  }
  return { ...r, harness: c.harness, path: c.path, bytes, files: c.files.length, mtimeMs, cached: false };
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
