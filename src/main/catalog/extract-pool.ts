import type { Worker } from 'node:worker_threads';
import { idleCores } from '../discovery/parallel';
import { startWorker, workerSpec, type WorkerSpec } from '../workers/spec';
import type { SessionFacts } from './extract';
import { EXTRACT_WORKER_MARK, type ExtractJob, type ExtractReply } from './extract-protocol';

/*
 * Reading sessions for the index on worker threads (docs/performance.md, "The session index and
 * search"). Reading a session — the importers, replay, diagnostics, its item texts — is CPU-bound
 * and independent of every other session, while the index has one writer: so workers read, each
 * one session at a time, and the thread that owns the database writes what they send, in the
 * order the sessions were asked for (the rows, their ids included, are those a read on one thread
 * gives: tested). Ours, not a pool library's: none is a dependency, and this one is a queue.
 */

/** Below this many bytes to read, the workers' start-up (a new isolate loading the importers) costs more than it saves. */
export const EXTRACT_PARALLEL_MIN_BYTES = 16 * 1024 * 1024;

/** Jobs sent to a worker before it answers: it starts the next while this thread writes the last. */
const PER_WORKER = 2;

/** A worker that stopped is started again at most this many times in all; then the rest is read on this thread. */
const MAX_RESTARTS = 4;

/**
 * Extraction workers by default: PALIMPSEST_INDEX_THREADS when set (0: none), else one per idle
 * core when at least two are idle (idleCores: the parallelism, at most 4, less the load), else
 * none. On a machine whose cores other work keeps busy, a worker only adds its start-up and its
 * own warm-up: on the bench's 0.1 GB library at a load of 15–22 on 2 cores, two workers took
 * 8.1–8.5 s of CPU against 5.9–6.7 s on one thread, and no less wall time (docs/performance.md).
 */
export function defaultExtractThreads(): number {
  const env = Number(process.env.PALIMPSEST_INDEX_THREADS);
  if (process.env.PALIMPSEST_INDEX_THREADS !== undefined && Number.isInteger(env) && env >= 0) return env;
  const idle = idleCores();
  return idle >= 2 ? idle : 0;
}

/** Reads a session's facts; rejects with what stopped it, in a sentence. */
export type ReadFacts = (path: string, session?: string) => Promise<SessionFacts>;

export interface SessionReader {
  readonly read: ReadFacts;
  /** Sessions worth asking for before the first is taken: enough to keep every worker busy. */
  readonly ahead: number;
  /** Worker threads reading (0: this thread). */
  readonly threads: number;
  close(): Promise<void>;
}

interface Pending {
  readonly job: ExtractJob;
  readonly resolve: (f: SessionFacts) => void;
  readonly reject: (e: Error) => void;
}

interface Slot {
  readonly worker: Worker;
  /** Sent to this worker, oldest (the one being read) first. */
  readonly sent: Pending[];
}

class ExtractPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private restarts = 0;
  private closed = false;

  constructor(
    private readonly spec: WorkerSpec,
    readonly size: number,
    /** Reads on this thread what the workers could not, after too many restarts. */
    private readonly here: ReadFacts,
  ) {}

  read(path: string, session?: string): Promise<SessionFacts> {
    return new Promise((resolve, reject) => {
      this.queue.push({ job: { id: this.nextId++, path, ...(session === undefined ? {} : { session }) }, resolve, reject });
      this.dispatch();
    });
  }

  private spawn(): Slot {
    const slot: Slot = { worker: startWorker(this.spec, { [EXTRACT_WORKER_MARK]: true }), sent: [] };
    slot.worker.on('message', (r: ExtractReply) => this.onReply(slot, r));
    slot.worker.on('error', (err) => this.onStop(slot, `failed: ${err.message}`));
    slot.worker.on('exit', (code) => this.onStop(slot, `exited (code ${code})`));
    this.slots.push(slot);
    return slot;
  }

  private onReply(slot: Slot, r: ExtractReply): void {
    const i = slot.sent.findIndex((p) => p.job.id === r.id);
    const p = i >= 0 ? slot.sent.splice(i, 1)[0] : undefined;
    if (p) {
      if (r.ok) p.resolve(r.facts);
      else p.reject(new Error(r.error));
    }
    this.dispatch();
  }

  /**
   * A worker stopped: the session it was reading is reported with why (it may be what stopped it),
   * the ones sent after it go back to the queue, and another worker is started while restarts last.
   */
  private onStop(slot: Slot, why: string): void {
    const k = this.slots.indexOf(slot);
    if (k < 0) return;
    this.slots.splice(k, 1);
    const [reading, ...waiting] = slot.sent;
    if (this.closed) {
      for (const p of slot.sent) p.reject(new Error('the index stopped reading'));
      return;
    }
    reading?.reject(new Error(`the thread reading it ${why}`));
    this.queue.unshift(...waiting);
    this.restarts++;
    this.dispatch();
  }

  private dispatch(): void {
    if (this.closed) return;
    if (this.restarts > MAX_RESTARTS && this.slots.length === 0) {
      // Workers keep stopping (a bundle that fails to load): the rest is read on this thread.
      for (const p of this.queue.splice(0)) this.here(p.job.path, p.job.session).then(p.resolve, p.reject);
      return;
    }
    const canStart = (): boolean => this.slots.length < this.size && this.restarts <= MAX_RESTARTS;
    while (this.queue.length > 0) {
      // An idle worker, else a new one while there may be more, else the least busy with room.
      let slot = this.slots.find((s) => s.sent.length === 0) ?? (canStart() ? this.spawn() : null);
      for (const s of this.slots) if (!slot || s.sent.length < slot.sent.length) slot = s;
      if (!slot || slot.sent.length >= PER_WORKER) return;
      const p = this.queue.shift() as Pending;
      slot.sent.push(p);
      slot.worker.postMessage(p.job);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const slots = this.slots.splice(0);
    // What the workers were reading is answered here: once out of `slots`, their exit answers nothing.
    for (const p of [...this.queue.splice(0), ...slots.flatMap((s) => s.sent.splice(0))]) p.reject(new Error('the index stopped reading'));
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }
}

