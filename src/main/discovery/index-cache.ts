import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { readRegularFileSync } from '../files/open-regular';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { Env } from './locations';
import { SCANNER_VERSIONS } from './scan';
import { HARNESSES, type Harness, type ScanResult, type SessionCandidate } from './types';

/*
 * The persistent index of session summaries: one JSON file, `sessions-index.json`, in
 * `$PALIMPSEST_CACHE_DIR`, else `$XDG_CACHE_HOME/palimpsest`, else `~/.cache/palimpsest`.
 *
 * An entry is keyed by the session's path and holds, for each of its files, the absolute path,
 * size and mtimeMs it was scanned at, plus the version of the harness's scanner: it is used only
 * when all of those are equal now (a file appended to, touched, added or removed — a new subagent
 * file — or a new scanner means a re-scan). Entries not seen for 30 days are dropped.
 *
 * The file is written whole to a temporary name and renamed over the old one (atomic on POSIX and
 * on the same Windows volume), only when something changed. A file that cannot be read or parsed,
 * or that has another format, is reported and rebuilt — never fatal. The index is never written
 * inside a harness's folders (a cache folder set there is refused and reported).
 */

export const INDEX_FORMAT = 1;
export const INDEX_FILE = 'sessions-index.json';
const SESSION_FOLDERS = new Set(['projects', 'sessions', 'archived_sessions']);
const KEEP_UNSEEN_MS = 30 * 24 * 3600 * 1000;
/** `seen` is refreshed at most this often, so a repeat run that finds nothing new writes nothing. */
const SEEN_GRANULARITY_MS = 24 * 3600 * 1000;

type Stamp = [path: string, size: number, mtimeMs: number];

interface Entry {
  readonly harness: Harness;
  readonly scanner: number;
  readonly files: Stamp[];
  seen: number;
  readonly result: ScanResult;
}

/** The folder of the index, from the environment. */
export function indexDir(env: Env = process.env, home: string = homedir()): string {
  const own = env.PALIMPSEST_CACHE_DIR;
  if (own !== undefined && own.trim() !== '') return resolve(own);
  const xdg = env.XDG_CACHE_HOME;
  if (xdg !== undefined && xdg.trim() !== '' && isAbsolute(xdg)) return join(xdg, 'palimpsest');
  return join(home, '.cache', 'palimpsest');
}

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const strOrNull = (x: unknown): boolean => x === null || typeof x === 'string';
const natOrNull = (x: unknown): boolean => x === null || (typeof x === 'number' && Number.isSafeInteger(x) && x >= 0);

/** An entry as read from disk, checked field by field (a hand-edited or damaged entry is dropped). */
function readEntry(x: unknown): Entry | null {
  if (!isObj(x) || !HARNESSES.includes(x.harness as Harness) || typeof x.scanner !== 'number' || typeof x.seen !== 'number') return null;
  if (!Array.isArray(x.files) || x.files.length === 0) return null;
  for (const f of x.files) {
    if (!Array.isArray(f) || f.length !== 3 || typeof f[0] !== 'string' || typeof f[1] !== 'number' || typeof f[2] !== 'number')
      return null;
  }
  const r = x.result;
  if (!isObj(r)) return null;
  for (const k of ['id', 'project', 'title', 'startedAt', 'endedAt', 'harnessVersion', 'model']) if (!strOrNull(r[k])) return null;
  if (!natOrNull(r.requests) || !natOrNull(r.compactions) || !natOrNull(r.badLines) || r.badLines === null) return null;
  if (!Array.isArray(r.problems) || r.problems.some((p) => typeof p !== 'string')) return null;
  return x as unknown as Entry;
}

export class SessionIndex {
  private readonly entries = new Map<string, Entry>();
  private dirty = false;
  /** What went wrong reading or writing it, in sentences for the user. */
  readonly problems: string[] = [];
  hits = 0;
  misses = 0;

  private constructor(
    readonly dir: string,
    readonly path: string,
    private readonly writable: boolean,
  ) {}

