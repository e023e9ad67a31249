import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { harnessFolderHolding, indexDir, isInside } from '../discovery/cache-folder';
import { type DiscoverOptions, type RootReport, newestFirst, walkSessions } from '../discovery/discover';
import { SCANNER_VERSIONS, scanSession } from '../discovery/scan';
import type { ScanResult, SessionCandidate, SessionSummary } from '../discovery/types';
import type { Database } from './db';
import type { SessionFacts } from './extract';
import { readInOrder, sessionReader } from './extract-pool';
import { headHash } from './stamp';
import { type OpenedCatalog, openCatalog } from './store';

/*
 * Keeps the session index up to date with the session folders, reading again only what changed.
 *
 * A session's files are stamped by [path, size, mtimeMs]; when the stamps are those stored, the
 * session is not read. Otherwise the main file's first 64 KiB are hashed: the same head and a larger
 * size is an append, anything else a change. Either way the session is read again whole — a fate at
 * the latest request depends on everything after it, so an append cannot be indexed from where the
 * last read stopped (docs/search.md gives the cost). A session no longer found under a root that was
 * walked, or whose file is gone, leaves the index. Session files are only ever read.
 *
 * Two depths: the summary (the fast scan `palimpsest ls` prints) and the content (requests,
 * compactions, findings, item texts and fates, for search). `ls` asks for the first only; search for
 * both. A row holds the stamps each depth was read at, and its summary the scanner version that
 * made it (a new scanner scans again).
 *
 * An OpenCode data folder holds many sessions, listed from its databases rather than scanned: the
 * listing is kept too, stamped by the databases' sizes and mtimes (the `meta` row
 * `opencode-listing:<folder>`), and the folder is listed again only when they change.
 *
 * Each write is a short transaction of its own (a session's summary, a session's content, a
 * removal), so that another process using the index waits for at most one (./db.ts).
 */

export interface UpdateOptions extends DiscoverOptions {
  /** Also read requests, compactions, findings and item texts (search); default false (ls). */
  readonly content?: boolean;
  /** Called after each session read, with how many of those to read are done. */
  readonly onProgress?: (done: number, total: number, path: string) => void;
  /**
   * Reads a session's content on this thread (./extract.ts extractSession: the importers and replay);
   * needed with `content`, and what the workers run when there is enough to read. Passed in, not
   * imported, so that the listing (`ls`'s small bundle) carries no importer.
   */
  readonly extract?: (path: string, session?: string) => Promise<SessionFacts>;
  /** Worker threads reading content (0: this thread); default defaultExtractThreads() (extract-pool.ts). */
  readonly threads?: number;
  /** Fewer content bytes to read than this: read on this thread; default EXTRACT_PARALLEL_MIN_BYTES. */
  readonly parallelMinBytes?: number;
  /** Scans the sessions to summarise; default scanSession on this thread. */
  readonly scanMany?: (candidates: readonly SessionCandidate[]) => ScanResult[] | Promise<ScanResult[]>;
  /**
   * Stops the update between its steps and between two sessions' content (the reading threads
   * stopped), rejecting with the signal's reason: what was written stays, consistent, and the rest
   * is left to the next update.
   */
  readonly signal?: AbortSignal;
}

export interface UpdateReport {
  /** The index file, or null when it could not be used (then nothing below is from it). */
  readonly path: string | null;
  readonly roots: readonly RootReport[];
  /** Sessions found by the walk. */
  readonly sessions: number;
  /** Read from the index without opening the session. */
  readonly reused: number;
  /** Summaries scanned in this run. */
  readonly scanned: number;
  /** Sessions whose content was read in this run: new, changed, appended to. */
  readonly added: number;
  readonly changed: number;
  readonly appended: number;
  readonly removed: number;
  /** Worker threads that read the content (0: this thread). */
  readonly threads: number;
  /** Why the index file was replaced, or null. */
  readonly rebuilt: string | null;
  /** Whether this run wrote to the index. */
  readonly written: boolean;
  /** The sessions as `ls` lists them (newest first), each with whether it came from the index. */
  readonly summaries: readonly SessionSummary[];
  readonly problems: readonly string[];
}

