import { join } from 'node:path';
import { ContentCountCache } from './cache';
import { CountStore, STORE_FILE } from './store';

/*
 * The count cache of a long-lived host (the app, `serve`): one for every session it opens, behind
 * the persistent count store in Palimpsest's cache folder — the same file the CLI's counting
 * commands use (../cli/count-cache.ts), so a session counted by either is not counted again.
 * Opened at the first question about tokens, saved when a session's counting ends and when the
 * host closes its counter. A store that cannot be read or written is reported on stderr and
 * counting goes on without it: it is a cache.
 */

interface Shared {
  readonly cache: ContentCountCache;
  readonly store: CountStore;
  /** Problems of the store already said. */
  told: number;
}

const byDir = new Map<string, Shared>();

function tell(s: Shared): void {
  for (; s.told < s.store.problems.length; s.told++) console.error(`palimpsest: ${s.store.problems[s.told] as string}`);
}

/** The count cache kept in `dir` (the cache folder), opened on first use; none without a folder. */
export function sharedCountCache(dir: string | undefined): ContentCountCache | undefined {
  if (dir === undefined) return undefined;
  let s = byDir.get(dir);
  if (!s) {
    const store = CountStore.open(join(dir, STORE_FILE));
    s = { cache: new ContentCountCache(undefined, store), store, told: 0 };
    byDir.set(dir, s);
    tell(s);
  }
  return s.cache;
}

/** Writes what was counted since the last save (a store with nothing new is not written). */
export function saveSharedCountCaches(): void {
  for (const s of byDir.values()) {
    s.store.save();
    tell(s);
  }
}

/**
 * Forget the open caches: the next question reads the store again, as a host started anew would.
 * A seam for the tests of a second host.
 * @internal
 */
export function resetSharedCountCaches(): void {
  byDir.clear();
}
