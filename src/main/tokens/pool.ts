import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import type { EncodingName } from '../../shared/tokens/encoding';
import { countBatch } from './counting';
import type { CountStats, EncoderOptions } from './encoder';
import { WORKER_MARK, type CountRequest, type WorkerReply } from './protocol';
import { startWorker, workerSpec, type WorkerSpec } from '../workers/spec';

export type { WorkerSpec };

/** Counts batches of texts. Implemented by a worker pool (off the UI thread) and inline (tests, no worker file). */
export interface TokenCounter {
  readonly kind: 'workers' | 'inline';
  /** Threads counting in parallel. */
  readonly threads: number;
  count(encoding: EncodingName, texts: readonly string[], signal?: AbortSignal): Promise<BatchResult>;
  /**
   * Start every counting thread and build its encoder now, while the caller does other work (a
   * session loading), instead of on the first count. A failure here shows again, and is reported,
   * on the first count.
   */
  warm(encoding: EncodingName): void;
  /** Stop: queued and running batches are rejected, workers terminated. Idempotent. */
  dispose(): Promise<void>;
}

export interface BatchResult {
  readonly tokens: Int32Array;
  readonly estimated: Int32Array;
  readonly stats: CountStats;
  /** Time the counting thread spent on the batch. */
  readonly ms: number;
}

export class PoolClosedError extends Error {
  constructor() {
    super('the token worker pool is closed');
  }
}

/** The queue is bounded: a caller that outruns the workers is told so instead of growing memory. */
export class PoolFullError extends Error {}

function abortReason(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  return r instanceof Error ? r : new Error('counting was cancelled');
}

/**
 * Where the worker script is: next to the bundle (dist/token-worker.js, built by
 * scripts/build-cli.mjs) or, running from source under tsx or vitest, worker.ts loaded through
 * tsx. null: no worker script can be found (count inline instead).
 */
export function defaultWorkerSpec(moduleUrl: string = import.meta.url): WorkerSpec | null {
  return workerSpec(moduleUrl, './worker.ts', 'token-worker.js');
}

function startTokenWorker(spec: WorkerSpec): Worker {
  return startWorker(spec, { [WORKER_MARK]: true });
}

export interface WorkerPoolOptions {
  /** Worker threads (default: the machine's parallelism, at most 4). */
  readonly size?: number;
  /** Batches that may wait for a worker; more are refused with PoolFullError (default 64). */
  readonly maxQueued?: number;
  readonly encoder?: EncoderOptions;
  readonly worker?: WorkerSpec;
}

interface Job {
  readonly req: CountRequest;
  readonly resolve: (r: BatchResult) => void;
  readonly reject: (e: Error) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
  settled: boolean;
}

interface Slot {
  readonly worker: Worker;
  job: Job | null;
}

// Ours, not piscina's or tinypool's: both cancel a running batch by ending its worker (a new one costs seconds to load its encoder).
/**
 * A bounded pool of token workers. Owned by whoever creates it and closed by them; nothing starts
 * at import or construction: workers are spawned on the first batch, up to `size`. Each batch is
 * cancellable with an AbortSignal (a queued batch is dropped; a running one is abandoned and its
 * result ignored). Idle workers do not keep the process alive.
 */
export class WorkerPool implements TokenCounter {
  readonly kind = 'workers' as const;
  readonly threads: number;
  private readonly maxQueued: number;
  private readonly encoder: EncoderOptions;
  private readonly spec: WorkerSpec;
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(options: WorkerPoolOptions = {}) {
    const spec = options.worker ?? defaultWorkerSpec();
    if (!spec) throw new Error('no token worker script next to this module (build it with scripts/build-cli.mjs), and no worker given');
    this.spec = spec;
    this.threads = Math.max(1, Math.floor(options.size ?? Math.min(4, availableParallelism())));
    this.maxQueued = Math.max(1, options.maxQueued ?? 64);
    this.encoder = options.encoder ?? {};
  }

  /** Workers started so far. */
  get started(): number {
    return this.slots.length;
  }

  get queued(): number {
    return this.queue.length;
  }

  count(encoding: EncodingName, texts: readonly string[], signal?: AbortSignal): Promise<BatchResult> {
    if (this.closed) return Promise.reject(new PoolClosedError());
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (this.queue.length >= this.maxQueued) {
      return Promise.reject(new PoolFullError(`${this.queue.length} batches are already waiting for a token worker`));
    }
    return new Promise<BatchResult>((resolve, reject) => {
      const job: Job = {
        req: { type: 'count', id: this.nextId++, encoding, texts, options: this.encoder },
        resolve,
        reject,
        signal,
        settled: false,
        onAbort: () => this.abort(job),
      };
      signal?.addEventListener('abort', job.onAbort, { once: true });
      this.queue.push(job);
      this.dispatch();
    });
  }

