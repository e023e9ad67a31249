import { z } from 'zod';
import { BranchName, Count, Seq, SessionId } from './scalars';

/**
 * The app shell's part of the API contract (docs/session-view.md): the library (sessions found on
 * this machine and in folders the host was given, native pickers) and search within an open
 * session. Spread into CONTRACT by ./contract.ts; the method names are in ./methods.ts.
 *
 * Like ./session-contract.ts, this module is evaluated while ./contract.ts is, so it takes its small
 * schemas from ./scalars.ts instead of reading ./contract's at evaluation time.
 */

/** The harnesses discovery knows; the same names as the session formats. */
export const LibraryHarness = z.enum(['palimpsest', 'dsh', 'claude-code', 'codex', 'rind', 'cosh', 'gemini-cli', 'opencode']);
export type LibraryHarness = z.infer<typeof LibraryHarness>;

/** Most sessions one `discoverSessions` answer lists (newest first); `truncated` says more were found. */
export const MAX_DISCOVERED = 5000;
/** Most matches one `searchSession` answer lists; `total` still counts every match. */
export const MAX_SEARCH_RESULTS = 1000;

/**
 * A session found on disk by a cheap scan (src/main/discovery). null: the scan could not tell —
 * the UI says "unknown" and never fills it in. Diagnostics are not run by a scan: open the session.
 */
export const DiscoveredSession = z.object({
  path: z.string(),
  /** null: a file in a folder the host was given that no importer recognises. */
  harness: LibraryHarness.nullable(),
  /** machine: a harness's default folder (or its environment override); folder: a folder the host was given or a folder picked. */
  origin: z.enum(['machine', 'folder']),
  /** The folder it was found under. */
  root: z.string(),
  id: z.string().nullable(),
  /** The working directory the session ran in. */
  project: z.string().nullable(),
  /** Session content (a title or first prompt): render as text. */
  title: z.string().nullable(),
  startedAt: z.string().nullable(),
  endedAt: z.string().nullable(),
  /** Newest modification time of its files, ISO 8601. */
  modifiedAt: z.string(),
  bytes: Count,
  files: Count,
  requests: Count.nullable(),
  compactions: Count.nullable(),
  model: z.string().nullable(),
  harnessVersion: z.string().nullable(),
  /** Lines the scan could not read. */
  badLines: Count,
  problems: z.array(z.string()),
  /** A capture named for the session file lies beside it (`<file>.capture.jsonl`; a cheap check: captures found by id show when it opens). */
  capture: z.boolean().optional(),
});
export type DiscoveredSession = z.infer<typeof DiscoveredSession>;

export const LibraryRoot = z.object({
  harness: LibraryHarness.nullable(),
  path: z.string(),
  /** Where it came from: default, $CODEX_HOME, argument, picked. */
  source: z.string(),
  exists: z.boolean(),
  sessions: Count,
});
export type LibraryRoot = z.infer<typeof LibraryRoot>;

export const Discovery = z.object({
  sessions: z.array(DiscoveredSession),
  roots: z.array(LibraryRoot),
  /** Folders that could not be listed, sessions that could not be read, in a sentence each. */
  problems: z.array(z.string()),
  truncated: z.boolean(),
  /** When this listing was made, ISO 8601. */
  at: z.string(),
});
export type Discovery = z.infer<typeof Discovery>;

export const SearchMatch = z.object({
  seq: Seq,
  /** The event's kind (item, header, compaction/summary…). */
  kind: z.string(),
  branch: z.string(),
  /** The first request at or after the event on the searched branch (the first model view that can show it); null: none follows. */
  request: Count.nullable(),
  /** The item the event wrote, for item events. */
  item: z.string().nullable(),
  /** Which text matched, in words: "user text", "tool result", "compaction summary", "system prompt"… */
  where: z.string(),
  /** A line of text around the match (session content: render as text). */
  snippet: z.string(),
  /** The match within the snippet, in UTF-16 code units. */
  at: Count,
  length: Count,
});
export type SearchMatch = z.infer<typeof SearchMatch>;

