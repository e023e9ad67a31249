import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import type { OpenSessionProgress, ProgressEvent } from '../../shared/api/contract';
import { ApiFailure } from '../access/failure';
import type { PathPolicy } from '../access/path-policy';
import { canonicalPath as canonical } from '../files/canonical';
import { kindOf, NotRegularFile, whyUnreadable } from '../files/open-regular';
import type { FormatId } from '../importers/types';
import { SessionInspector } from '../session/inspector';
import { loadSession, UnreadableSessionError } from '../session/load';
import type { LoadedSession } from '../session/types';
import { RULES } from '../../shared/diagnostics';
import { defaultMemoryBudget, estimateCost, megabytes, MEMORY_BUDGET_ENV } from './session-budget';
import { stepThrough } from './steps';
import type { DiscoverOptions } from '../capture/discover';
import { dataDir } from '../files/data-dir';
import { joinSessionCaptures } from './session-captures';

// Defined below the API, where the library (which throws one and is a policy) can use them too.
export { ApiFailure };
export type { PathPolicy };

export interface OpenSession {
  readonly id: string;
  /** The path as the caller gave it. */
  readonly path: string;
  readonly inspector: SessionInspector;
  /** 0 as opened; one more each time `replace` puts a session read anew in its place. */
  readonly revision: number;
}

export interface SessionRegistryOptions {
  /**
   * Paths that may be opened: only these files (compared after resolving symlinks), a policy, or
   * `'any'`. A host started on some sessions should not become a reader of every file on the machine.
   */
  readonly allow: readonly string[] | 'any' | PathPolicy;
  /** Most sessions open at once, counting the opens under way. Default 16. */
  readonly maxSessions?: number;
  /**
   * Bytes of memory the open sessions (and those being loaded) may take together, each estimated
   * from its file's size before it is loaded (./session-budget.ts). A session alone is always
   * let in. Default: $PALIMPSEST_MEMORY_BUDGET_MB, else three quarters of the heap limit.
   */
  readonly memoryBudget?: number;
  /**
   * Where a session's captures are looked for when it opens (src/main/capture/discover.ts), or
   * null: only the captures the caller names. Default: the data dir of $PALIMPSEST_DATA_DIR.
   */
  readonly captureDiscovery?: DiscoverOptions | null;
}

/** A load of one file, shared by the opens of that file made while it runs, and what it cost. */
interface SharedLoad {
  readonly done: Promise<SessionInspector>;
  readonly cost: number;
  /** The opens that will hold the loaded session; the load's memory is released when the last closes. */
  holders: number;
  readonly listeners: Set<(e: ProgressEvent) => void>;
}

interface Held {
  session: OpenSession;
  load: SharedLoad;
  /** What it was opened with, to load it again the same way (`reload`). */
  readonly opened: { readonly format?: FormatId; readonly session?: string; readonly captures: readonly string[] };
  /** Calls under way (`hold`), by the revision they began at. */
  readonly calls: Map<number, number>;
  /** Sessions replaced, disposed once no call begun at their revision or before is under way. */
  retired: { readonly revision: number; readonly inspector: SessionInspector }[];
}

/**
 * Owns the loaded sessions of one host (a web host or an Electron window's main process). Each
 * `open` loads the file once and hands out an id; `close` and `dispose` release the memory.
 */
export class SessionRegistry implements Disposable {
  private readonly sessions = new Map<string, Held>();
  private readonly maxSessions: number;
  private readonly memoryBudget: number;
  /**
   * Slots taken: open sessions plus opens under way. Taken before the first await of a load, so
   * concurrent opens cannot all see room for themselves and race past the limit.
   */
  private slots = 0;
  /** Estimated bytes of the loaded sessions and of the loads under way. */
  private reserved = 0;
  /** Loads under way, by file (after symlinks) and format: a second open of the same file joins. */
  private readonly loads = new Map<string, SharedLoad>();
  private allowed: Promise<Set<string>> | null = null;
  private disposed = false;
  /** Opens under way, with their progress (a 500 MB session takes seconds), by a number of their own. */
  private readonly inProgress = new Map<number, OpenSessionProgress>();
  private nextOpen = 0;

