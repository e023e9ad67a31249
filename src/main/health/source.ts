import type { HealthProblem, SessionHealth } from '../../shared/health/row';

/*
 * Where the health report gets its rows. One implementation today, ./session-files.ts: it finds
 * the sessions (as `palimpsest ls` or `inspect DIR` does), loads each one with the importers and
 * builds its row (./row.ts), keeping rows on disk (./cache.ts) so that a second report reads only
 * what changed. The session index will be a second source: it already holds each session's
 * summary, so it can give the rows without loading the sessions again.
 */

/** How far a source has got: sessions done (from the cache or built) out of those found. */
export interface HealthProgress {
  readonly done: number;
  readonly total: number;
  readonly cached: number;
}

export interface HealthRows {
  readonly rows: SessionHealth[];
  /** Sessions that could not be read, with why: listed, never fatal. */
  readonly problems: HealthProblem[];
  /** Rows read from the cache, and rows built by loading the session. */
  readonly cached: number;
  readonly built: number;
  /** What went wrong around the sessions (a folder not listed, the cache not written), in sentences. */
  readonly notes: string[];
}

export interface HealthSource {
  rows(onProgress?: (p: HealthProgress) => void, signal?: AbortSignal): Promise<HealthRows>;
}
