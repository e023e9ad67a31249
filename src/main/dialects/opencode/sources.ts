import { open, readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { GO_OPENCODE_NOTE, readDatabase } from './database';
import type { OpenCodeRecord, OpenCodeSessionInfo } from './rows';
import { storageRoots, treeRecords, treeSessions } from './tree';

/**
 * Where OpenCode sessions are at a path the user gave: a database file, a storage tree, or
 * OpenCode's data folder (`~/.local/share/opencode/`: its databases and trees together).
 */

const SQLITE_MAGIC = 'SQLite format 3\u0000';

/** True when the file starts as an SQLite database does (16 bytes read). */
export async function isSqliteFile(path: string): Promise<boolean> {
  const fh = await open(path, 'r').catch(() => null);
  if (!fh) return false;
  try {
    const buf = Buffer.alloc(16);
    const { bytesRead } = await fh.read(buf, 0, 16, 0);
    return bytesRead === 16 && buf.toString('latin1') === SQLITE_MAGIC;
  } finally {
    await fh.close();
  }
}

/** OpenCode's database names: `opencode.db`, `opencode-stable.db`, `opencode-<channel>.db`. */
export const DATABASE_NAME = /^opencode(-[A-Za-z0-9._-]+)?\.db$/;

async function databasesIn(dir: string): Promise<string[]> {
  return (await readdir(dir).catch(() => [] as string[]))
    .filter((n) => DATABASE_NAME.test(n))
    .sort()
    .map((n) => join(dir, n));
}

/**
 * What in `dir` holds OpenCode sessions, cheaply (names only, nothing opened): its databases and the
 * `session` folder of each storage tree. Empty: `dir` is no OpenCode folder.
 */
export async function openCodeFolders(dir: string): Promise<string[]> {
  return [...(await databasesIn(dir)), ...(await storageRoots(dir)).map((r) => join(r.dir, 'session'))];
}

export interface Listing {
  readonly sessions: readonly OpenCodeSessionInfo[];
  /** A database that is not OpenCode's, with why (the Go program of the same name). */
  readonly notes: readonly string[];
}

/** Null: nothing at `path` is OpenCode's. `choose` picks the session to read from the listing. */
export async function readSources(
  path: string,
  isDirectory: boolean,
  choose: (sessions: readonly OpenCodeSessionInfo[]) => string | null,
): Promise<{ listing: Listing; records: OpenCodeRecord[] | null } | null> {
  const dbs = isDirectory ? await databasesIn(path) : (await isSqliteFile(path)) ? [path] : [];
  const roots = isDirectory ? await storageRoots(path) : [];
  if (dbs.length === 0 && roots.length === 0) return null;
  if (dbs.length === 1 && roots.length === 0) {
    // One database: listed and read through one copy of it.
    const db = dbs[0] as string;
    const got = await readDatabase(db, choose);
    const notes = got.kind === 'go-opencode' ? [`${db} ${GO_OPENCODE_NOTE}`] : [];
    if (!isDirectory && got.sessions.length === 0 && notes.length === 0 && !DATABASE_NAME.test(basename(path))) return null;
    return { listing: { sessions: got.sessions, notes }, records: got.records ? [...got.records] : null };
  }
  const sessions: OpenCodeSessionInfo[] = [];
  const notes: string[] = [];
  for (const r of roots) sessions.push(...(await treeSessions(r)));
  for (const db of dbs) {
    const got = await readDatabase(db, () => null);
    if (got.kind === 'go-opencode') notes.push(`${db} ${GO_OPENCODE_NOTE}`);
    sessions.push(...got.sessions);
  }
  const listing = { sessions, notes };
  const id = choose(sessions);
  const chosen = sessions.find((s) => s.id === id);
  if (!chosen) return { listing, records: null };
  if (chosen.layout === 'sqlite') {
    const got = await readDatabase(chosen.where, () => chosen.id);
    return { listing, records: got.records ? [...got.records] : null };
  }
  const root = roots.find((r) => r.dir === chosen.where);
  return { listing, records: root ? await treeRecords(root, chosen) : null };
}
