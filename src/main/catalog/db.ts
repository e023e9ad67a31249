import { createRequire } from 'node:module';

/*
 * The session index's database connection, read-write: `libsql` (N-API, prebuilt, loads in Node
 * and Electron alike, FTS5 compiled in; docs/sources.md). Loaded on first use by a require the
 * bundlers leave alone, as src/main/dialects/opencode/binding.ts does for reading.
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
  transaction<A extends unknown[]>(fn: (...args: A) => void): (...args: A) => void;
  close(): void;
}

type LibsqlConstructor = new (path: string, options?: { readonly?: boolean }) => Database;

let constructorOf: LibsqlConstructor | null = null;

export function openDatabase(path: string): Database {
  constructorOf ??= createRequire(import.meta.url)('libsql') as LibsqlConstructor;
  return new constructorOf(path);
}
