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

/** How many folders down a directory given to `inspect` or `validate` is searched. */
export const SEARCH_DEPTH = 6;

/**
 * Hidden folders are skipped (a `.git` or a cache holds no session), except a harness's own home,
 * of which only the folders its sessions live in are searched: `~/.claude` also holds a
 * `history.jsonl` of prompts, and `~/.codex` logs that are not sessions.
 */
const HARNESS_HOMES: Readonly<Record<string, readonly string[]>> = {
  '.claude': ['projects'],
  '.codex': ['sessions', 'archived_sessions'],
  '.dsh': ['sessions'],
  '.rind': ['sessions'],
};

/**
 * The sessions under a directory, sorted: folders an importer claims as one session, and session
 * files; companion folders are read with the file beside them, not on their own. Folders deeper
 * than `depth` are not searched; each one is added to `notSearched`, so that the caller can say so
 * instead of missing sessions silently.
 */
export async function sessionsUnder(dir: string, depth = SEARCH_DEPTH, notSearched: string[] = []): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name === 'node_modules') continue;
      if (e.name.startsWith('.')) {
        for (const sub of HARNESS_HOMES[e.name] ?? [])
          out.push(...(await sessionsUnder(join(p, sub), depth - 1, notSearched).catch(() => [])));
        continue;
      }
      const claim = await claimedDirectory(p);
      if (claim === 'session') out.push(p);
      else if (claim === null && depth > 0) out.push(...(await sessionsUnder(p, depth - 1, notSearched)));
      else if (claim === null) notSearched.push(p);
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
