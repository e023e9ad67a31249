import { type DiscoverOptions, type Discovery, discoverSessions } from '../discovery/discover';
import { catalogDir, SessionCatalog, type UpdateReport } from './update';

/*
 * The listing of `palimpsest ls` and of the app's library: the session index (./update.ts) kept
 * up to date at summary depth, so that a repeat listing opens only the sessions that changed.
 * Whatever goes wrong with the index — its folder refused or not writable, another process holding
 * it past the busy timeout, a damaged row — the sessions are listed by scanning them, as with
 * `--no-cache`, and why is said in `index.problems`: a listing never fails for its cache.
 */

export interface ListOptions extends DiscoverOptions {
  /** How long a write waits for another process's (ms); default db.ts BUSY_TIMEOUT_MS. */
  readonly busyTimeoutMs?: number;
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

function fromReport(r: UpdateReport): Discovery {
  return {
    sessions: [...r.summaries],
    roots: [...r.roots],
    index: { path: r.path, hits: r.reused, scanned: r.scanned, written: r.written, problems: r.rebuilt ? [r.rebuilt] : [] },
    problems: [...r.problems],
  };
}

async function scanned(options: DiscoverOptions, why: string | null): Promise<Discovery> {
  const d = await discoverSessions(options);
  return why === null ? d : { ...d, index: { ...d.index, problems: [why] } };
}

/** The sessions of every harness (or of `harnesses`), newest first; never throws for the index. */
export async function listSessions(options: ListOptions = {}): Promise<Discovery> {
  if (options.useIndex === false) return scanned(options, null);
  const where = catalogDir(options);
  if (where.dir === null) return scanned(options, `${where.problem ?? ''}; the sessions were scanned`);
  let catalog: SessionCatalog;
  try {
    catalog = SessionCatalog.open(where.dir, options.busyTimeoutMs);
  } catch (e) {
    return scanned(options, `the index in ${where.dir} could not be opened (${message(e)}); the sessions were scanned`);
  }
  try {
    return fromReport(await catalog.update({ ...options, content: false }));
  } catch (e) {
    return scanned(options, `the index ${catalog.path} could not be updated (${message(e)}); the sessions were scanned`);
  } finally {
    catalog.close();
  }
}
