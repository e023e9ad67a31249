import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type Database, openDatabase, sqliteCode } from './db';
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

/** The schema version the file says; null when it has no meta table. */
function schemaOf(db: Database): string | null {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'meta'").all();
  if (tables.length === 0) return null;
  const v = db.prepare("SELECT value FROM meta WHERE key = 'schema'").get()?.value;
  return typeof v === 'string' ? v : String(v);
}

const quoted = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** Drops every view and table (virtual tables first: they drop their shadow tables). */
function dropAll(db: Database): void {
  const all = () => db.prepare("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").all();
  for (const r of all()) if (r.type === 'view') db.exec(`DROP VIEW IF EXISTS ${quoted(r.name as string)}`);
  for (const r of all())
    if (r.type === 'table' && /^CREATE VIRTUAL/i.test(String(r.sql))) db.exec(`DROP TABLE IF EXISTS ${quoted(r.name as string)}`);
  for (const r of all()) if (r.type === 'table') db.exec(`DROP TABLE IF EXISTS ${quoted(r.name as string)}`);
}

/**
 * Makes the file hold this version's schema; returns why it was rebuilt, or null. The check and the
 * rebuild are one IMMEDIATE transaction, so that two processes opening a new (or outdated) index
 * at once build it once: the second finds it built. Rebuilt in place, not by deleting the file,
 * which another process may have open.
 */
function ready(db: Database, path: string): string | null {
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = NORMAL');
  const want = String(SCHEMA_VERSION);
  if (schemaOf(db) === want) return null;
  let why: string | null = null;
  db.transaction(() => {
    const v = schemaOf(db);
    if (v === want) return;
    if (v !== null) why = `the index ${path} has schema ${v}, this version reads ${want}; it is rebuilt`;
    else if (Number(db.prepare('SELECT count(*) AS n FROM sqlite_master').get()?.n ?? 0) > 0)
      // A new, empty file is made now; anything else without our table is not ours to keep.
      why = `the index ${path} is not a Palimpsest index; it is rebuilt`;
    dropAll(db);
    db.exec(SCHEMA);
    db.prepare("INSERT INTO meta (key, value) VALUES ('schema', ?)").run(want);
  })();
  return why;
}

/** The file is not a database, or a damaged one: only then is it deleted. */
const damaged = (e: unknown): boolean => ['SQLITE_NOTADB', 'SQLITE_CORRUPT'].includes(sqliteCode(e) ?? '');

/**
 * Opens the session index in `dir` (index.db), creating it when missing. A file that is not a
 * database or is damaged is deleted and built again; one of another schema version is emptied and
 * built again — the index is a cache of what the session files say, so nothing is lost — with a
 * note saying so. Throws when the folder cannot hold a database (not a folder, not writable) or
 * another process holds the index past the busy timeout (src/main/catalog/db.ts): the caller then
 * does without it.
 */
export function openCatalog(dir: string, busyTimeoutMs?: number): OpenedCatalog {
  const path = join(dir, CATALOG_FILE);
  mkdirSync(dir, { recursive: true });
  let db: Database | null = null;
  let why: string;
  try {
    db = openDatabase(path, busyTimeoutMs);
    return { db, path, rebuilt: ready(db, path) };
  } catch (e) {
    try {
      db?.close();
    } catch {
      // A database that failed to open may refuse to close too.
    }
    if (!damaged(e)) throw e;
    why = `the index ${path} is corrupt (${e instanceof Error ? e.message : String(e)}); it is rebuilt`;
  }
  remove(path);
  const fresh = openDatabase(path, busyTimeoutMs);
  ready(fresh, path);
  return { db: fresh, path, rebuilt: why };
}
