import { copyFile, mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

/**
 * A private copy of an SQLite database and its write-ahead log (in-place.ts says when), taken so that reading never
 * touches the user's folder. Even a read-only open of a WAL database writes the `-shm` index
 * beside it, and a reader holds locks a running OpenCode would wait on; a copy in a folder of
 * our own has neither effect. The `-shm` file is not copied: SQLite rebuilds it from the WAL.
 */
export interface DatabaseSnapshot {
  /** The copied database, to open read-only. */
  readonly path: string;
  /** Remove the copy (idempotent). */
  dispose(): Promise<void>;
}

/** Copies that saw the WAL change under them are tried again this many times. */
const ATTEMPTS = 5;
/** The WAL header's first 32 bytes hold its salts and checkpoint sequence: a checkpoint or a restart changes them. */
const WAL_HEADER = 32;

async function walMark(path: string): Promise<string | null> {
  const info = await stat(path).catch(() => null);
  if (!info) return null;
  const fh = await open(path, 'r').catch(() => null);
  if (!fh) return null;
  try {
    const buf = Buffer.alloc(WAL_HEADER);
    const { bytesRead } = await fh.read(buf, 0, WAL_HEADER, 0);
    return `${info.size}:${info.mtimeMs}:${buf.subarray(0, bytesRead).toString('hex')}`;
  } finally {
    await fh.close();
  }
}

/**
 * Copies `dbPath` (and `dbPath-wal` when there is one) into a new private temporary folder.
 * The WAL is copied before the database and its size and header are checked again after both:
 * a writer that checkpointed in between (moving pages from the WAL into the database) would
 * leave a pair that disagrees, so the copy is made again.
 */
export async function snapshotDatabase(dbPath: string): Promise<DatabaseSnapshot> {
  const dir = await mkdtemp(join(tmpdir(), 'palimpsest-opencode-'));
  let disposed = false;
  const dispose = async (): Promise<void> => {
    if (disposed) return;
    disposed = true;
    await rm(dir, { recursive: true, force: true });
  };
  const copy = join(dir, basename(dbPath));
  try {
    for (let attempt = 1; ; attempt++) {
      const before = await walMark(`${dbPath}-wal`);
      await rm(`${copy}-wal`, { force: true });
      if (before !== null) await copyFile(`${dbPath}-wal`, `${copy}-wal`);
      await copyFile(dbPath, copy);
      const after = await walMark(`${dbPath}-wal`);
      if (before === after || attempt >= ATTEMPTS) break;
    }
  } catch (err) {
    await dispose();
    throw err;
  }
  return { path: copy, dispose };
}
