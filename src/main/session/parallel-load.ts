import type { FileHandle } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { RangeReader } from '../reader';
import { closeQuietly, IoFailure, openForReading, readInto } from '../reader/io';
import type { DiagnosticSink, OnJsonLine, ReaderOptions, ReadStats } from '../reader/types';
import { startWorker, workerSpec } from '../workers/spec';
import { loadRange, transferables, type RangeResult, type RangeTask } from './range-load';
import { RANGE_WORKER_MARK, type RangeWorkerMessage } from './range-protocol';

/*
 * Parallel load (docs/performance.md, "Parallel load"). A large Palimpsest file is cut into byte
 * ranges at line starts. This thread reads the first range as a sequential load does (sniffing,
 * choosing the importer, the first-line check); worker threads read the others into compact log
 * parts (range-load.ts) at the same time. Then, in order, each part is taken into the log as if
 * this thread had read those lines — or, when its worker refused it (anything to report, a seq
 * out of step) or this thread's import cannot go on from it, those lines are read here. The log,
 * its locations and its diagnostics are the sequential load's either way (tested).
 */

/** Below this size a file is read on one thread: a worker's start-up would cost more than it saves. */
export const PARALLEL_LOAD_MIN_BYTES = 48 * 1024 * 1024;

/** Threads for a parallel load by default: the machine's parallelism, at most 4. */
export function defaultLoadThreads(): number {
  return Math.max(1, Math.min(availableParallelism(), 4));
}

export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

const SCAN_BYTES = 64 * 1024;
const LF = 0x0a;

/** The position after the `count`-th LF at or after `from`, or null when the file ends first. */
export async function afterLines(fh: FileHandle, path: string, from: number, count: number): Promise<number | null> {
  const buf = Buffer.allocUnsafe(SCAN_BYTES);
  let pos = from;
  let left = count;
  for (;;) {
    const n = await readInto(fh, path, buf, SCAN_BYTES, pos);
    if (n instanceof IoFailure || n === 0) return null;
    let i = 0;
    while (i < n) {
      const nl = buf.indexOf(LF, i);
      if (nl === -1 || nl >= n) break;
      if (--left === 0) return pos + nl + 1;
      i = nl + 1;
    }
    pos += n;
  }
}

/**
 * What a worker loses to starting (a new isolate and its bundle: the bench's "worker start") and
 * to running its code before it is optimised, in bytes this thread reads meanwhile. On the 2-core
 * 2-core development machine, given an even share of the 1 M-event bench session, the worker ended
 * well after this thread; given this head start, about with it (docs/performance.md, "Parallel load").
 */
export const WORKER_HEAD_START_BYTES = 12 * 1024 * 1024;

/**
 * The share of the file this thread reads itself, so that it and the workers end together: each
 * worker's range is WORKER_HEAD_START_BYTES shorter than this thread's.
 */
export function firstShare(threads: number, size: number): number {
  if (threads < 2 || size <= 0) return 1;
  return Math.min(1, (size + (threads - 1) * WORKER_HEAD_START_BYTES) / (threads * size));
}

/**
 * Cuts [0, size) into at most `threads` ranges that start at line starts, the first holding at
 * least `firstLines` whole lines (what sniffing reads). The first range is `first` of the
 * file, the others share the rest: this thread also takes the parts in. null when the file has
 * too few lines for more than one range.
 */
export async function planRanges(
  path: string,
  size: number,
  threads: number,
  firstLines: number,
  first = firstShare(threads, size),
): Promise<ByteRange[] | null> {
  const fh = await openForReading(path);
  if (fh instanceof IoFailure) return null;
  try {
    const sniffed = await afterLines(fh, path, 0, firstLines);
    if (sniffed === null || threads < 2) return null;
    const ranges: ByteRange[] = [];
    let start = 0;
    for (let k = 1; k < threads && start < size; k++) {
      const nominal = Math.round(size * (first + ((k - 1) * (1 - first)) / (threads - 1)));
      // The first line start at or after `nominal` (past the first LF at or after nominal - 1),
      // after the lines sniffing reads and after the previous cut.
      const cut = k === 1 && nominal <= sniffed ? sniffed : await afterLines(fh, path, Math.max(nominal, start + 1, sniffed) - 1, 1);
      if (cut === null || cut >= size) break;
      ranges.push({ start, end: cut });
      start = cut;
    }
    if (ranges.length === 0) return null;
    ranges.push({ start, end: size });
    return ranges;
  } finally {
    await closeQuietly(fh);
  }
}

/** A range being read by another thread (or, in tests, later on this one). */
export interface RangeJob {
  readonly range: ByteRange;
  readonly result: Promise<RangeResult>;
  /** Stops the worker; its result, if not yet in, becomes a refusal. */
  cancel(): void;
  /** When the job was last heard from (`performance.now()`): started, or a message. */
  lastHeard(): number;
}

/**
 * A worker that has sent nothing for this long is stopped and its range read on the loading
 * thread. A worker reports its progress every 4 MiB it reads and then its result, so only a hung
 * one (or one parsing a single line of hundreds of MB) is this quiet.
 */
export const RANGE_STALL_MS = 30_000;

export type RangeMode = 'worker' | 'inline';