interface Stored {
  readonly id: number;
  readonly stamps: string;
  readonly contentStamps: string | null;
  readonly mainSize: number;
  readonly headHash: string;
  readonly summary: string;
}

/** One session to keep: a candidate of the walk (a file or folder) or a listed OpenCode session. */
interface Unit {
  readonly key: string;
  readonly path: string;
  readonly sessionKey: string;
  readonly harness: SessionSummary['harness'];
  readonly stamps: string;
  readonly mainPath: string | null;
  readonly mainSize: number;
  readonly candidate: SessionCandidate | null;
  readonly listed: SessionSummary | null;
}

const keyOf = (path: string, sessionKey: string): string => `${path}\u0000${sessionKey}`;

/** Session summaries written in one transaction. */
const SUMMARY_BATCH = 200;

/** The `meta` key of an OpenCode data folder's kept listing, before the folder's path. */
const LISTING = 'opencode-listing:';

function units(candidates: readonly SessionCandidate[], listed: readonly SessionSummary[]): Unit[] {
  const out: Unit[] = [];
  for (const c of candidates) {
    const main = c.files[0];
    out.push({
      key: keyOf(c.path, ''),
      path: c.path,
      sessionKey: '',
      harness: c.harness,
      stamps: JSON.stringify(c.files.map((f) => [f.path, f.size, f.mtimeMs])),
      mainPath: main?.path ?? null,
      mainSize: main?.size ?? 0,
      candidate: c,
      listed: null,
    });
  }
  for (const s of listed) {
    // A database holds many sessions: each is stamped by what its listing says changed.
    const sessionKey = s.id ?? '';
    out.push({
      key: keyOf(s.path, sessionKey),
      path: s.path,
      sessionKey,
      harness: s.harness,
      stamps: JSON.stringify([s.mtimeMs, s.endedAt, s.requests, s.compactions]),
      mainPath: null,
      mainSize: 0,
      candidate: null,
      listed: s,
    });
  }
  return out;
}

export class SessionCatalog {
  private constructor(
    readonly db: Database,
    readonly path: string,
    readonly rebuilt: string | null,
  ) {}

  /** Opens (or makes, or rebuilds) the index in `dir`; see openCatalog. */
  static open(dir: string, busyTimeoutMs?: number): SessionCatalog {
    const o: OpenedCatalog = openCatalog(dir, busyTimeoutMs);
    return new SessionCatalog(o.db, o.path, o.rebuilt);
  }

  close(): void {
    this.db.close();
  }

  private stored(): Map<string, Stored> {
    const out = new Map<string, Stored>();
    for (const r of this.db
      .prepare('SELECT id, path, session_key, stamps, content_stamps, main_size, head_hash, summary FROM sessions')
      .all()) {
      out.set(keyOf(r.path as string, r.session_key as string), {
        id: Number(r.id),
        stamps: r.stamps as string,
        contentStamps: (r.content_stamps as string | null) ?? null,
        mainSize: Number(r.main_size),
        headHash: r.head_hash as string,
        summary: r.summary as string,
      });
    }
    return out;
  }

  /** The rows of an OpenCode data folder's databases, when the folder was listed at `stamp`. */
  private keptListing(c: SessionCandidate, stamp: string): { sessions: SessionSummary[]; notes: string[] } | null {
    const kept = this.db.prepare('SELECT value FROM meta WHERE key = ?').get(`${LISTING}${c.path}`)?.value;
    if (typeof kept !== 'string') return null;
    const k = JSON.parse(kept) as { stamp: string; notes: string[] };
    if (k.stamp !== stamp) return null;
    const rows = this.db.prepare("SELECT summary FROM sessions WHERE harness = 'opencode' AND path = ?");
    const sessions = c.files.flatMap((f) => rows.all(f.path).map((r) => JSON.parse(r.summary as string) as SessionSummary));
    return { sessions, notes: k.notes };
  }

