import { readlink, realpath } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';

/** Links followed by hand, at most, for one path: Linux's own limit, past which opening it fails with ELOOP anyway. */
const MAX_LINKS = 40;

/**
 * Where `p` really is, every symbolic link on the way resolved — also when `p` does not exist
 * yet (a results file about to be written): the nearest ancestor that exists is resolved and the
 * rest put back, and a dangling link is followed to where it points. Path policies compare these.
 * resolve() alone, for a file not there yet, would take `allowed/link-to-elsewhere/new.jsonl` for
 * a file under `allowed/` and let a write land outside it. A loop of links is placed where the
 * looping link itself is: opening it fails with ELOOP whatever the policy says.
 */
export async function canonicalPath(p: string): Promise<string> {
  return canonical(resolve(p), { links: MAX_LINKS });
}

async function canonical(abs: string, budget: { links: number }): Promise<string> {
  try {
    return await realpath(abs);
  } catch {
    // Not there (or a loop, or not readable): resolve what is there and put the rest back.
  }
  const parent = dirname(abs);
  if (parent === abs) return abs;
  const realParent = await canonical(parent, budget);
  const target = budget.links > 0 ? await readlink(abs).catch(() => null) : null;
  if (target === null) return join(realParent, basename(abs));
  budget.links--;
  return canonical(resolve(realParent, target), budget);
}