/** Most hits one `searchLibrary` answer lists. */
export const MAX_LIBRARY_HITS = 200;

/**
 * A match of a search over every session (src/main/catalog, docs/search.md): the session, the item
 * and where the session view shows it, and the item's fate at the session's latest request.
 */
export const LibraryHit = z.object({
  path: z.string(),
  /** The session of a database that holds several (OpenCode); null for a session file. */
  session: z.string().nullable(),
  harness: LibraryHarness,
  project: z.string().nullable(),
  /** The first request after the item (the first model view that can show it); null: made after the last request. */
  request: Count.nullable(),
  item: z.string(),
  /** The event that made the item: what the raw history selects. */
  seq: Seq,
  role: z.string(),
  kind: z.string(),
  /** Text around the match (session content: render as text). */
  snippet: z.string(),
  /** The matching words within the snippet, in UTF-16 code units. */
  marks: z.array(z.object({ at: Count, length: Count })),
  /** The item's fate at the session's latest request (verbatim, masked, pruned, summarised, dropped, reinjected); null: made after it. */
  fate: z.string().nullable(),
});
export type LibraryHit = z.infer<typeof LibraryHit>;

export const LIBRARY_CONTRACT = {
  /** Sessions on this machine per harness and in the folders the host was given or picked. */
  discoverSessions: {
    input: z.object({ refresh: z.boolean().optional() }),
    output: Discovery,
  },
  /**
   * A native open dialog (Electron). The web host answers NOT_AVAILABLE: a page cannot show the
   * machine's file system, so the user types a path. Picked paths may be opened from then on.
   * An empty list: the user cancelled.
   */
  pickPaths: {
    input: z.object({ kind: z.enum(['files', 'folder']) }),
    output: z.object({ kind: z.enum(['files', 'folder']), paths: z.array(z.string()) }),
  },
  /**
   * Case-insensitive substring search over the text of a session's events (items, summaries,
   * system prompts, tool calls and results, errors), run in main. One match per text that holds
   * the query. Long texts are re-read from the file to be searched whole, within a time budget;
   * `partial` counts the events searched in their in-memory preview only.
   */
  searchSession: {
    input: z.object({
      sessionId: SessionId,
      query: z.string().min(1).max(1000),
      branch: BranchName.optional(),
      max: z.number().int().positive().max(MAX_SEARCH_RESULTS).optional(),
    }),
    output: z.object({
      query: z.string(),
      branch: z.string(),
      /** Texts that hold the query (may exceed the matches listed). */
      total: Count,
      truncated: z.boolean(),
      /** Events searched in their in-memory preview only (the time budget ran out): matches in the rest of their text are not found. */
      partial: Count,
      matches: z.array(SearchMatch),
    }),
  },
  /**
   * Full-text search over every session the library finds on this machine (FTS5 queries: words,
   * "phrases", prefix*; ranked best first), through the session index, brought up to date first
   * (sessions that changed are read again, which may take a while on a first run). A query FTS5
   * rejects is BAD_INPUT. Sessions of folders the host was given are not indexed.
   */
  searchLibrary: {
    input: z.object({
      query: z.string().min(1).max(1000),
      harness: LibraryHarness.optional(),
      project: z.string().max(1000).optional(),
      /** An ISO date or time, or a span back from now: 30m, 12h, 7d, 2w. */
      since: z.string().max(100).optional(),
      model: z.string().max(200).optional(),
      has: z.enum(['compaction', 'finding']).optional(),
      max: z.number().int().positive().max(MAX_LIBRARY_HITS).optional(),
    }),
    output: z.object({
      query: z.string(),
      hits: z.array(LibraryHit),
      /** null: every match was ranked; a number: more matched, and the hits are the best of that many, the ones indexed last. */
      capped: Count.nullable(),
      /** Sessions the index holds for the roots walked, and how many were read again for this search. */
      sessions: Count,
      read: Count,
      problems: z.array(z.string()),
    }),
  },
} as const;

export type LibraryMethod = keyof typeof LIBRARY_CONTRACT;
