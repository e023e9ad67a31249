import { createRequire } from 'node:module';

/*
 * The session index's database connection, read-write: `libsql` (N-API, prebuilt, loads in Node
 * and Electron alike, FTS5 compiled in; docs/sources.md). Loaded on first use by a require the
 * bundlers leave alone, as src/main/dialects/opencode/binding.ts does for reading.
 *
 * Several processes may use one index at once (two `palimpsest` commands, the app and the CLI):
 * SQLite's locks keep it whole, and each connection waits for another's write to end (a busy
 * timeout) instead of failing at once. Every transaction begins IMMEDIATE, taking the write lock
 * first: a deferred one that read and then wrote could fail without waiting when another process
 * wrote in between.
 */

export interface Row {
  readonly [column: string]: unknown;
}

export interface Statement {
  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  all(...params: unknown[]): Row[];
  get(...params: unknown[]): Row | undefined;
}

export interface Database {
  prepare(sql: string): Statement;
  exec(sql: string): void;
  /** `fn` as one IMMEDIATE transaction. */
  transaction<A extends unknown[]>(fn: (...args: A) => void): (...args: A) => void;
  close(): void;
}

interface LibsqlDatabase {
  prepare(sql: string): Statement;
  exec(sql: string): void;
  transaction<A extends unknown[]>(fn: (...args: A) => void): ((...args: A) => void) & { immediate: (...args: A) => void };
  close(): void;
}

type LibsqlConstructor = new (path: string) => LibsqlDatabase;

/** How long a write waits for another process's write to end before it fails (SQLITE_BUSY). */
export const BUSY_TIMEOUT_MS = 5000;

let constructorOf: LibsqlConstructor | null = null;

export function openDatabase(path: string, busyTimeoutMs: number = BUSY_TIMEOUT_MS): Database {
  constructorOf ??= createRequire(import.meta.url)('libsql') as LibsqlConstructor;
  const db = new constructorOf(path);
  // libsql's own `timeout` option is not documented in a unit; the pragma is SQLite's, in ms.
  db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
  return {
    prepare: (sql) => db.prepare(sql),
    exec: (sql) => db.exec(sql),
    transaction: (fn) => db.transaction(fn).immediate,
    close: () => db.close(),
  };
}

/** The SQLite result code of an error from the binding ('SQLITE_BUSY' …), or null. */
export function sqliteCode(e: unknown): string | null {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : null;
}