  private readonly discovery: DiscoverOptions | null;

  constructor(private readonly options: SessionRegistryOptions) {
    this.maxSessions = options.maxSessions ?? 16;
    this.memoryBudget = options.memoryBudget ?? defaultMemoryBudget();
    this.discovery = options.captureDiscovery === undefined ? { dataDir: dataDir() } : options.captureDiscovery;
  }

  get size(): number {
    return this.sessions.size;
  }

  private async isAllowed(path: string): Promise<boolean> {
    const allow = this.options.allow;
    if (allow === 'any') return true;
    if (!Array.isArray(allow)) return (allow as PathPolicy).allows(path);
    this.allowed ??= Promise.all(allow.map(canonical)).then((ps) => new Set(ps));
    return (await this.allowed).has(await canonical(path));
  }

  /** The opens under way and how far each has got, oldest first. */
  opening(): OpenSessionProgress[] {
    return [...this.inProgress.values()];
  }

  /** Opens a session; `captures` are joined to it besides those discovery finds (each path checked like the session's). */
  async open(
    path: string,
    format?: FormatId,
    onProgress?: (e: ProgressEvent) => void,
    captures: readonly string[] = [],
    session?: string,
  ): Promise<OpenSession> {
    const id = this.nextOpen++;
    try {
      return await this.load(path, format, captures, session, (e) => {
        if (e.operation === 'openSession') this.inProgress.set(id, e);
        onProgress?.(e);
      });
    } finally {
      this.inProgress.delete(id);
    }
  }

  private async load(
    path: string,
    format: FormatId | undefined,
    captures: readonly string[],
    session: string | undefined,
    onProgress: (e: ProgressEvent) => void,
  ): Promise<OpenSession> {
    if (this.disposed) throw new ApiFailure('INTERNAL', 'The session registry is closed.');
    // A capture is read like a session, so it is let in only where a session would be.
    for (const p of [path, ...captures]) {
      if (await this.isAllowed(p)) continue;
      const policy = this.options.allow;
      const why =
        typeof policy === 'object' && !Array.isArray(policy)
          ? (policy as PathPolicy).refusal(p)
          : `${p} is not one of the sessions this window was opened with.`;
      throw new ApiFailure('FORBIDDEN_PATH', why);
    }
    // Checked and taken with no await in between: the count is exact however many opens race.
    if (this.slots >= this.maxSessions) {
      throw new ApiFailure(
        'LIMIT',
        `Too many sessions open: ${this.sessions.size} open and ${this.slots - this.sessions.size} opening, of at most ${this.maxSessions}; close one first.`,
      );
    }
    this.slots++;
    let load: SharedLoad | null = null;
    try {
      load = await this.shareOrStart(path, format, captures, session, onProgress);
      const inspector = await load.done.finally(() => load?.listeners.delete(onProgress));
      if (this.disposed) throw new ApiFailure('INTERNAL', 'The session registry was closed while loading.');
      const s: OpenSession = { id: randomUUID(), path, inspector, revision: 0 };
      this.sessions.set(s.id, { session: s, load, opened: { format, session, captures }, calls: new Map(), retired: [] });
      return s;
    } catch (err: unknown) {
      this.slots--;
      if (load) this.release(load);
      throw err;
    }
  }

