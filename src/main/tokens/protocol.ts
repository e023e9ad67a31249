import type { EncodingName } from '../../shared/tokens/encoding';
import type { CountStats, EncoderOptions } from './encoder';

/** Messages between the worker pool and its token workers. */
export interface CountRequest {
  readonly type: 'count';
  readonly id: number;
  readonly encoding: EncodingName;
  readonly texts: readonly string[];
  readonly options: EncoderOptions;
}

export type WorkerReply =
  | {
      readonly type: 'counted';
      readonly id: number;
      /** Tokens per text. */
      readonly tokens: Int32Array;
      /** Tokens of each text the encoder estimated (past its work cap) instead of counting. */
      readonly estimated: Int32Array;
      readonly stats: CountStats;
      readonly ms: number;
    }
  | { readonly type: 'failed'; readonly id: number; readonly message: string };

/** workerData that marks a thread as a Palimpsest token worker (nothing else starts the handler). */
export const WORKER_MARK = 'palimpsestTokenWorker';
