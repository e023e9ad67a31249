import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import type { OpenSessionProgress, PartialLoad, ProgressEvent } from '../../shared/api/contract';
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
import { FIRST_VIEW, type FirstViewOptions } from './first-view';

// Defined below the API, where the library (which throws one and is a policy) can use them too.
export { ApiFailure };
export type { PathPolicy };

export interface OpenSession {
  readonly id: string;
  /** The path as the caller gave it. */
  readonly path: string;
  readonly inspector: SessionInspector;
  /**
   * 0 as opened; one more each time a session read anew takes its place (`replace`, for Follow), or
   * the whole session takes its first view's.
   */
  readonly revision: number;
  /**
   * Present while the session is a first view of a large file (./first-view.ts): the file's first
   * lines only, the whole being read behind it. `progress` says how far that has got.
   */
  readonly partial?: { readonly read: number; readonly total: number; progress(): Omit<PartialLoad, 'read' | 'total'> };
  /** The revision at which the whole session took its first view's place; absent when it opened whole. */
  readonly wholeAt?: number;
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
  /** Which files open with a first view, and how much of them it reads (./first-view.ts); null: none. Default FIRST_VIEW. */
  readonly firstView?: FirstViewOptions | null;
}

/** What a load shows first: the session, or a first view of it with the load of the whole behind it. */
interface FirstView {
  readonly inspector: SessionInspector;
  readonly partial: OpenSession['partial'] | null;
  /** The whole session, once read; null: there is no rest, or it was cancelled or failed. */
  readonly rest: Promise<SessionInspector | null>;
}

/** A load of one file, shared by the opens of that file made while it runs, and what it cost. */
interface SharedLoad {
  readonly done: Promise<FirstView>;
  readonly cost: number;
  /** The opens that will hold the loaded session; the load's memory is released when the last closes. */
  holders: number;
  readonly listeners: Set<(e: ProgressEvent) => void>;
  /** Stops the read of the whole session behind a first view, once no open holds it. */
  readonly abort: AbortController;
  /** The whole session, once it has taken the first view's place in the opens that hold the load. */
  whole: SessionInspector | null;
  /** Settles once the read of the whole behind a first view has ended, and the whole, if read, is in its place (at once without one). */
  readonly settled: Promise<void>;
}

interface Held {
  session: OpenSession;
  load: SharedLoad;
  /** What it was opened with, to load it again the same way (`reload`). */
  readonly opened: { readonly format?: FormatId; readonly session?: string; readonly captures: readonly string[] };
  /** Calls under way (`hold`), by the revision they began at. */
  readonly calls: Map<number, number>;
  /** Sessions replaced, disposed (`dispose`) once no call begun at their revision or before is under way. */
  retired: { readonly revision: number; readonly dispose: () => void }[];
}

/** Disposes a session, nothing waiting on it: a failure to close a file leaves only memory in use. */
function disposeQuietly(inspector: SessionInspector): void {
  void Promise.resolve(inspector.session.dispose()).catch(() => undefined);
}

