import { createRequire } from 'node:module';

/**
 * The SQLite binding: `libsql`, an N-API addon with prebuilt platform packages, so the same
 * build loads in Node and in Electron without a rebuild, and it reads a database in WAL mode
 * with its `-wal` file (docs/sources.md says why this one). Loaded on first use only, by a
 * require the bundlers leave alone: most loads never open a database, and a native addon
 * cannot be bundled.
 */
export interface Row {
  readonly [column: string]: unknown;
}

export interface ReadOnlyDatabase {
  all(sql: string, ...params: unknown[]): Row[];
  close(): void;
}

interface LibsqlStatement {
  all(...params: unknown[]): unknown[];
}
interface LibsqlDatabase {
  prepare(sql: string): LibsqlStatement;
  close(): void;
}
type LibsqlConstructor = new (path: string, options: { readonly: boolean; fileMustExist: boolean }) => LibsqlDatabase;

let constructorOf: LibsqlConstructor | null = null;

export function openReadOnly(path: string): ReadOnlyDatabase {
  constructorOf ??= createRequire(import.meta.url)('libsql') as LibsqlConstructor;
  const db = new constructorOf(path, { readonly: true, fileMustExist: true });
  return {
    all: (sql, ...params) => db.prepare(sql).all(...params) as Row[],
    close: () => db.close(),
  };
}
