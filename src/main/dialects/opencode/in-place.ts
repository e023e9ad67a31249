import { stat } from 'node:fs/promises';
import { snapshotDatabase } from './snapshot';

/**
 * Where to read an OpenCode database from: in place when that is safe, else a private snapshot.
 *
 * When the database has no write-ahead log beside it (or an empty one), every committed row is in
 * the database file itself, and it is opened where it is as an SQLite URI with `mode=ro` and
 * `immutable=1`: SQLite then takes no lock (a running OpenCode waits on nothing) and creates no
 * `-shm` or `-wal` file (nothing is written beside it), and nothing is copied, however large the
 * file. Otherwise (a WAL with rows in it, which an immutable open would not see) the database and
 * its WAL are copied (snapshot.ts).
 *
 * An immutable open trusts the file not to change while it is read. So the file's size and time,
 * and the WAL's absence, are checked again after the read (`unchanged`): a writer that started in
 * between makes the caller read again through a snapshot.
 */
export interface DatabaseSource {
  /** What to open (a path, or a `file:` URI). */
  readonly path: string;
  /** True: the user's file itself, opened immutable. */
  readonly inPlace: boolean;
  /** False when the database may have changed while it was read in place. */
  unchanged(): Promise<boolean>;
  dispose(): Promise<void>;
}

async function mark(path: string): Promise<string | null> {
  const s = await stat(path).catch(() => null);
  return s ? `${s.size}:${s.mtimeMs}` : null;
}

async function walHasRows(dbPath: string): Promise<boolean> {
  const s = await stat(`${dbPath}-wal`).catch(() => null);
  return s !== null && s.size > 0;
}

/**
 * `path` as an SQLite URI that opens it read-only and immutable. `%`, `?` and `#` are escaped (a
 * URI's path would end at the last two); a Windows drive path gets the leading slash URIs need.
 */
export function immutableUri(path: string): string {
  const posix = path.replace(/\\/g, '/');
  const abs = /^[A-Za-z]:\//.test(posix) ? `/${posix}` : posix;
  const escaped = abs.replace(/%/g, '%25').replace(/\?/g, '%3f').replace(/#/g, '%23');
  return `file:${escaped}?mode=ro&immutable=1`;
}

/** The source to read `dbPath` from; `copy` forces a snapshot (a read in place saw a change). */
export async function databaseSource(dbPath: string, copy = false): Promise<DatabaseSource> {
  if (!copy && !(await walHasRows(dbPath))) {
    const before = await mark(dbPath);
    if (before !== null)
      return {
        path: immutableUri(dbPath),
        inPlace: true,
        unchanged: async () => (await mark(dbPath)) === before && !(await walHasRows(dbPath)),
        dispose: async () => {},
      };
  }
  const snap = await snapshotDatabase(dbPath);
  return { path: snap.path, inPlace: false, unchanged: async () => true, dispose: () => snap.dispose() };
}
