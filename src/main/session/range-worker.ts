import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { loadRange, transferables, type RangeTask } from './range-load';
import { RANGE_WORKER_MARK, type RangeWorkerMessage } from './range-protocol';

/**
 * The range worker: reads one byte range of a Palimpsest file into a compact log part off the main
 * thread (parallel load), posts its progress and its result, and ends. Bundled on its own as
 * dist/load-worker.js and out/main/load-worker.js; under tsx/vitest it runs from source. Importing
 * this module anywhere else does nothing: it starts only in a thread marked as one.
 */
const data = workerData as { [RANGE_WORKER_MARK]?: RangeTask } | null;
const task = typeof data === 'object' && data !== null ? data[RANGE_WORKER_MARK] : undefined;

if (!isMainThread && parentPort && task) {
  const port = parentPort;
  let reported = 0;
  const post = (m: RangeWorkerMessage, transfer: ArrayBuffer[] = []): void => port.postMessage(m, transfer);
  void loadRange(task, (read) => {
    // Progress every 4 MiB: enough for a progress bar, few enough messages not to cost.
    if (read - reported >= 4 * 1024 * 1024) post({ type: 'progress', read: (reported = read) });
  }).then(
    (result) => post({ type: 'result', result }, transferables(result)),
    (err: unknown) =>
      post({ type: 'result', result: { ok: false, why: `the worker failed: ${err instanceof Error ? err.message : String(err)}` } }),
  );
}