export interface ReaderOptions {
  /** Worker threads (0: read on this thread); default defaultExtractThreads(). */
  readonly threads?: number;
  /** Fewer bytes to read than this: read on this thread; default EXTRACT_PARALLEL_MIN_BYTES. */
  readonly minBytes?: number;
  /**
   * Reads a session on this thread (extractSession, passed in so that this module, which the listing
   * imports, carries no importer): below `minBytes` or with no thread, and after too many restarts.
   */
  readonly extract: ReadFacts;
  /** The worker script; default extract-worker (tests give one that stops). */
  readonly worker?: WorkerSpec;
  /** Closes the reader when it aborts: the workers stop, and what was asked of them rejects. */
  readonly signal?: AbortSignal;
}

/**
 * How the sessions of one index update are read: by workers when there are `bytes` enough and a
 * worker script can be found (the bundle's extract-worker.js, or the source under tsx/vitest), else
 * on this thread one at a time.
 */
export function sessionReader(bytes: number, options: ReaderOptions): SessionReader {
  const threads = options.threads ?? defaultExtractThreads();
  const spec =
    threads < 1 || bytes < (options.minBytes ?? EXTRACT_PARALLEL_MIN_BYTES)
      ? null
      : (options.worker ?? workerSpec(import.meta.url, './extract-worker.ts', 'extract-worker.js'));
  if (!spec) return { read: options.extract, ahead: 1, threads: 0, close: async () => undefined };
  const pool = new ExtractPool(spec, threads, options.extract);
  const stop = (): void => void pool.close();
  options.signal?.addEventListener('abort', stop, { once: true });
  const close = (): Promise<void> => {
    options.signal?.removeEventListener('abort', stop);
    return pool.close();
  };
  // Beyond what the workers hold, a few more: a large session read on one worker does not leave the others idle.
  return { read: (p, s) => pool.read(p, s), ahead: threads * (PER_WORKER + 2), threads, close };
}

/**
 * Reads `units` with at most `ahead` asked for and not yet taken, and hands each outcome to `take`
 * in the order of `units`: memory holds a few sessions' facts, never the library's.
 *
 * When `signal` aborts, nothing more is asked for or taken (an outcome that comes after the abort
 * may be the abort's own doing: a worker stopped), and it rejects with the signal's reason once
 * the reads under way have settled, so that none goes on after it returns.
 */
export async function readInOrder<U>(
  units: readonly U[],
  ahead: number,
  read: (u: U) => Promise<SessionFacts>,
  take: (u: U, facts: SessionFacts | null, error: string | null) => void,
  signal?: AbortSignal,
): Promise<void> {
  type Outcome = { facts: SessionFacts | null; error: string | null };
  const start = (u: U): Promise<Outcome> =>
    read(u).then(
      (facts) => ({ facts, error: null }),
      (e: unknown) => ({ facts: null, error: e instanceof Error ? e.message : String(e) }),
    );
  const pending: Promise<Outcome>[] = [];
  let next = 0;
  try {
    for (const u of units) {
      signal?.throwIfAborted();
      while (next < units.length && pending.length < Math.max(1, ahead)) pending.push(start(units[next++] as U));
      const o = await (pending.shift() as Promise<Outcome>);
      signal?.throwIfAborted();
      take(u, o.facts, o.error);
    }
  } finally {
    // Outcomes never reject (start catches): this only waits.
    await Promise.all(pending);
  }
}