  warm(encoding: EncodingName): void {
    // One empty batch per thread not yet started: each spawns a worker that builds the encoder.
    for (let i = this.slots.length + this.queue.length; i < this.threads; i++) {
      this.count(encoding, []).catch(leftToFirstCount);
    }
  }

  private settle(job: Job, result: BatchResult | Error): void {
    if (job.settled) return;
    job.settled = true;
    job.signal?.removeEventListener('abort', job.onAbort);
    if (result instanceof Error) job.reject(result);
    else job.resolve(result);
  }

  private abort(job: Job): void {
    const i = this.queue.indexOf(job);
    if (i >= 0) this.queue.splice(i, 1);
    // A running batch cannot be interrupted mid-text; it finishes and its result is dropped.
    this.settle(job, abortReason(job.signal as AbortSignal));
  }

  private spawn(): Slot {
    const worker = startTokenWorker(this.spec);
    const slot: Slot = { worker, job: null };
    worker.on('message', (reply: WorkerReply) => this.onReply(slot, reply));
    worker.on('error', (err) => this.onExit(slot, err));
    worker.on('exit', (code) => this.onExit(slot, new Error(`a token worker exited (code ${code})`)));
    this.slots.push(slot);
    return slot;
  }

  private onReply(slot: Slot, reply: WorkerReply): void {
    const job = slot.job;
    slot.job = null;
    slot.worker.unref();
    if (job && job.req.id === reply.id) {
      if (reply.type === 'counted')
        this.settle(job, { tokens: reply.tokens, estimated: reply.estimated, stats: reply.stats, ms: reply.ms });
      else this.settle(job, new Error(`token worker: ${reply.message}`));
    }
    this.dispatch();
  }

  private onExit(slot: Slot, err: Error): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    this.slots.splice(i, 1);
    if (slot.job) this.settle(slot.job, this.closed ? new PoolClosedError() : err);
    slot.job = null;
    if (!this.closed) this.dispatch();
  }

  private dispatch(): void {
    while (!this.closed && this.queue.length > 0) {
      let slot = this.slots.find((s) => s.job === null);
      if (!slot) {
        if (this.slots.length >= this.threads) return;
        slot = this.spawn();
      }
      const job = this.queue.shift() as Job;
      if (job.settled) continue;
      slot.job = job;
      slot.worker.ref();
      slot.worker.postMessage(job.req);
    }
  }

  async dispose(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const job of this.queue.splice(0)) this.settle(job, new PoolClosedError());
    const slots = this.slots.splice(0);
    for (const s of slots) if (s.job) this.settle(s.job, new PoolClosedError());
    await terminateAll(slots.map((s) => s.worker));
  }
}

/** How long close() holds the process open for its workers to exit (measured: 57–195 ms on 2 busy cores). */
const TERMINATE_WAIT_MS = 2000;

/**
 * Terminates the workers, holding the process open meanwhile. An idle worker is unref'd, and under
 * load Node can end the process while terminate() is still pending — before the caller of close()
 * set its exit code, so a command that found errors exited 0. A ref'd timer keeps the event loop
 * alive until every worker has exited, or for TERMINATE_WAIT_MS at most.
 */
async function terminateAll(workers: readonly Worker[]): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, TERMINATE_WAIT_MS);
  });
  try {
    await Promise.race([Promise.all(workers.map((w) => w.terminate())), bound]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A warm-up batch that fails (no worker script, a worker that dies) is not reported: the caller's
 * first real count spawns a worker again, meets the same failure and reports it.
 */
function leftToFirstCount(): void {}

/** Counting on the calling thread, batch by batch: for tests and for hosts without the worker script. */
export class InlineCounter implements TokenCounter {
  readonly kind = 'inline' as const;
  readonly threads = 1;
  private closed = false;
  private nextId = 1;

  constructor(private readonly encoder: EncoderOptions = {}) {}

  warm(): void {
    // Counting runs on the caller's thread: nothing to start ahead.
  }

  async count(encoding: EncodingName, texts: readonly string[], signal?: AbortSignal): Promise<BatchResult> {
    if (this.closed) throw new PoolClosedError();
    if (signal?.aborted) throw abortReason(signal);
    const reply = await countBatch({ type: 'count', id: this.nextId++, encoding, texts, options: this.encoder });
    if (signal?.aborted) throw abortReason(signal);
    if (reply.type === 'failed') throw new Error(`token counting: ${reply.message}`);
    return { tokens: reply.tokens, estimated: reply.estimated, stats: reply.stats, ms: reply.ms };
  }

  async dispose(): Promise<void> {
    this.closed = true;
  }
}

/** A worker pool when the worker script is available, otherwise inline counting. The caller owns it and closes it. */
export function createTokenCounter(options: WorkerPoolOptions & { readonly inline?: boolean } = {}): TokenCounter {
  if (options.inline) return new InlineCounter(options.encoder);
  const spec = options.worker ?? defaultWorkerSpec();
  return spec ? new WorkerPool({ ...options, worker: spec }) : new InlineCounter(options.encoder);
}
