// Token counting (docs/tokens.md): encoders, the worker pool, the content-hash cache and the
// session-level token service. Importing this module starts nothing: a pool exists only once
// someone creates it.
export { ContentCountCache } from './cache';
export {
  BoundedEncoder, DEFAULT_MAX_LONG_CHUNKS, DEFAULT_MAX_PIECE_BYTES, loadEncoder, loadTiktoken, newStats,
  type CountStats, type Encoder, type EncoderOptions,
} from './encoder';
export {
  createTokenCounter, defaultWorkerSpec, InlineCounter, PoolClosedError, PoolFullError, WorkerPool,
  type BatchResult, type TokenCounter, type WorkerPoolOptions, type WorkerSpec,
} from './pool';
export {
  DEFAULT_CHARS_PER_TOKEN, SessionTokens,
  type CountProgress, type CountRunStats, type SessionTokensOptions, type UnitAccount, type ViewAccount,
} from './service';