/** The load of a session read anew for one open (Follow's `replace`): its own, with nothing behind it. */
function loadOf(inspector: SessionInspector, cost: number): SharedLoad {
  return {
    cost,
    holders: 1,
    listeners: new Set(),
    done: Promise.resolve({ inspector, partial: null, rest: Promise.resolve(null) }),
    abort: new AbortController(),
    whole: null,
    settled: Promise.resolve(),
  };
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
  private readonly firstView: FirstViewOptions | null;

  constructor(private readonly options: SessionRegistryOptions) {
    this.maxSessions = options.maxSessions ?? 16;
    this.firstView = options.firstView === undefined ? FIRST_VIEW : options.firstView;
    this.memoryBudget = options.memoryBudget ?? defaultMemoryBudget();
    this.discovery = options.captureDiscovery === undefined ? { dataDir: dataDir() } : options.captureDiscovery;
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Whether `path` is one this registry may open (its path policy): asked before anything is read of it. */
  async isAllowed(path: string): Promise<boolean> {
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
    // A first view is open while the whole session is still read: its open stays listed until that ends.
    let settled = false;
    let opened: OpenSession | null = null;
    try {
      opened = await this.load(path, format, captures, session, (e) => {
        if (e.operation === 'openSession') {
          settled = e.phase === 'done' || e.phase === 'failed' || e.phase === 'cancelled';
          if (settled) this.inProgress.delete(id);
          else this.inProgress.set(id, e);
        }
        onProgress?.(e);
      });
      return opened;
    } finally {
      if (!opened?.partial || settled) this.inProgress.delete(id);
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
      const shared = load;
      const first = await shared.done;
      // This open hears the load until its whole session is in (at once, without a first view).
      void shared.settled.finally(() => shared.listeners.delete(onProgress));
      if (this.disposed) throw new ApiFailure('INTERNAL', 'The session registry was closed while loading.');
      const id = randomUUID();
      const s: OpenSession =
        shared.whole || !first.partial
          ? { id, path, inspector: shared.whole ?? first.inspector, revision: 0 }
          : { id, path, inspector: first.inspector, revision: 0, partial: first.partial };
      this.sessions.set(s.id, { session: s, load, opened: { format, session, captures }, calls: new Map(), retired: [] });
      return s;
    } catch (err: unknown) {
      this.slots--;
      if (load) {
        load.listeners.delete(onProgress);
        this.release(load);
      }
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
    const abort = new AbortController();
    const done = this.read(
      path,
      format,
      session,
      captures,
      info,
      (e) => {
        for (const l of listeners) l(e);
      },
      abort.signal,
    ).finally(() => this.loads.delete(key));
    // Each holder awaits `done`; this keeps a failure with no holder left from being unhandled.
    done.catch(() => undefined);
    // The whole session takes the first view's place as soon as it is read, before anyone hears it settled.
    const settled = done.then(
      async (first) => {
        const whole = await first.rest;
        if (whole) this.wholeIn(load, first.inspector, whole);
      },
      () => undefined,
    );
    const load: SharedLoad = { cost, holders: 1, listeners, done, abort, whole: null, settled };
    this.loads.set(key, load);
    return load;
  }

  /**
   * The whole session of a first view is in: it takes the first view's place, as the next revision,
   * in every open that holds the load (they share it, as they shared the first view). The first view
   * is disposed once no call begun on it is under way in any of them.
   */
  private wholeIn(load: SharedLoad, first: SessionInspector, whole: SessionInspector): void {
    const holding = [...this.sessions.values()].filter((h) => h.load === load);
    // Every open let go meanwhile (release disposed the first view): nobody will ask about it.
    if (load.holders === 0 || holding.length === 0) {
      disposeQuietly(whole);
      return;
    }
    load.whole = whole;
    let left = holding.length;
    const retire = (): void => {
      if (--left === 0) disposeQuietly(first);
    };
    for (const held of holding) this.put(held, whole, load, retire, true);
  }

  /** One holder of a load lets go; the last one frees the session and its share of the budget. */
  private release(load: SharedLoad): void {
    load.holders--;
    if (load.holders > 0) return;
    this.reserved -= load.cost;
    // The read of the whole session behind a first view stops, and disposes what it made.
    load.abort.abort(new Error('the session was closed'));
    load.done
      .then(
        (first) => (load.whole ?? first.inspector).session.dispose(),
        () => undefined,
      )
      .catch(() => undefined);
  }

  /**
   * Loads the session and answers with what is shown first: the whole session, replayed and
   * checked; or, for a file of at least firstView.minBytes, a first view of its first lines
   * (replayed, not checked) with the load of the whole behind it (`rest`), stopped by `signal`.
   */
  private async read(
    path: string,
    format: FormatId | undefined,
    session: string | undefined,
    captures: readonly string[],
    info: { isFile(): boolean; size: number },
    onProgress: (e: ProgressEvent) => void,
    signal: AbortSignal,
  ): Promise<FirstView> {
    // A folder's size says nothing about its files: then only the bytes read are known.
    const total = info.isFile() ? info.size : null;
    const progress = (phase: ProgressEvent['phase'], done: number | null, of: number | null = total) =>
      onProgress({ operation: 'openSession', path, phase, done: done === null || of === null ? done : Math.min(done, of), total: of });
    const prefixBytes = this.firstView && info.isFile() && info.size >= this.firstView.minBytes ? this.firstView.prefixBytes : undefined;
    const inspector = await this.readInspector(path, captures, { format, session, prefixBytes }, progress);
    const prefix = inspector.session.prefix;
    if (!prefix) {
      progress('done', total);
      return { inspector, partial: null, rest: Promise.resolve(null) };
    }
    // The whole session is read behind the first view; its progress is the open's from here on.
    let heard: Omit<PartialLoad, 'read' | 'total'> = { phase: 'reading', done: 0, of: total, error: null };
    const behind = (phase: ProgressEvent['phase'], done: number | null, of: number | null = total): void => {
      if (phase === 'reading' || phase === 'replaying' || phase === 'checking') heard = { phase, done, of, error: null };
      progress(phase, done, of);
    };
    const hold = this.firstView?.holdWhole?.() ?? Promise.resolve();
    const rest = hold
      .then(() => this.readInspector(path, captures, { format, session, signal }, behind))
      .then(
        (whole) => {
          progress('done', total);
          return whole;
        },
        (err: unknown) => {
          if (signal.aborted) {
            progress('cancelled', null);
            return null;
          }
          heard = { ...heard, phase: 'failed', error: err instanceof Error ? err.message : String(err) };
          return null;
        },
      );
    return { inspector, partial: { read: prefix.read, total: prefix.total, progress: () => heard }, rest };
  }

  /**
   * Loads and replays the session; a whole session is also joined to its captures and checked (a
   * first view, `options.prefixBytes` set and the file longer, is not: its findings would be those of
   * lines that end early). Progress goes to `progress`; a failure is reported there ('failed') and
   * thrown as an ApiFailure, and whatever was made of the session is disposed.
   */
  private async readInspector(
    path: string,
    captures: readonly string[],
    options: {
      readonly format?: FormatId;
      readonly session?: string;
      readonly prefixBytes?: number;
      readonly signal?: AbortSignal;
      readonly resumable?: boolean;
      /** The session already read (Follow's read-on): replayed and checked here, not loaded. */
      readonly loaded?: LoadedSession;
    },
    progress: (phase: ProgressEvent['phase'], done: number | null, of?: number | null) => void,
  ): Promise<SessionInspector> {
    const { signal } = options;
    progress('reading', 0);
    let inspector: SessionInspector | null = null;
    try {
      const { loaded: already, ...how } = options;
      const loaded = already ?? (await loadSession(path, { ...how, onBytes: (read) => progress('reading', read) }));
      inspector = new SessionInspector(loaded);
      // Replay and the diagnostics are seconds of work on a session of a million events: done in
      // steps, with the host answering other questions (and this open's progress) between them.
      progress('replaying', 0, loaded.events.length);
      await stepThrough(inspector.replaySteps(), (p) => {
        signal?.throwIfAborted();
        progress('replaying', p.done, p.total);
      });
      if (loaded.prefix) return inspector;
      // The diagnostics read the join (the wire rules): it is laid beside the log first.
      await joinSessionCaptures(inspector, path, captures, this.discovery);
      signal?.throwIfAborted();
      // The diagnostics catalog reads whole summaries: re-read them once, so every count agrees.
      await inspector.loadRuleTexts();
      // The summary counts the findings: worked out here, inside the progress, not after it.
      progress('checking', 0, RULES.length);
      await stepThrough(inspector.diagnosticsSteps(), (p) => {
        signal?.throwIfAborted();
        progress('checking', p.done, p.total);
      });
      return inspector;
    } catch (err: unknown) {
      if (!signal?.aborted) progress('failed', null);
      // A capture that cannot be read fails the open after the session was loaded: let go of its files.
      if (inspector) void Promise.resolve(inspector.session.dispose()).catch(() => undefined);
      if (err instanceof UnreadableSessionError) throw new ApiFailure('UNREADABLE', err.message);
      throw err;
    }
  }

  /**
   * Resolves once the read of open session `id`'s whole has ended (the whole in its first view's
   * place, or the read failed or was cancelled), or after `ms`; at once when the session is not a
   * first view or not open.
   */
  async untilWhole(id: string, ms: number): Promise<void> {
    const held = this.sessions.get(id);
    if (!held?.session.partial) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const later = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
    await Promise.race([held.load.settled, later]);
    clearTimeout(timer);
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
    // A file gone or unreadable fails here, with why, before anything is read.
    await stat(path).catch((err: unknown) => {
      if (loaded) void loaded.dispose();
      throw new ApiFailure('UNREADABLE', `${whyUnreadable(path, err)}.`);
    });
    const { format, session, captures } = held.opened;
    // Loaded again for Follow: so that the next change can be read on (LoadOptions.resumable).
    return this.readInspector(path, captures, { format, session, resumable: true, ...(loaded ? { loaded } : {}) }, () => undefined);
  }

  /**
   * Puts `inspector` in the place of session `id`'s, which is disposed once the calls that began
   * with it are done (an open of the same file elsewhere keeps it). Returns the session as it is now.
   * Nothing awaits between the swap and the bookkeeping.
   */
  replace(id: string, inspector: SessionInspector): OpenSession {
    const held = this.sessions.get(id);
    if (!held) {
      disposeQuietly(inspector);
      throw new ApiFailure('NO_SESSION', `No open session "${id}" (it was closed while it was read again).`);
    }
    // A first view is not followed (./session/follow.ts waits for the whole): its place is the whole's.
    if (held.session.partial) {
      disposeQuietly(inspector);
      throw new ApiFailure('INTERNAL', `Session "${id}" is still being read whole; it cannot be read again yet.`);
    }
    const old = held.session.inspector;
    const { cost } = held.load;
    let retire = (): void => undefined;
    if (held.load.holders === 1) {
      // The old session is this open's alone: it goes when its calls are done, and the budget passes on.
      retire = () => disposeQuietly(old);
    } else {
      // Another open of the file holds the old session: it stays theirs, and this open takes a budget of its own.
      held.load.holders--;
      this.reserved += cost;
    }
    return this.put(held, inspector, loadOf(inspector, cost), retire, false);
  }

  /**
   * The one way a session takes another's place under its id (Follow's `replace`, the whole taking
   * its first view's): the next revision, read from `load`; the session replaced is retired, and
   * `retire` called once no call begun with it is under way. Nothing awaits here.
   */
  private put(held: Held, inspector: SessionInspector, load: SharedLoad, retire: () => void, whole: boolean): OpenSession {
    const { partial: _partial, ...old } = held.session;
    const revision = old.revision + 1;
    held.retired.push({ revision: old.revision, dispose: retire });
    held.load = load;
    held.session = { ...old, inspector, revision, ...(whole ? { wholeAt: revision } : {}) };
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
    for (const r of free) r.dispose();
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
