import { readdir } from 'node:fs/promises';
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
    }
  }
  return out;
}
