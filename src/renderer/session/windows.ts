import type { ApiError } from '../../shared/api/contract';

/**
 * Windows of rows fetched on demand, by fixed-size chunk, for one key at a time (the selected view,
 * the raw history): a chunk is asked for once, kept, and answers for another key (a request
 * selected since) are dropped.
 */

export type Chunks<T> = Readonly<Record<number, readonly T[]>>;

export type Fetched<T> = { readonly ok: true; readonly rows: readonly T[] } | { readonly ok: false; readonly error: ApiError };

export interface ChunkLoader<T> {
  /** Make sure rows [from, to] of `key` are loaded or loading. A new key drops what the old one had. */
  ensure(key: string, from: number, to: number, fetch: (from: number, count: number) => Promise<Fetched<T>>): void;
  /** The loaded row at a position, if its chunk is in. */
  row(position: number): T | undefined;
  reset(): void;
  /** Forget the chunks from the one holding `position` on (rows appended there since), keeping the key and the rest. */
  dropFrom(position: number): void;
}

export function chunkLoader<T>(
  size: number,
  publish: (c: Chunks<T>) => void,
  current: () => Chunks<T>,
  onError: (e: ApiError) => void,
): ChunkLoader<T> {
  let key: string | null = null;
  let generation = 0;
  const pending = new Set<number>();

  const reset = (): void => {
    key = null;
    generation++;
    pending.clear();
    publish({});
  };

  return {
    ensure(k, from, to, fetch) {
      if (to < from) return;
      if (k !== key) {
        reset();
        key = k;
      }
      const gen = generation;
      for (let c = Math.floor(Math.max(0, from) / size); c * size <= to; c++) {
        if (current()[c] || pending.has(c)) continue;
        pending.add(c);
        void fetch(c * size, size).then((r) => {
          if (gen !== generation) return;
          pending.delete(c);
          if (r.ok) publish({ ...current(), [c]: r.rows });
          else onError(r.error);
        });
      }
    },
    row(position) {
      return current()[Math.floor(position / size)]?.[position % size];
    },
    reset,
    dropFrom(position) {
      const first = Math.floor(Math.max(0, position) / size);
      // Answers on their way for those chunks would bring the old rows: dropped like another key's.
      generation++;
      pending.clear();
      const kept = Object.fromEntries(Object.entries(current()).filter(([c]) => Number(c) < first)) as Chunks<T>;
      publish(kept);
    },
  };
}

/** The loaded row at `position` of chunks of `size`. */
export function rowAt<T>(chunks: Chunks<T>, size: number, position: number): T | undefined {
  return chunks[Math.floor(position / size)]?.[position % size];
}
