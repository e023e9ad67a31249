import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { IMPORTERS } from '../importers/registry';

/** Names of files that can hold a session on their own. */
export const SESSION_FILE = /\.jsonl(\.zstd?)?$/;

/** Whether an importer reads this folder as one session (Rind), as the companions of a file beside it (Claude Code subagents), or not at all. */
export async function claimedDirectory(dir: string): Promise<'session' | 'companions' | null> {
  const inside = resolve(dir) + sep;
  for (const importer of IMPORTERS) {
    const files = await importer.sessionFiles?.(dir, true);
    if (!files || files.length === 0) continue;
    return files.every((f) => resolve(f).startsWith(inside)) ? 'session' : 'companions';
  }
  return null;
}

/**
 * The sessions under a directory, sorted: folders an importer claims as one session, and session
 * files; companion folders are read with the file beside them, not on their own.
 */
export async function sessionsUnder(dir: string, depth = 4): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
      const claim = await claimedDirectory(p);
      if (claim === 'session') out.push(p);
      else if (claim === null && depth > 0) out.push(...(await sessionsUnder(p, depth - 1)));
    } else if (e.isFile() && SESSION_FILE.test(e.name)) {
      out.push(p);
    } else if (SESSION_FILE.test(e.name) && (await unreadableEntry(e, p))) {
      // Listed so that loading it says what it is, instead of the session vanishing unexplained.
      out.push(p);
    }
  }
  return out;
}

/**
 * An entry named like a session that no load can read: a FIFO, a device or a socket (reading
 * one would wait, or never end; the loader refuses it unopened), or a link to one, or a link
 * that loops.
 */
async function unreadableEntry(e: Dirent, path: string): Promise<boolean> {
  if (!e.isSymbolicLink()) return !e.isDirectory() && !e.isFile();
  const info = await stat(path).catch((err: unknown) => ((err as NodeJS.ErrnoException).code === 'ELOOP' ? 'loop' : null));
  if (info === 'loop') return true;
  return info !== null && !info.isFile() && !info.isDirectory();
}
