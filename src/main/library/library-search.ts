import type { LibraryHit } from '../../shared/api/library-contract';
import { ApiFailure } from '../access/failure';
import { HIT_END, HIT_START, searchCatalog, SearchQueryError, type SearchFilters, sinceOf } from '../catalog/search';
import { exclusive } from '../catalog/queue';
import { extractSession } from '../catalog/extract';
import { catalogDir, SessionCatalog } from '../catalog/update';
import type { DiscoverOptions } from '../discovery/discover';

/**
 * The library's search over every session on this machine (docs/search.md): the session index is
 * brought up to date for the library's discovery options, then searched. One update of the index at
 * a time per host (the health report's too), so that two never write it at once.
 */

export interface LibrarySearchInput {
  readonly query: string;
  readonly harness?: string;
  readonly project?: string;
  readonly since?: string;
  readonly model?: string;
  readonly has?: 'compaction' | 'finding';
  readonly max?: number;
}

export interface LibrarySearchResult {
  readonly query: string;
  readonly hits: LibraryHit[];
  /** null: every match ranked; a number: more matched, the hits are the best of that many indexed last. */
  readonly capped: number | null;
  readonly sessions: number;
  readonly read: number;
  readonly problems: string[];
}

/** A snippet with its marks taken out: the plain text and where each marked run is. */
export function unmark(snippet: string): { snippet: string; marks: { at: number; length: number }[] } {
  let out = '';
  const marks: { at: number; length: number }[] = [];
  let open = -1;
  for (const ch of snippet) {
    if (ch === HIT_START) open = out.length;
    else if (ch === HIT_END) {
      if (open >= 0) marks.push({ at: open, length: out.length - open });
      open = -1;
    } else out += ch;
  }
  return { snippet: out, marks };
}

export function searchLibrary(options: DiscoverOptions, input: LibrarySearchInput): Promise<LibrarySearchResult> {
  return exclusive(() => searchNow(options, input));
}

async function searchNow(options: DiscoverOptions, input: LibrarySearchInput): Promise<LibrarySearchResult> {
  let filters: SearchFilters;
  try {
    filters = {
      ...(input.harness ? { harness: input.harness } : {}),
      ...(input.project ? { project: input.project } : {}),
      ...(input.since ? { since: sinceOf(input.since) } : {}),
      ...(input.model ? { model: input.model } : {}),
      ...(input.has ? { has: input.has } : {}),
    };
  } catch (e) {
    throw new ApiFailure('BAD_INPUT', e instanceof Error ? e.message : String(e));
  }
  const where = catalogDir(options);
  if (where.dir === null) throw new ApiFailure('NOT_AVAILABLE', where.problem ?? 'No folder for the session index.');
  const catalog = SessionCatalog.open(where.dir);
  try {
    const report = await catalog.update({ ...options, content: true, extract: extractSession });
    const under = report.roots.filter((r) => r.exists).map((r) => r.path);
    let answer;
    try {
      answer = searchCatalog(catalog.db, input.query, { ...filters, under }, input.max ?? 50);
    } catch (e) {
      if (e instanceof SearchQueryError) throw new ApiFailure('BAD_INPUT', e.message);
      throw e;
    }
    return {
      query: input.query,
      hits: answer.hits.map((h) => ({
        path: h.path,
        session: h.session,
        harness: h.harness as LibraryHit['harness'],
        project: h.project,
        request: h.request,
        item: h.item.id,
        seq: h.item.seq,
        role: h.item.role,
        kind: h.item.kind,
        ...unmark(h.snippet),
        fate: h.fate,
      })),
      capped: answer.capped,
      sessions: report.sessions,
      read: report.added + report.changed + report.appended,
      problems: [...(catalog.rebuilt ? [catalog.rebuilt] : []), ...report.problems],
    };
  } finally {
    catalog.close();
  }
}
