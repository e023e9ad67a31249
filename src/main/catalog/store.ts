import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type Database, openDatabase } from './db';
import { SCHEMA, SCHEMA_VERSION } from './schema';

export const CATALOG_FILE = 'index.db';

export interface OpenedCatalog {
  readonly db: Database;
  readonly path: string;
  /** Why the file there was replaced (corrupt, another schema), in a sentence; null when it was used as it was. */
  readonly rebuilt: string | null;
}

function remove(path: string): void {
  for (const p of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) rmSync(p, { force: true });
}

function create(path: string): Database {
  const db = openDatabase(path);
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec(SCHEMA);
  db.prepare("INSERT INTO meta (key, value) VALUES ('schema', ?)").run(String(SCHEMA_VERSION));
  return db;
}

/**
 * Opens the session index in `dir` (index.db), creating it when missing. A file that is not a
 * database, is damaged, or holds another schema version is deleted and built again — the index is
 * a cache of what the session files say, so nothing is lost — with a note saying so. Throws only
 * when the folder cannot hold a database at all.
 */
export function openCatalog(dir: string): OpenedCatalog {
  const path = join(dir, CATALOG_FILE);
  mkdirSync(dir, { recursive: true });
  let why: string | null = null;
  let db: Database | null = null;
  try {
    db = openDatabase(path);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'meta'").all();
    if (tables.length === 0) {
      // A new, empty file: made now. Anything else without our table is not ours to keep.
      const any = db.prepare('SELECT count(*) AS n FROM sqlite_master').get();
      if (Number(any?.n ?? 0) > 0) why = `the index ${path} is not a Palimpsest index; it is rebuilt`;
      else {
        db.close();
        return { db: create(path), path, rebuilt: null };
      }
    } else {
      const v = db.prepare("SELECT value FROM meta WHERE key = 'schema'").get()?.value;
      if (v !== String(SCHEMA_VERSION))
        why = `the index ${path} has schema ${String(v)}, this version reads ${SCHEMA_VERSION}; it is rebuilt`;
    }
  } catch (e) {
    why = `the index ${path} is corrupt (${e instanceof Error ? e.message : String(e)}); it is rebuilt`;
  }
  if (why === null && db) return { db, path, rebuilt: null };
  try {
    db?.close();
  } catch {
    // A database that failed to open may refuse to close too; it is deleted either way.
  }
  remove(path);
  return { db: create(path), path, rebuilt: why };
}