  /** Joins the load of the same file under way, or reserves the memory for a new one and starts it. */
  private async shareOrStart(
    path: string,
    format: FormatId | undefined,
    captures: readonly string[],
    session: string | undefined,
    onProgress: (e: ProgressEvent) => void,
  ): Promise<SharedLoad> {
    const info = await stat(path).catch((err: unknown) => {
      throw new ApiFailure('UNREADABLE', `${whyUnreadable(path, err)}.`);
    });
    // A folder may be one session (Rind's); the loader says when it is not. A FIFO or a device is
    // never opened: the read would hold one of the few threads file reads share, for good.
    const kind = kindOf(info);
    if (kind !== null && kind !== 'a directory') throw new ApiFailure('UNREADABLE', `${new NotRegularFile(path, kind).message}.`);
    // The captures named are part of what is loaded: the same file with others is another load.
    const named = (await Promise.all(captures.map(canonical))).sort();
    // One database holds many sessions (OpenCode's): the session read is part of what is loaded.
    const key = [format ?? '', session ?? '', await canonical(path), ...named].join('\0');
    const cost = await estimateCost(path, info);
    if (this.disposed) throw new ApiFailure('INTERNAL', 'The session registry was closed while loading.');
    // From here to the end, no await: the budget is checked and taken at once.
    const running = this.loads.get(key);
    if (running) {
      running.holders++;
      running.listeners.add(onProgress);
      return running;
    }
    // A session alone is let in whatever its size: refusing it would leave it unopenable here.
    if (this.reserved > 0 && this.reserved + cost > this.memoryBudget) {
      throw new ApiFailure(
        'LIMIT',
        `Not enough memory budget to open ${path}: it needs about ${megabytes(cost)}, and the sessions open or opening take ${megabytes(this.reserved)} of ${megabytes(this.memoryBudget)}; close one first (the budget is set with --memory-budget or $${MEMORY_BUDGET_ENV}).`,
      );
    }
    this.reserved += cost;
    const listeners = new Set([onProgress]);
    const done = this.read(path, format, session, captures, info, (e) => {
      for (const l of listeners) l(e);
    }).finally(() => this.loads.delete(key));
    // Each holder awaits `done`; this keeps a failure with no holder left from being unhandled.
    done.catch(() => undefined);
    const load: SharedLoad = { cost, holders: 1, listeners, done };
    this.loads.set(key, load);
    return load;
  }

  /** One holder of a load lets go; the last one frees the session and its share of the budget. */
  private release(load: SharedLoad): void {
    load.holders--;
    if (load.holders > 0) return;
    this.reserved -= load.cost;
    load.done
      .then(
        (inspector) => inspector.session.dispose(),
        () => undefined,
      )
      .catch(() => undefined);
  }

  private async read(
    path: string,
    format: FormatId | undefined,
    session: string | undefined,
    captures: readonly string[],
    info: { isFile(): boolean; size: number },
    onProgress: (e: ProgressEvent) => void,
    again?: { readonly loaded?: LoadedSession },
  ): Promise<SessionInspector> {
    // A folder's size says nothing about its files: then only the bytes read are known.
    const total = info.isFile() ? info.size : null;
    const progress = (phase: ProgressEvent['phase'], done: number | null, of: number | null = total) =>
      onProgress({ operation: 'openSession', path, phase, done: done === null || of === null ? done : Math.min(done, of), total: of });
    progress('reading', 0);
    let inspector: SessionInspector | null = null;
    try {
      // Loaded again for Follow: so that the next change can be read on (LoadOptions.resumable).
      const loaded =
        again?.loaded ??
        (await loadSession(path, { format, session, resumable: again !== undefined, onBytes: (read) => progress('reading', read) }));
      inspector = new SessionInspector(loaded);
      // Replay and the diagnostics are seconds of work on a session of a million events: done in
      // steps, with the host answering other questions (and this open's progress) between them.
      progress('replaying', 0, loaded.events.length);
      await stepThrough(inspector.replaySteps(), (p) => progress('replaying', p.done, p.total));
      // The diagnostics read the join (the wire rules): it is laid beside the log first.
      await joinSessionCaptures(inspector, path, captures, this.discovery);
      // The diagnostics catalog reads whole summaries: re-read them once, so every count agrees.
      await inspector.loadRuleTexts();
      // The summary counts the findings: worked out here, inside the progress, not after it.
      progress('checking', 0, RULES.length);
      await stepThrough(inspector.diagnosticsSteps(), (p) => progress('checking', p.done, p.total));
    } catch (err: unknown) {
      progress('failed', null);
      // A capture that cannot be read fails the open after the session was loaded: let go of its files.
      if (inspector) void Promise.resolve(inspector.session.dispose()).catch(() => undefined);
      if (err instanceof UnreadableSessionError) throw new ApiFailure('UNREADABLE', err.message);
      throw err;
    }
    progress('done', total);
    return inspector;
  }

