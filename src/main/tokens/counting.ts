import type { EncodingName } from '../../shared/tokens/encoding';
import { loadEncoder, newStats, type BoundedEncoder, type EncoderOptions } from './encoder';
import type { CountRequest, WorkerReply } from './protocol';

/**
 * One batch counted on the current thread: what a worker does with a request, and what the inline
 * counter does when there are no workers.
 */
const encoders = new Map<string, Promise<BoundedEncoder>>();

function encoderFor(encoding: EncodingName, options: EncoderOptions): Promise<BoundedEncoder> {
  const key = `${encoding}|${options.maxPieceBytes ?? ''}|${options.maxLongChunks ?? ''}|${options.memoEntries ?? ''}`;
  let e = encoders.get(key);
  if (!e) {
    e = loadEncoder(encoding, options);
    encoders.set(key, e);
  }
  return e;
}

export async function countBatch(req: CountRequest): Promise<WorkerReply> {
  try {
    const encoder = await encoderFor(req.encoding, req.options);
    const t0 = performance.now();
    const stats = newStats();
    const tokens = new Int32Array(req.texts.length);
    const estimated = new Int32Array(req.texts.length);
    for (let i = 0; i < req.texts.length; i++) {
      const before = stats.estimatedTokens;
      tokens[i] = encoder.count(req.texts[i] as string, stats);
      estimated[i] = stats.estimatedTokens - before;
    }
    return { type: 'counted', id: req.id, tokens, estimated, stats, ms: performance.now() - t0 };
  } catch (e) {
    return { type: 'failed', id: req.id, message: e instanceof Error ? e.message : String(e) };
  }
}
