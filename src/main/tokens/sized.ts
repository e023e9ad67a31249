import type { EncodingName } from '../../shared/tokens/encoding';
import { createTokenCounter, InlineCounter, type BatchResult, type TokenCounter, type WorkerPoolOptions } from './pool';

/**
 * Characters counted on the calling thread before worker threads start. A worker builds an encoder
 * of its own (its ranks: a quarter of a second and some 40 MB) before it counts anything, and a
 * real session of a few megabytes has 0.4–1 million characters to count: one thread does it in
 * less time and memory (the bench's `tokens` rows, with and without, docs/performance.md). The cut
 * was a million until a real 3 MB session of 1,016,352 characters started two workers for its last
 * 16,000: 0.82 s and 187 MB against 0.56 s and 144 MB on one thread.
 */
export const INLINE_CHARS = 2_000_000;

/**
 * A counter that counts the first `inlineChars` characters it is given on the calling thread and
 * hands the rest to a worker pool, started only then. A session of a few hundred kilobytes of text
 * never starts a worker; a long one is counted in parallel as before. For a command that waits for
 * its counts (the CLI): a host that must keep answering while it counts uses the pool alone.
 */
export class SizedCounter implements TokenCounter {
  private pool: TokenCounter | null = null;
  private counted = 0;
  private closed = false;

  constructor(
    private readonly inline: TokenCounter,
    private readonly startPool: () => TokenCounter,
    readonly inlineChars = INLINE_CHARS,
  ) {}

  get kind(): TokenCounter['kind'] {
    return this.pool?.kind ?? this.inline.kind;
  }

  get threads(): number {
    return this.pool?.threads ?? this.inline.threads;
  }

  count(encoding: EncodingName, texts: readonly string[], signal?: AbortSignal): Promise<BatchResult> {
    let chars = 0;
    for (const t of texts) chars += t.length;
    if (this.closed || this.counted + chars <= this.inlineChars) {
      this.counted += chars;
      return this.inline.count(encoding, texts, signal);
    }
    this.pool ??= this.startPool();
    return this.pool.count(encoding, texts, signal);
  }

  /** Nothing ahead: counts found in a cache need no encoder at all, and the first count builds the one it needs. */
  warm(): void {}

  async dispose(): Promise<void> {
    this.closed = true;
    await Promise.all([this.inline.dispose(), this.pool?.dispose()]);
  }
}

/**
 * The counter of a command that waits for its counts: inline up to `INLINE_CHARS`, then a worker
 * pool (or inline throughout when there is no worker script). The caller owns it and closes it.
 */
export function createCommandCounter(options: WorkerPoolOptions = {}): TokenCounter {
  return new SizedCounter(new InlineCounter(options.encoder), () => createTokenCounter(options));
}
