import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { extractSession } from './extract';
import { EXTRACT_WORKER_MARK, type ExtractJob, type ExtractReply } from './extract-protocol';

/**
 * The extraction worker: reads sessions for the index (the importers, replay, diagnostics and item
 * texts: extractSession) off the thread that writes the index, one job at a time, for as long as
 * the pool keeps it. Bundled on its own as dist/extract-worker.js and out/main/extract-worker.js;
 * under tsx/vitest it runs from source. Importing this module anywhere else does nothing: it
 * starts only in a thread marked as one.
 */
const marked =
  typeof workerData === 'object' && workerData !== null && (workerData as Record<string, unknown>)[EXTRACT_WORKER_MARK] === true;

if (!isMainThread && parentPort && marked) {
  const port = parentPort;
  // Jobs are taken in the order they came, one at a time: two sessions in memory at once would
  // only cost memory on a thread that has no other work.
  let chain: Promise<void> = Promise.resolve();
  port.on('message', (job: ExtractJob) => {
    chain = chain.then(async () => {
      let reply: ExtractReply;
      try {
        reply = { id: job.id, ok: true, facts: await extractSession(job.path, job.session) };
      } catch (e) {
        reply = { id: job.id, ok: false, error: e instanceof Error ? e.message : String(e) };
      }
      port.postMessage(reply);
    });
  });
}
