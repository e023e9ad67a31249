import { join } from 'node:path';
import type { ParsedArgs } from '../command/args';
import type { Io } from '../command/io';
import { indexDir } from '../discovery/cache-folder';
import { ContentCountCache } from '../tokens/cache';
import { CountStore, STORE_FILE } from '../tokens/store';

/** The flag of the commands that count tokens: `--no-cache` counts everything again and keeps nothing. */
export const COUNT_CACHE_SPEC: Record<string, 'boolean'> = { 'no-cache': 'boolean' };

export interface CommandCountCache {
  readonly cache: ContentCountCache;
  /** Keeps what was counted for the next run; says once on stderr what went wrong with the file. */
  save(): void;
}

/**
 * The content cache of a command that counts tokens, behind the persistent count store in
 * Palimpsest's cache folder (the folder of `ls`'s index: $PALIMPSEST_CACHE_DIR, else
 * $XDG_CACHE_HOME/palimpsest, else ~/.cache/palimpsest): a second `tokens` or `inspect --json` of
 * a session counts nothing.
 */
export function openCountCache(args: ParsedArgs, io: Io): CommandCountCache {
  if (args.flags.has('no-cache')) return { cache: new ContentCountCache(), save: () => {} };
  const store = CountStore.open(join(indexDir(), STORE_FILE));
  let told = 0;
  const tell = (): void => {
    for (; told < store.problems.length; told++) io.err(`palimpsest: ${store.problems[told] as string}`);
  };
  tell();
  return {
    cache: new ContentCountCache(undefined, store),
    save: () => {
      store.save();
      tell();
    },
  };
}