  /**
   * Brings the index up to date with the walk of `options`' roots; never throws for a bad session.
   * Throws when the index cannot be written (another process holds it past the busy timeout, a
   * read-only file): what was written before stays consistent.
   */
  async update(options: UpdateOptions = {}): Promise<UpdateReport> {
    const { signal } = options;
    signal?.throwIfAborted();
    const walked = await walkSessions(options, (c, stamp) => this.keptListing(c, stamp));
    signal?.throwIfAborted();
    const problems = [...walked.problems];
    const all = units(walked.candidates, walked.listed);
    const before = this.stored();
    const content = options.content === true;
    // What reads a session's content: asked for by search, never by a listing.
    const extract = content ? options.extract : undefined;
    if (content && !extract) throw new Error('the session index needs an extractor to read content');
    let written = false;

    // 1. Summaries: scanned again when the stamps differ.
    const summaries = new Map<string, { summary: SessionSummary; cached: boolean }>();
    const toScan: Unit[] = [];
    for (const u of all) {
      const s = before.get(u.key);
      const { scanner, ...kept } = s && s.stamps === u.stamps ? (JSON.parse(s.summary) as SessionSummary & { scanner?: number }) : {};
      if (u.listed) summaries.set(u.key, { summary: u.listed, cached: u.listed.cached });
      else if (s && s.stamps === u.stamps && scanner === SCANNER_VERSIONS[u.harness])
        summaries.set(u.key, { summary: { ...(kept as SessionSummary), cached: true }, cached: true });
      else toScan.push(u);
    }
    if (toScan.length > 0) {
      const cs = toScan.map((u) => u.candidate as SessionCandidate);
      const scanned = await (options.scanMany ?? ((x: readonly SessionCandidate[]) => x.map(scanSession)))(cs);
      toScan.forEach((u, i) => {
        const c = u.candidate as SessionCandidate;
        const r = scanned[i] as ScanResult;
        let bytes = 0;
        let mtimeMs = 0;
        for (const f of c.files) {
          bytes += f.size;
          if (f.mtimeMs > mtimeMs) mtimeMs = f.mtimeMs;
        }
        summaries.set(u.key, {
          summary: { ...r, harness: c.harness, path: c.path, bytes, files: c.files.length, mtimeMs, cached: false },
          cached: false,
        });
      });
    }
    for (const { summary } of summaries.values()) problems.push(...summary.problems);
    signal?.throwIfAborted();

    // 2. Rows: written for every session whose summary changed; content read when asked and stale.
    let added = 0;
    let changed = 0;
    let appended = 0;
    const toRead = extract ? all.filter((u) => before.get(u.key)?.contentStamps !== u.stamps) : [];
    // Summaries are written a batch at a time: one commit per session would cost a first listing more
    // than its scan, and a batch still holds the write lock for milliseconds only.
    const writeSummaries = this.db.transaction((batch: readonly [Unit, SessionSummary, string][]) => {
      for (const [u, summary, head] of batch) this.upsert(u, summary, head);
    });
    let batch: [Unit, SessionSummary, string][] = [];
    for (const u of all) {
      const s = before.get(u.key);
      const sum = summaries.get(u.key);
      // Kept, or listed again with the same stamps: the row stands.
      if (!sum || sum.cached || (u.listed && s && s.stamps === u.stamps)) continue;
      // The head hash tells an append at the next content read; a row without content needs none yet.
      batch.push([u, sum.summary, content && u.mainPath ? headHash(u.mainPath) : '']);
      if (batch.length === SUMMARY_BATCH) {
        writeSummaries(batch);
        batch = [];
      }
      written = true;
    }
    if (batch.length > 0) writeSummaries(batch);
    // A folder's listing is kept after its rows, so that a kept listing always has them.
    const keep = this.db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)');
    for (const f of walked.folders) {
      if (!f.fresh || f.stamp === null) continue;
      const value = JSON.stringify({ stamp: f.stamp, notes: f.notes });
      if (this.db.prepare('SELECT value FROM meta WHERE key = ?').get(`${LISTING}${f.path}`)?.value === value) continue;
      this.db.transaction(() => keep.run(`${LISTING}${f.path}`, value))();
      written = true;
    }
    let threads = 0;
    // The reader (and its workers) only when there is content to read: a listing reads none.
    if (extract && toRead.length > 0) {
      let done = 0;
      let bytes = 0;
      for (const u of toRead) bytes += summaries.get(u.key)?.summary.bytes ?? u.mainSize;
      // Sessions are read on worker threads when there is enough to read, and written here in order.
      const reader = sessionReader(bytes, { threads: options.threads, minBytes: options.parallelMinBytes, extract, signal });
      threads = reader.threads;
      try {
        await readInOrder(
          toRead,
          reader.ahead,
          (u) => reader.read(u.path, u.sessionKey === '' ? undefined : u.sessionKey),
          (u, facts, error) => {
            const s = before.get(u.key);
            const head = u.mainPath ? headHash(u.mainPath) : '';
            if (!s || s.contentStamps === null) added++;
            else if (u.mainPath && u.mainSize > s.mainSize && s.headHash !== '' && headHash(u.mainPath, s.mainSize) === s.headHash)
              appended++;
            else changed++;
            if (error !== null)
              problems.push(`${u.path}${u.sessionKey ? ` --session ${u.sessionKey}` : ''}: not indexed for search (${error})`);
            this.db.transaction(() => this.writeContent(u, head, facts, error))();
            written = true;
            done++;
            options.onProgress?.(done, toRead.length, u.path);
          },
          signal,
        );
      } finally {
        await reader.close();
      }
    }