  get(id: string): OpenSession {
    return this.held(id).session;
  }

  /*
   * Follow (./session/follow.ts) reads a changed session anew and puts it in the old one's place,
   * under the same id: `reload` makes the new session, `replace` swaps it in, and `hold` keeps the
   * old one open for the calls that began before the swap. A call sees one session, old or new.
   */

  /**
   * The open session `id` made again, ready to answer as an open one is: `loaded` (the session read
   * on) replayed and checked, or, without it, the file loaded again as it was opened (format,
   * session, captures), so that it can read on next time. Not yet in the registry: see `replace`.
   */
  async reload(id: string, loaded?: LoadedSession): Promise<SessionInspector> {
    const held = this.held(id);
    const { path } = held.session;
    const info = await stat(path).catch((err: unknown) => {
      if (loaded) void loaded.dispose();
      throw new ApiFailure('UNREADABLE', `${whyUnreadable(path, err)}.`);
    });
    const { format, session, captures } = held.opened;
    return this.read(path, format, session, captures, info, () => undefined, loaded ? { loaded } : {});
  }

  /**
   * Puts `inspector` in the place of session `id`'s, which is disposed once the calls that began
   * with it are done (an open of the same file elsewhere keeps it). Returns the session as it is now.
   * Nothing awaits between the swap and the bookkeeping.
   */
  replace(id: string, inspector: SessionInspector): OpenSession {
    const held = this.sessions.get(id);
    if (!held) {
      void inspector.session.dispose();
      throw new ApiFailure('NO_SESSION', `No open session "${id}" (it was closed while it was read again).`);
    }
    const old = held.session;
    const { cost } = held.load;
    if (held.load.holders === 1) {
      // The old session is this open's alone: it goes when its calls are done, and the budget passes on.
      held.retired.push({ revision: old.revision, inspector: old.inspector });
    } else {
      // Another open of the file holds the old session: it stays theirs, and this open takes a budget of its own.
      held.load.holders--;
      this.reserved += cost;
    }
    held.load = { cost, holders: 1, listeners: new Set(), done: Promise.resolve(inspector) };
    held.session = { ...old, inspector, revision: old.revision + 1 };
    this.disposeRetired(held);
    return held.session;
  }

  /** Marks a call on session `id` under way until the function returned is called (an unknown id holds nothing). */
  hold(id: string): () => void {
    const held = this.sessions.get(id);
    if (!held) return () => undefined;
    const { revision } = held.session;
    held.calls.set(revision, (held.calls.get(revision) ?? 0) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const n = (held.calls.get(revision) ?? 1) - 1;
      if (n > 0) held.calls.set(revision, n);
      else held.calls.delete(revision);
      this.disposeRetired(held);
    };
  }

  /** Disposes the replaced sessions no call under way began with. */
  private disposeRetired(held: Held): void {
    if (held.retired.length === 0) return;
    const oldest = Math.min(Infinity, ...held.calls.keys());
    const free = held.retired.filter((r) => r.revision < oldest);
    held.retired = held.retired.filter((r) => r.revision >= oldest);
    for (const r of free) void Promise.resolve(r.inspector.session.dispose()).catch(() => undefined);
  }

  private held(id: string): Held {
    const s = this.sessions.get(id);
    if (!s) throw new ApiFailure('NO_SESSION', `No open session "${id}" (it was closed, or the host restarted).`);
    return s;
  }

  close(id: string): boolean {
    const s = this.sessions.get(id);
    if (!s) return false;
    this.sessions.delete(id);
    this.slots--;
    s.calls.clear();
    this.disposeRetired(s);
    // Files kept open for re-reading are released once no other open of the file holds them; nothing waits on it.
    this.release(s.load);
    return true;
  }

  dispose(): void {
    this.disposed = true;
    for (const id of [...this.sessions.keys()]) this.close(id);
  }

  [Symbol.dispose](): void {
    this.dispose();
  }
}