  /**
   * Reads the index in `dir`. Never throws: a missing file is an empty index; an unreadable or
   * corrupt one is reported in `problems` and replaced on save. `forbidden` are folders the index
   * must not be written into (the harnesses' own).
   */
  static open(dir: string, forbidden: readonly string[] = []): SessionIndex {
    const path = join(dir, INDEX_FILE);
    const inside = forbidden.find((f) => isInside(dir, f));
    const index = new SessionIndex(dir, path, inside === undefined);
    if (inside !== undefined) {
      index.problems.push(
        `the index folder ${dir} is inside ${inside}, a harness's own folder: Palimpsest never writes there, so the index is not used (set PALIMPSEST_CACHE_DIR elsewhere)`,
      );
      return index;
    }
    let text: string;
    try {
      text = readRegularFileSync(path);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT')
        index.problems.push(`the index ${path} could not be read (${code ?? (e instanceof Error ? e.message : String(e))}); it is rebuilt`);
      return index;
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (e) {
      index.problems.push(`the index ${path} is corrupt (${e instanceof Error ? e.message : String(e)}); it is rebuilt`);
      index.dirty = true;
      return index;
    }
    if (!isObj(data) || !isObj(data.entries) || typeof data.palimpsestIndex !== 'number') {
      index.problems.push(`the index ${path} is not a Palimpsest session index; it is rebuilt`);
      index.dirty = true;
      return index;
    }
    if (data.palimpsestIndex !== INDEX_FORMAT) {
      // Another version's format: not an error, just not usable.
      index.dirty = true;
      return index;
    }
    let dropped = 0;
    for (const [k, v] of Object.entries(data.entries)) {
      const e = readEntry(v);
      if (e) index.entries.set(k, e);
      else dropped++;
    }
    if (dropped > 0) {
      index.problems.push(`the index ${path} had ${dropped} damaged entr${dropped === 1 ? 'y' : 'ies'}; they are re-scanned`);
      index.dirty = true;
    }
    return index;
  }

  /** A disabled index (`--no-cache`): every lookup misses, nothing is written. */
  static none(): SessionIndex {
    return new SessionIndex('', '', false);
  }

  get enabled(): boolean {
    return this.writable;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The stored summary, when every file of the session is as it was when scanned. */
  lookup(c: SessionCandidate, now = Date.now()): ScanResult | null {
    const e = this.entries.get(c.path);
    if (!e || e.harness !== c.harness || e.scanner !== SCANNER_VERSIONS[c.harness] || e.files.length !== c.files.length) {
      this.misses++;
      return null;
    }
    for (let i = 0; i < c.files.length; i++) {
      const f = c.files[i];
      const s = e.files[i] as Stamp;
      if (!f || s[0] !== f.path || s[1] !== f.size || s[2] !== f.mtimeMs) {
        this.misses++;
        return null;
      }
    }
    this.hits++;
    if (now - e.seen > SEEN_GRANULARITY_MS) {
      e.seen = now;
      this.dirty = true;
    }
    return e.result;
  }

  store(c: SessionCandidate, result: ScanResult, now = Date.now()): void {
    if (!this.writable) return;
    this.entries.set(c.path, {
      harness: c.harness,
      scanner: SCANNER_VERSIONS[c.harness],
      files: c.files.map((f): Stamp => [f.path, f.size, f.mtimeMs]),
      seen: now,
      result,
    });
    this.dirty = true;
  }

  /** Drops entries not seen for 30 days (sessions deleted, or under roots no longer walked). */
  prune(now = Date.now()): void {
    for (const [k, e] of this.entries) {
      if (now - e.seen > KEEP_UNSEEN_MS) {
        this.entries.delete(k);
        this.dirty = true;
      }
    }
  }

  /** Writes the index if it changed: whole, to a temporary file renamed over the old one. */
  save(): boolean {
    if (!this.writable || !this.dirty) return false;
    const tmp = `${this.path}.${process.pid}.${Date.now().toString(36)}.tmp`;
    try {
      mkdirSync(this.dir, { recursive: true });
      const entries: Record<string, Entry> = {};
      for (const [k, e] of this.entries) entries[k] = e;
      writeFileSync(tmp, JSON.stringify({ palimpsestIndex: INDEX_FORMAT, written: new Date().toISOString(), entries }));
      renameSync(tmp, this.path);
      this.dirty = false;
      return true;
    } catch (e) {
      rmSync(tmp, { force: true });
      this.problems.push(
        `the index ${this.path} could not be written (${(e as NodeJS.ErrnoException).code ?? String(e)}); the next run scans again`,
      );
      return false;
    }
  }
}

/** `child` is `parent` or inside it. */
export function isInside(child: string, parent: string): boolean {
  const r = relative(resolve(parent), resolve(child));
  return r === '' || (!r.startsWith('..') && !isAbsolute(r));
}

/**
 * The folders the index must stay out of: each root, and the harness home above a root that is a
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