    signal?.throwIfAborted();

    // 3. Removed: rows under a walked root (or of a walked harness) the walk did not find, or whose file is gone.
    const found = new Set(all.map((u) => u.key));
    const walkedRoots = walked.roots.filter((r) => r.exists);
    let removed = 0;
    const drop = this.db.transaction((id: number) => this.deleteSession(id));
    for (const r of this.db.prepare('SELECT id, path, session_key, harness FROM sessions').all()) {
      const key = keyOf(r.path as string, r.session_key as string);
      if (found.has(key)) continue;
      const underWalked = walkedRoots.some((w) => w.harness === r.harness && isInside(r.path as string, w.path));
      if (underWalked || !exists(r.path as string)) {
        drop(Number(r.id));
        removed++;
      }
    }
    const listedNow = new Set(walked.folders.map((f) => f.path));
    for (const r of this.db.prepare('SELECT key FROM meta WHERE key LIKE ?').all(`${LISTING}%`)) {
      const folder = (r.key as string).slice(LISTING.length);
      const underWalked = walkedRoots.some((w) => w.harness === 'opencode' && isInside(folder, w.path));
      if (listedNow.has(folder) || (!underWalked && exists(folder))) continue;
      this.db.transaction(() => this.db.prepare('DELETE FROM meta WHERE key = ?').run(r.key))();
      written = true;
    }

