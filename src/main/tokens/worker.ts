import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { countBatch } from './counting';
import { WORKER_MARK, type CountRequest } from './protocol';

/**
 * The token worker: counts batches of texts off the main thread. Bundled on its own as
 * dist/token-worker.js (scripts/build-cli.mjs); under tsx/vitest it runs from source. Importing this
 * module anywhere else does nothing: the handler starts only in a thread the pool marked.
 */
const marked = typeof workerData === 'object' && workerData !== null && (workerData as Record<string, unknown>)[WORKER_MARK] === true;

if (!isMainThread && parentPort && marked) {
  const port = parentPort;
  port.on('message', (req: CountRequest) => {
    void countBatch(req).then((reply) => {
      if (reply.type === 'counted') port.postMessage(reply, [reply.tokens.buffer as ArrayBuffer, reply.estimated.buffer as ArrayBuffer]);
      else port.postMessage(reply);
    });
  });
}
