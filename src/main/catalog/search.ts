import type { Database, Row } from './db';

/*
 * Full-text search over the session index: FTS5 MATCH with its own query syntax (phrases in double
 * quotes, prefixes with *, AND / OR / NOT), ranked by bm25, with the matching words marked in a
 * snippet. Filters narrow by session (harness, project, start time, model, compactions, findings).
 */

/** Marks around a matching word in a snippet: control characters session text cannot hold in the index. */
export const HIT_START = '\u0002';
export const HIT_END = '\u0003';

export interface SearchFilters {
  readonly harness?: string;
  /** A substring of the session's project (working directory). */
  readonly project?: string;
  /** Sessions whose last record (else first) is at or after this ISO time. */
  readonly since?: string;
  /** A substring of one of the models its requests name. */
  readonly model?: string;
  readonly has?: 'compaction' | 'finding';
  /** Only sessions under one of these paths (the roots searched). */
  readonly under?: readonly string[];
}

export interface SearchHit {
  readonly path: string;
  /** The OpenCode session id of a database's session; null for a session file. */
  readonly session: string | null;
  readonly harness: string;
  readonly project: string | null;
  /** The first request that could show the item (null: made after the last request). */
  readonly request: number | null;
  readonly item: { readonly id: string; readonly index: number; readonly seq: number; readonly role: string; readonly kind: string };
  /** Its text around the match, the matching words between HIT_START and HIT_END. */
  readonly snippet: string;
  /** Its fate at the latest request; null when it was made after it. */
  readonly fate: string | null;
  /** bm25: lower is a better match. */
  readonly rank: number;
}

/**
 * Matches ranked at most. bm25 is worked out for every match the sort passes over, and a word in a
 * third of all items (the redacted Codex samples' placeholder) made one query take 0.7–1.4 s on the
 * 1 GB bench library; ranking this many keeps any query near the others (docs/search.md, "Figures").
 */
export const RANK_CAP = 5_000;

export interface SearchAnswer {
  /** Best first. */
  readonly hits: SearchHit[];
  /**
   * null: every match was ranked, the hits are the best of all. A number: more matches than that;
   * the hits are the best of that many, the ones indexed last (the rest were not ranked).
   */
  readonly capped: number | null;
}

/** A query FTS5 rejects (unbalanced quote, a bare operator…): bad usage, said in a sentence. */
export class SearchQueryError extends Error {}