    const out = [...summaries.values()].map((x) => x.summary).sort(newestFirst);
    return {
      path: this.path,
      roots: walked.roots,
      sessions: all.length,
      reused: all.length - toScan.length - walked.listed.filter((s) => !s.cached).length,
      scanned: toScan.length,
      added,
      changed,
      appended,
      removed,
      threads,
      rebuilt: this.rebuilt,
      written: written || removed > 0,
      summaries: out,
      problems,
    };
  }

  private upsert(u: Unit, summary: SessionSummary, head: string): number {
    const { cached: _cached, ...kept } = summary;
    const row = this.db.prepare('SELECT id FROM sessions WHERE path = ? AND session_key = ?').get(u.path, u.sessionKey);
    const values = [
      u.harness,
      u.stamps,
      JSON.stringify(u.listed ? kept : { ...kept, scanner: SCANNER_VERSIONS[u.harness] }),
      summary.id,
      summary.project,
      summary.harnessVersion,
      summary.startedAt,
      summary.endedAt,
      summary.bytes,
    ];
    if (row) {
      this.db
        .prepare(
          'UPDATE sessions SET harness = ?, stamps = ?, summary = ?, session_id = ?, project = ?, client_version = ?, first_at = ?, last_at = ?, bytes = ? WHERE id = ?',
        )
        .run(...values, row.id);
      return Number(row.id);
    }
    const r = this.db
      .prepare(
        'INSERT INTO sessions (path, session_key, main_size, head_hash, harness, stamps, summary, session_id, project, client_version, first_at, last_at, bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(u.path, u.sessionKey, u.mainSize, head, ...values);
    return Number(r.lastInsertRowid);
  }

  private clearContent(id: number): void {
    this.db.prepare('DELETE FROM item_text WHERE rowid IN (SELECT id FROM items WHERE session = ?)').run(id);
    for (const t of ['items', 'requests', 'compactions', 'findings']) this.db.prepare(`DELETE FROM ${t} WHERE session = ?`).run(id);
  }

  private deleteSession(id: number): void {
    this.clearContent(id);
    this.db.prepare('DELETE FROM sessions WHERE id = ?').run(id);
  }

  private writeContent(u: Unit, head: string, facts: SessionFacts | null, error: string | null): void {
    const row = this.db.prepare('SELECT id FROM sessions WHERE path = ? AND session_key = ?').get(u.path, u.sessionKey);
    if (!row) return;
    const id = Number(row.id);
    this.clearContent(id);
    const models = facts ? [...new Set(facts.requests.map((r) => r.model).filter((m): m is string => m !== null))] : [];
    let peak: number | null = null;
    for (const r of facts?.requests ?? []) if (r.promptTokens !== null && (peak === null || r.promptTokens > peak)) peak = r.promptTokens;
    this.db
      .prepare(
        'UPDATE sessions SET content_stamps = ?, main_size = ?, head_hash = ?, models = ?, requests = ?, compactions = ?, findings = ?, peak_context = ?, load_error = ?, health = ? WHERE id = ?',
      )
      .run(
        u.stamps,
        u.mainSize,
        head,
        JSON.stringify(models),
        facts?.requests.length ?? null,
        facts?.compactions.length ?? null,
        facts ? facts.findings.reduce((a, f) => a + f.count, 0) : null,
        peak,
        error,
        facts ? JSON.stringify(facts.health) : null,
        id,
      );
    if (!facts) return;
    const req = this.db.prepare('INSERT INTO requests (session, idx, request_id, model, prompt_tokens) VALUES (?, ?, ?, ?, ?)');
    facts.requests.forEach((r, i) => req.run(id, i, r.id, r.model, r.promptTokens));
    const comp = this.db.prepare(
      'INSERT INTO compactions (session, compaction_id, trigger, outcome, strategy, attempts) VALUES (?, ?, ?, ?, ?, ?)',
    );
    for (const c of facts.compactions) comp.run(id, c.id, c.trigger, c.outcome, c.strategy, c.attempts);
    const find = this.db.prepare('INSERT INTO findings (session, rule, severity, count) VALUES (?, ?, ?, ?)');
    for (const f of facts.findings) find.run(id, f.rule, f.severity, f.count);
    const item = this.db.prepare(
      'INSERT INTO items (session, item_index, item_id, seq, role, kind, request, fate) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const text = this.db.prepare('INSERT INTO item_text (rowid, text) VALUES (?, ?)');
    for (const it of facts.items) {
      const r = item.run(id, it.index, it.id, it.seq, it.role, it.kind, it.request, it.fate);
      // The snippet marks (search.ts) must not occur in the text itself.
      // eslint-disable-next-line no-control-regex
      text.run(r.lastInsertRowid, it.text.replace(/[\u0002\u0003]/g, ' '));
    }
  }
}

function exists(p: string): boolean {
  try {
    return statSync(p, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return true;
  }
}

/**
 * The index folder for `options` (the cache folder discovery uses), or null with the reason when
 * that folder is inside a harness's own folders (Palimpsest never writes there).
 */
export function catalogDir(options: DiscoverOptions): { dir: string | null; problem: string | null } {
  const env = options.env ?? process.env;
  const home = options.home ?? homedir();
  const dir = options.indexDir ?? indexDir(env, home);
  const inside = harnessFolderHolding(dir, options);
  if (inside === null) return { dir, problem: null };
  return {
    dir: null,
    problem: `the index folder ${dir} is inside ${inside}, a harness's own folder: Palimpsest never writes there (set PALIMPSEST_CACHE_DIR elsewhere)`,
  };
}
