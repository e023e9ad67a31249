import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { DiscoverOptions } from '../discovery/discover';
import { isInside } from '../discovery/cache-folder';
import { resolveRoots, type Root } from '../discovery/locations';
import type { HealthProgress, HealthRows, HealthSource } from '../health/source';
import { type HealthProblem, SessionHealth } from '../../shared/health/row';
import type { Database } from './db';
import { openDatabase } from './db';
import { exclusive } from './queue';
import { extractSession } from './extract';
import { SCHEMA_VERSION } from './schema';
import { CATALOG_FILE } from './store';
import { SessionCatalog } from './update';

/*
 * The health report's rows from the session index (src/main/health/source.ts says what a source
 * gives): the index reads each new or changed session with
 * the importers and replay for search, and builds its health row then (./health-row.ts), so
 * a report reads the rows from one table instead of loading every session. `rows` brings the index
 * up to date first (content depth, as search does); `stored` reads what it holds now, without
 * walking a folder or reading a session — the Health tab paints from it at once.
 *
 * Only the sessions under the roots of `discover` count: the index may hold sessions of other
 * roots (a search with `--root`), which the report must not add.
 */

export interface CatalogSourceOptions {
  /** Where to look (roots, harnesses, environment), as discovery and search take it. */
  readonly discover: DiscoverOptions;
  /** The index folder (catalogDir). */
  readonly dir: string;
}

interface SessionRow {
  readonly path: string;
  readonly session_key: string;
  readonly harness: string;
  readonly project: string | null;
  readonly health: string | null;
  readonly load_error: string | null;
  readonly content_stamps: string | null;
}

const keyOf = (r: SessionRow): string => (r.session_key === '' ? r.path : `${r.path}#${r.session_key}`);
const shown = (r: SessionRow): string => (r.session_key === '' ? r.path : `${r.path} --session ${r.session_key}`);

function sessionRows(db: Database): SessionRow[] {
  return db
    .prepare('SELECT path, session_key, harness, project, health, load_error, content_stamps FROM sessions')
    .all() as unknown as SessionRow[];
}

/** The rows the index holds for sessions under `roots`; sessions not read yet are left out. */
function read(db: Database, roots: readonly Pick<Root, 'harness' | 'path'>[], readNow: ReadonlySet<string>, notes: string[]): HealthRows {
  const rows: SessionHealth[] = [];
  const problems: HealthProblem[] = [];
  let built = 0;
  let bad = 0;
  for (const r of sessionRows(db)) {
    if (!roots.some((root) => root.harness === r.harness && isInside(r.path, root.path))) continue;
    if (r.load_error !== null) {
      problems.push({ path: shown(r), error: r.load_error });
      continue;
    }
    if (r.health === null) continue;
    let fact: { row?: unknown; error?: unknown };
    try {
      fact = JSON.parse(r.health) as typeof fact;
    } catch {
      fact = {};
    }
    if (typeof fact?.error === 'string') {
      problems.push({ path: shown(r), error: fact.error });
      continue;
    }
    const row = SessionHealth.safeParse(fact?.row);
    if (!row.success) {
      bad++;
      continue;
    }
    // Where discovery found it names the harness and project, as in the report of the files.
    rows.push({ ...row.data, key: keyOf(r), path: r.path, harness: r.harness, project: r.project ?? row.data.project });
    if (readNow.has(keyOf(r))) built++;
  }
  if (bad > 0) notes.push(`${bad} health rows in the index could not be read; they are read again when their sessions change`);
  return { rows, problems, cached: rows.length - built, built, notes };
}

export class CatalogHealthSource implements HealthSource {
  constructor(private readonly options: CatalogSourceOptions) {}

  private roots(): Root[] {
    const want = this.options.discover.harnesses ? new Set(this.options.discover.harnesses) : null;
    return resolveRoots(this.options.discover).filter((r) => !want || want.has(r.harness));
  }

  /**
   * What the index holds now, without bringing it up to date; null when there is no index of this
   * version yet. Read only: a missing, foreign or old index is left for `rows` to make or rebuild.
   */
  stored(): HealthRows | null {
    const path = join(this.options.dir, CATALOG_FILE);
    if (!existsSync(path)) return null;
    let db: Database | null = null;
    try {
      db = openDatabase(path);
      const v = db.prepare("SELECT value FROM meta WHERE key = 'schema'").get()?.value;
      if (v !== String(SCHEMA_VERSION)) return null;
      return read(db, this.roots(), new Set(), []);
    } catch {
      // Not a database, damaged, or being rebuilt: nothing to paint from; `rows` says why.
      return null;
    } finally {
      db?.close();
    }
  }

  /**
   * Brings the index up to date (one writer at a time in this process), then reads its rows.
   * When `signal` aborts (the app's report asked for again, its host closing), the update stops
   * at the next session and its reading threads stop; the rows are then those the index holds,
   * with a note that says so. Aborted while waiting for another update, it updates nothing.
   */
  rows(onProgress?: (p: HealthProgress) => void, signal?: AbortSignal): Promise<HealthRows> {
    return exclusive(async () => {
      const catalog = SessionCatalog.open(this.options.dir);
      try {
        const before = new Map(sessionRows(catalog.db).map((r) => [keyOf(r), r.content_stamps]));
        onProgress?.({ done: 0, total: 0, cached: 0 });
        const notes = catalog.rebuilt ? [catalog.rebuilt] : [];
        let roots: readonly Pick<Root, 'harness' | 'path'>[];
        try {
          const report = await catalog.update({
            ...this.options.discover,
            content: true,
            extract: extractSession,
            onProgress: (done, total) => onProgress?.({ done, total, cached: 0 }),
            signal,
          });
          roots = report.roots.filter((r) => r.exists);
          notes.push(...report.problems.filter((p) => !/: not indexed for search \(/.test(p)));
        } catch (err) {
          if (!signal?.aborted) throw err;
          roots = this.roots();
          notes.push('the index update was stopped before it was done: sessions changed since the last one may be missing or out of date');
        }
        const readNow = new Set<string>();
        for (const r of sessionRows(catalog.db)) if (before.get(keyOf(r)) !== r.content_stamps) readNow.add(keyOf(r));
        return read(catalog.db, roots, readNow, notes);
      } finally {
        catalog.close();
      }
    });
  }
}