/**
 * Starts reading every range but the first. 'worker': one worker thread per range (null when no
 * worker script can be found). 'inline': on this thread, each part passed through a structured
 * clone as a worker's would be (tests).
 */
export function startRangeJobs(
  path: string,
  ranges: readonly ByteRange[],
  opts: ReaderOptions,
  mode: RangeMode,
  onProgress: (index: number, read: number) => void,
): RangeJob[] | null {
  const task = (r: ByteRange): RangeTask => ({
    path,
    start: r.start,
    end: r.end,
    maxLineBytes: opts.maxLineBytes,
    chunkBytes: opts.chunkBytes,
  });
  if (mode === 'inline') {
    return ranges.slice(1).map((range) => ({
      range,
      result: loadRange(task(range)).then((r) => structuredClone(r, { transfer: transferables(r) })),
      cancel: () => undefined,
      lastHeard: () => performance.now(),
    }));
  }
  const spec = workerSpec(import.meta.url, './range-worker.ts', 'load-worker.js');
  if (spec === null) return null;
  return ranges.slice(1).map((range, i) => {
    const worker = startWorker(spec, { [RANGE_WORKER_MARK]: task(range) });
    let heard = performance.now();
    const result = new Promise<RangeResult>((resolve) => {
      worker.on('message', (m: RangeWorkerMessage) => {
        heard = performance.now();
        if (m.type === 'progress') onProgress(i + 1, m.read);
        else resolve(m.result);
      });
      worker.on('error', (err) => resolve({ ok: false, why: `the worker failed: ${err.message}` }));
      worker.on('exit', (code) => resolve({ ok: false, why: `the worker exited (code ${code}) without a result` }));
    });
    return { range, result, cancel: () => void worker.terminate(), lastHeard: () => heard };
  });
}

/** The job's result, or a refusal once it has been silent for `stallMs` (the job is then stopped). */
function resultOrStall(job: RangeJob, stallMs: number): Promise<RangeResult> {
  return new Promise<RangeResult>((resolve) => {
    const watch = setInterval(
      () => {
        if (performance.now() - job.lastHeard() < stallMs) return;
        clearInterval(watch);
        job.cancel();
        resolve({ ok: false, why: `the worker sent nothing for ${stallMs} ms` });
      },
      Math.min(1_000, stallMs),
    );
    void job.result.then((r) => {
      clearInterval(watch);
      resolve(r);
    });
  });
}

/** Takes a range's part into the log (the importer and the log builder); false: read it here instead. */
export type TakeRange = (result: Extract<RangeResult, { ok: true }>, lineBase: number) => boolean;

/**
 * Reads a file cut into `ranges`: the first here, each later one taken from its job when `take`
 * accepts it, else read here too. `accepts`, asked after the first range, says whether any part
 * can be taken at all (the importer chosen is the one the workers assumed); when not, the jobs
 * are stopped and the rest is read here. A job silent for `stallMs` is stopped and its range read
 * here. The jobs are always stopped before this returns. Says why each range read here was not
 * taken from its job, in order.
 */
export async function readInRanges(
  path: string,
  ranges: readonly ByteRange[],
  jobs: readonly RangeJob[],
  onLine: OnJsonLine,
  onDiagnostic: DiagnosticSink,
  opts: ReaderOptions,
  accepts: () => boolean,
  take: TakeRange,
  progress: { report(index: number, read: number): void },
  stallMs = RANGE_STALL_MS,
): Promise<{ readonly stats: ReadStats; readonly readHere: readonly string[] }> {
  const readHere: string[] = [];
  const reader = await RangeReader.open(path, onLine, onDiagnostic, opts);
  try {
    const first = ranges[0] as ByteRange;
    await reader.read(first.start, first.end, (n) => progress.report(0, n));
    const taking = accepts();
    if (!taking) for (const job of jobs) job.cancel();
    for (let k = 0; k < jobs.length; k++) {
      const job = jobs[k] as RangeJob;
      const r = taking ? await resultOrStall(job, stallMs) : null;
      const why = taking ? (r?.ok === false ? r.why : null) : 'the format read is not one whose ranges workers read';
      if (why === null && r?.ok === true && reader.canSkip && take(r, reader.currentLine - 1)) {
        // canSkip was true and nothing ran since: the skip counts the range.
        reader.skip(r.bytes, r.lines, r.events);
        progress.report(k + 1, r.bytes);
      } else {
        readHere.push(why ?? 'the import cannot go on from where the range starts');
        await reader.read(job.range.start, job.range.end, (n) => progress.report(k + 1, n));
      }
    }
  } catch (err) {
    await reader.end();
    throw err;
  } finally {
    for (const job of jobs) job.cancel();
  }
  return { stats: await reader.end(), readHere };
}

/** The bytes read so far over the ranges of a file read in ranges, for `onBytes`: never going back. */
export class RangeProgress {
  private readonly read: number[] = [];
  private reported = 0;

  constructor(private readonly onBytes: ((read: number) => void) | undefined) {}

  report(range: number, read: number): void {
    if (!this.onBytes) return;
    this.read[range] = read;
    let total = 0;
    for (const n of this.read) total += n ?? 0;
    if (total > this.reported) this.onBytes((this.reported = total));
  }
}
