import { createHash } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RULES } from '../../shared/diagnostics/registry';
import { HEALTH_ROW_VERSION, SessionHealth } from '../../shared/health/row';
import { harnessFolderHolding } from '../discovery/cache-folder';
import type { LocateOptions } from '../discovery/locations';
import { readRegularFileSync } from '../files/open-regular';

/*
 * Health rows kept between runs: one JSON file, `health-rows.json`, in Palimpsest's cache folder
 * (the folder of `ls`'s index and of the token counts: $PALIMPSEST_CACHE_DIR, else
 * $XDG_CACHE_HOME/palimpsest, else ~/.cache/palimpsest). A row is keyed by its session's key and
 * holds the path, size and mtimeMs of every file the load read; it is used only when all of them
 * are unchanged, and only by the same row version and rule catalog (a rule added or removed changes
 * the findings). Written whole to a temporary name and renamed over the old one, only when rows
 * were added. A file that cannot be read or parsed is reported and rebuilt — never fatal. It is a
 * cache: deleting it loses nothing but time. Like the session index, it is never written inside a
 * harness's own folders: a cache folder set there is refused, said, and the rows are not kept.
 */

export const HEALTH_CACHE_FILE = 'health-rows.json';

type Stamp = [path: string, size: number, mtimeMs: number];

interface Entry {
  readonly files: Stamp[];
  readonly row: SessionHealth;
}

/** The row version and the rule catalog: rows built under another are built again. */
const FINGERPRINT = createHash('sha1')
  .update(`${HEALTH_ROW_VERSION}\u0000${RULES.map((r) => r.id).join(',')}`)
  .digest('hex')
  .slice(0, 16);

/** The stamp of a file or folder now; null when it cannot be read (a database copy's label, a deleted file). */
export function stampOf(path: string): Stamp | null {
  try {
    const s = statSync(path);
    return [path, s.size, s.mtimeMs];
  } catch {
    return null;
  }
}

export class HealthCache {
  private readonly entries = new Map<string, Entry>();
  private dirty = false;
  readonly problems: string[] = [];

  private constructor(readonly path: string | null) {}

  /** Reads the cache in `dir`; never throws. `locate`: where the harnesses' folders are (default this machine's). */
  static open(dir: string, locate: LocateOptions = {}): HealthCache {
    const inside = harnessFolderHolding(dir, locate);
    if (inside !== null) {
      const refused = new HealthCache(null);
      refused.problems.push(
        `the health cache folder ${dir} is inside ${inside}, a harness's own folder: Palimpsest never writes there, so health rows are not kept (set PALIMPSEST_CACHE_DIR elsewhere)`,
      );
      return refused;
    }
    const cache = new HealthCache(join(dir, HEALTH_CACHE_FILE));
    let text: string;
    try {
      text = readRegularFileSync(cache.path as string);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') cache.problems.push(`the health cache ${cache.path} could not be read (${code ?? String(e)}); it is rebuilt`);
      return cache;
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      cache.problems.push(`the health cache ${cache.path} is corrupt; it is rebuilt`);
      cache.dirty = true;
      return cache;
    }
    const d = data as { fingerprint?: unknown; entries?: unknown };
    if (typeof d !== 'object' || d === null || d.fingerprint !== FINGERPRINT || typeof d.entries !== 'object' || d.entries === null) {
      cache.dirty = true;
      return cache;
    }
    for (const [k, v] of Object.entries(d.entries as Record<string, unknown>)) {
      const e = v as { files?: unknown; row?: unknown };
      const row = SessionHealth.safeParse(e?.row);
      if (!row.success || !Array.isArray(e.files)) continue;
      const files = e.files.filter(
        (f): f is Stamp => Array.isArray(f) && typeof f[0] === 'string' && typeof f[1] === 'number' && typeof f[2] === 'number',
      );
      cache.entries.set(k, { files, row: row.data });
    }
    return cache;
  }

  /** A cache that keeps nothing (`--no-cache`). */
  static none(): HealthCache {
    return new HealthCache(null);
  }

  /** The row stored for `key`, when every file it was built from is unchanged. */
  lookup(key: string): SessionHealth | null {
    const e = this.entries.get(key);
    if (!e || e.files.length === 0) return null;
    for (const f of e.files) {
      const now = stampOf(f[0]);
      if (!now || now[1] !== f[1] || now[2] !== f[2]) return null;
    }
    return e.row;
  }

  store(key: string, files: readonly string[], row: SessionHealth): void {
    if (this.path === null) return;
    const stamps = [...new Set(files)].map(stampOf).filter((s): s is Stamp => s !== null);
    if (stamps.length === 0) return;
    this.entries.set(key, { files: stamps, row });
    this.dirty = true;
  }

  /** Writes the cache if rows were added; a failure is reported, never thrown. */
  save(): void {
    if (this.path === null || !this.dirty) return;
    const tmp = `${this.path}.${process.pid}.${Date.now().toString(36)}.tmp`;
    try {
      mkdirSync(join(this.path, '..'), { recursive: true });
      writeFileSync(tmp, JSON.stringify({ fingerprint: FINGERPRINT, entries: Object.fromEntries(this.entries) }));
      renameSync(tmp, this.path);
      this.dirty = false;
    } catch (e) {
      rmSync(tmp, { force: true });
      this.problems.push(`the health cache ${this.path} could not be written (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
    }
  }
}
