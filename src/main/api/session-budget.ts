import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { grouped } from '../../shared/grouped';

/**
 * How much memory a session is expected to take, known before it is loaded, and how much the open
 * sessions of one host may take together.
 */

/**
 * Bytes of memory a loaded session holds per byte of its file. docs/performance.md ("Memory") has
 * the heap a loaded session holds at 0.65× the file (the 1 GB session, long lines) to 1.49× (a
 * million short events, in the compact log; 2.30× when that session kept the array log), and a
 * load's peak at about 3.5× on the latter: 2.5 covers what a session keeps on the worst measured
 * shape without refusing sessions the machine can hold.
 */
export const BYTES_PER_FILE_BYTE = 2.5;

/** The environment variable that sets the budget, in MB. */
export const MEMORY_BUDGET_ENV = 'PALIMPSEST_MEMORY_BUDGET_MB';

const MB = 1024 * 1024;

/**
 * The budget when none is given: three quarters of V8's heap limit. The sessions live on this
 * process's heap, and past its limit the whole host dies ("JavaScript heap out of memory"), so
 * the limit, not the machine's RAM, is what the budget must stay under; the rest is headroom for
 * questions asked of the sessions (views, token counts, searches).
 */
export function heapBudget(): number {
  return Math.floor(getHeapStatistics().heap_size_limit * 0.75);
}

/** A budget in MB as the user wrote it (flag or environment), in bytes; null when it is not a positive number. */
export function parseBudgetMb(text: string): number | null {
  if (!/^\s*\d+(\.\d+)?\s*$/.test(text)) return null;
  const mb = Number(text);
  return mb > 0 && Number.isFinite(mb) ? Math.floor(mb * MB) : null;
}

/** The budget from $PALIMPSEST_MEMORY_BUDGET_MB, else from the heap limit. A value that is not a positive number is ignored. */
export function defaultMemoryBudget(env: NodeJS.ProcessEnv = process.env): number {
  const text = env[MEMORY_BUDGET_ENV];
  return (text !== undefined ? parseBudgetMb(text) : null) ?? heapBudget();
}

export const megabytes = (bytes: number): string => `${grouped(Math.ceil(bytes / MB))} MB`;

/**
 * The memory a session at `path` is expected to take once loaded. A folder (a Rind session) costs
 * what its files do; their sizes are read, not their contents.
 */
export async function estimateCost(path: string, info: { isFile(): boolean; size: number }): Promise<number> {
  if (info.isFile()) return Math.ceil(info.size * BYTES_PER_FILE_BYTE);
  const entries = await readdir(path, { withFileTypes: true }).catch(() => []);
  let size = 0;
  for (const e of entries) {
    if (!e.isFile()) continue;
    size += (await stat(join(path, e.name)).catch(() => null))?.size ?? 0;
  }
  return Math.ceil(size * BYTES_PER_FILE_BYTE);
}
