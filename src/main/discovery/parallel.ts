import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type * as WorkerThreads from 'node:worker_threads';
import { scanSession } from './scan';
import type { ScanResult, SessionCandidate } from './types';

/*
 * Scanning many sessions on several threads. A scan is CPU-bound (bytes already in the page
 * cache), so the sessions are shared out by size between this thread and `threads - 1` workers.
 * The workers run the small discovery bundle (dist/ls.js, built from src/main/cli/ls-entry.ts), never the
 * whole CLI; from the TypeScript sources (tests, tsx) or without that bundle, everything is
 * scanned on this thread. Measured on a 2-core development machine: see bench/ls.ts.
 */

/** Below this many bytes to scan, a worker's start-up (a new V8 isolate) costs more than it saves. */
export const PARALLEL_MIN_BYTES = 24 * 1024 * 1024;

const FLAG = 'palimpsestDiscoveryWorker';
/** In a worker's argv, so that a bundle can tell it is one without loading node:worker_threads. */
const WORKER_ARG = '--palimpsest-discovery-worker';

let threads: typeof WorkerThreads | null = null;
/**
 * node:worker_threads, loaded when a worker is started or served: loading it (with the stream
 * modules it needs) costs about 1.5 ms, and most listings start no worker.
 */
function workerThreads(): typeof WorkerThreads {
  return (threads ??= createRequire(import.meta.url)('node:worker_threads') as typeof WorkerThreads);
}

/** The bundle the workers run: this one when it is dist/ls.js (or dist/ls.cjs), else dist/ls.js beside it. */
export function workerScript(selfUrl: string = import.meta.url): URL | null {
  if (!selfUrl.startsWith('file:') || !/\.c?js$/.test(selfUrl)) return null;
  const here = new URL(selfUrl);
  if (here.pathname.endsWith('/ls.js') || here.pathname.endsWith('/ls.cjs')) return here;
  const sibling = new URL('./ls.js', here);
  return existsSync(fileURLToPath(sibling)) ? sibling : null;
}

/**
 * Cores likely to be free: the available parallelism (at most 4) less the 1-minute load average.
 * A worker on a core that other processes keep busy only adds its start-up and JIT warm-up.
 */
export function idleCores(): number {
  const cores = Math.min(availableParallelism(), 4);
  const load = loadavg()[0] ?? 0; // 0 where the platform has none (Windows)
  return Math.max(1, Math.min(cores, Math.round(cores - load + 0.5)));
}

/**
 * Threads for a scan by default. V8 compiles the scanner on background threads while this one
 * runs it, so a cold scan already keeps two cores busy, and each worker pays its own start-up
 * and warm-up: on a 2-core development machine a worker made the first `ls` of the
 * 200 MB bench tree slower (0.29–0.31 s against 0.26–0.27 s on one thread). Workers are used
 * only when at least three cores are idle, one left for the JIT.
 */
export function defaultThreads(): number {
  const idle = idleCores();
  return idle >= 3 ? idle - 1 : 1;
}

/** Splits candidates into `n` shares of about equal bytes (largest first, each to the lightest share). */
export function shareOut(candidates: readonly SessionCandidate[], n: number): number[][] {
  const shares: number[][] = Array.from({ length: n }, () => []);
  const load = new Array<number>(n).fill(0);
  const order = candidates.map((c, i) => ({ i, bytes: c.files[0]?.size ?? 0 })).sort((a, b) => b.bytes - a.bytes);
  for (const { i, bytes } of order) {
    let k = 0;
    for (let j = 1; j < n; j++) if ((load[j] as number) < (load[k] as number)) k = j;
    (shares[k] as number[]).push(i);
    load[k] = (load[k] as number) + bytes;
  }
  return shares;
}

export interface ParallelOptions {
  /** Threads in all, this one included; default: PALIMPSEST_SCAN_THREADS, else defaultThreads(). */
  readonly threads?: number;
  readonly minBytes?: number;
  /** The worker bundle; default: workerScript(). */
  readonly script?: URL | null;
}

export async function scanInParallel(candidates: readonly SessionCandidate[], options: ParallelOptions = {}): Promise<ScanResult[]> {
  const bytes = candidates.reduce((a, c) => a + (c.files[0]?.size ?? 0), 0);
  const fromEnv = Number(process.env.PALIMPSEST_SCAN_THREADS);
  const wanted = options.threads ?? (Number.isInteger(fromEnv) && fromEnv >= 1 ? fromEnv : defaultThreads());
  const threads = Math.max(1, Math.min(wanted, candidates.length));
  const script = options.script === undefined ? workerScript() : options.script;
  if (threads < 2 || !script || bytes < (options.minBytes ?? PARALLEL_MIN_BYTES)) return candidates.map(scanSession);

  const shares = shareOut(candidates, threads);
  const results = new Array<ScanResult>(candidates.length);
  const workers = shares.slice(1).map((share) =>
    runWorker(
      script,
      share.map((i) => candidates[i] as SessionCandidate),
    ).then(
      (rs) => rs,
      () => null,
    ),
  );
  // This thread scans the first share while the workers start and scan theirs.
  for (const i of shares[0] as number[]) results[i] = scanSession(candidates[i] as SessionCandidate);
  const done = await Promise.all(workers);
  done.forEach((rs, k) => {
    const share = shares[k + 1] as number[];
    share.forEach((i, j) => {
      // A worker that failed: its share is scanned here.
      results[i] = rs?.[j] ?? scanSession(candidates[i] as SessionCandidate);
    });
  });
  return results;
}

function runWorker(script: URL, share: SessionCandidate[]): Promise<ScanResult[]> {
  return new Promise((resolve, reject) => {
    const w = new (workerThreads().Worker)(script, {
      workerData: { [FLAG]: true, candidates: share },
      argv: [WORKER_ARG],
      stdout: false,
      stderr: false,
    });
    let got: ScanResult[] | null = null;
    w.once('message', (m: unknown) => {
      got = Array.isArray(m) ? (m as ScanResult[]) : null;
    });
    w.once('error', reject);
    w.once('exit', () => (got ? resolve(got) : reject(new Error('the scan worker ended without results'))));
  });
}

/** In a worker started by scanInParallel: scans its share, posts the results. Returns false elsewhere. */
export function serveAsWorker(): boolean {
  if (!process.argv.includes(WORKER_ARG)) return false;
  const { isMainThread, parentPort, workerData } = workerThreads();
  if (isMainThread || !parentPort) return false;
  const data = workerData as Record<string, unknown> | null;
  if (!data || data[FLAG] !== true || !Array.isArray(data.candidates)) return false;
  parentPort.postMessage((data.candidates as SessionCandidate[]).map(scanSession));
  return true;
}