const likeEscape = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export function searchCatalog(db: Database, query: string, filters: SearchFilters = {}, limit = 50, cap = RANK_CAP): SearchAnswer {
  if (query.trim() === '') throw new SearchQueryError('the query is empty');
  const where: string[] = ['item_text MATCH ?'];
  const params: unknown[] = [query];
  if (filters.harness) {
    where.push('s.harness = ?');
    params.push(filters.harness);
  }
  if (filters.project) {
    where.push("s.project LIKE ? ESCAPE '\\'");
    params.push(`%${likeEscape(filters.project)}%`);
  }
  if (filters.since) {
    where.push('coalesce(s.last_at, s.first_at) >= ?');
    params.push(filters.since);
  }
  if (filters.model) {
    where.push("s.models LIKE ? ESCAPE '\\'");
    params.push(`%${likeEscape(filters.model)}%`);
  }
  if (filters.has === 'compaction') where.push('s.compactions > 0');
  if (filters.has === 'finding') where.push('s.findings > 0');
  // No root at all: nothing to search (not everything the index holds).
  if (filters.under && filters.under.length === 0) where.push('0');
  if (filters.under && filters.under.length > 0) {
    where.push(`(${filters.under.map(() => "(s.path = ? OR s.path LIKE ? ESCAPE '\\')").join(' OR ')})`);
    for (const u of filters.under) params.push(u, `${likeEscape(u.replace(/[\\/]+$/, ''))}/%`);
  }
  // Ranked first, snippets after: a snippet is made for the rows kept only, not for every match.
  // At most `cap` + 1 matches are taken, the last indexed first (FTS5 walks its rowids downwards
  // without sorting), and ranked here: one more than `cap` says the ranking is not of every match.
  // CROSS JOIN keeps the full-text match as the outer loop: the planner would otherwise start from a
  // filtered sessions table and run the match once per item.
  const sql = `SELECT item_text.rowid AS id, bm25(item_text) AS rank
    FROM item_text CROSS JOIN items i ON i.id = item_text.rowid CROSS JOIN sessions s ON s.id = i.session
    WHERE ${where.join(' AND ')} ORDER BY item_text.rowid DESC LIMIT ?`;
  params.push(cap + 1);
  let ranked;
  try {
    ranked = db.prepare(sql).all(...params);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    // FTS5's parser and its column filter report as SQLITE_ERROR; anything else is not the query's fault.
    if ((e as { code?: string }).code === 'SQLITE_ERROR' && /fts5|syntax|unterminated|no such column|unknown special query/i.test(msg))
      throw new SearchQueryError(
        `the query ${JSON.stringify(query)} is not valid full-text search syntax (${msg}); quote words with "…" to search them literally`,
      );
    throw e;
  }
  const capped = ranked.length > cap ? cap : null;
  if (capped !== null) ranked.pop();
  // bm25, lower is better; ties in index order, the last indexed first, as the cap reads them.
  ranked.sort((a, b) => Number(a.rank) - Number(b.rank) || Number(b.id) - Number(a.id));
  const kept = ranked.slice(0, limit);
  const ids = kept.map((r) => Number(r.id));
  // The snippets in one pass of the match over the kept rows' span: asked for row by row, a prefix
  // query merges the lists of every word it names once per row (8 ms each for REDACTED* on the
  // bench library). A snippet is made only for a kept row (CASE), not for every row passed over.
  const snips = new Map<number, string>();
  if (ids.length > 0) {
    for (const r of db
      .prepare(
        `SELECT rowid AS id, CASE WHEN rowid IN (SELECT value FROM json_each(?)) THEN snippet(item_text, 0, '${HIT_START}', '${HIT_END}', '…', 16) END AS snip
        FROM item_text WHERE item_text MATCH ? AND rowid BETWEEN ? AND ?`,
      )
      .all(JSON.stringify(ids), query, Math.min(...ids), Math.max(...ids)))
      if (r.snip !== null) snips.set(Number(r.id), r.snip as string);
  }
  const one =
    db.prepare(`SELECT s.path, s.session_key, s.harness, s.project, i.request, i.item_id, i.item_index, i.seq, i.role, i.kind, i.fate
    FROM items i JOIN sessions s ON s.id = i.session WHERE i.id = ?`);
  const rows: Row[] = kept.map((r) => ({ ...(one.get(r.id) ?? {}), snip: snips.get(Number(r.id)) ?? '', rank: r.rank }));
  const hits = rows.map((r) => ({
    path: r.path as string,
    session: r.session_key === '' ? null : (r.session_key as string),
    harness: r.harness as string,
    project: (r.project as string | null) ?? null,
    request: r.request === null ? null : Number(r.request),
    item: { id: r.item_id as string, index: Number(r.item_index), seq: Number(r.seq), role: r.role as string, kind: r.kind as string },
    snippet: flat(r.snip as string),
    fate: (r.fate as string | null) ?? null,
    rank: Number(r.rank),
  }));
  return { hits, capped };
}

// eslint-disable-next-line no-control-regex
const flat = (s: string): string => s.replace(/[\u0000\u0001\u0004-\u001f\u007f\s]+/g, ' ').trim();

/** `--since`: an ISO date or time, or a span back from `now` — 7d, 12h, 30m, 2w. */
export function sinceOf(value: string, now = Date.now()): string {
  const rel = /^(\d+)([mhdw])$/.exec(value.trim());
  if (rel) {
    const unit = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[rel[2] as 'm' | 'h' | 'd' | 'w'];
    return new Date(now - Number(rel[1]) * unit).toISOString();
  }
  if (!/^\d{4}-\d{2}-\d{2}/.test(value.trim()))
    throw new SearchQueryError(`--since takes a date (2026-02-01) or a span back from now (7d, 12h); got "${value}"`);
  const t = Date.parse(value.trim());
  if (Number.isNaN(t)) throw new SearchQueryError(`--since: "${value}" is not a date`);
  return new Date(t).toISOString();
}
