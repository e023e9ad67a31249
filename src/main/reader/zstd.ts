import { Decompress } from 'fzstd';

/** DeepSeek Harness writes `session.jsonl.zstd`; `.zst` is the zstd CLI's own suffix. */
export function isZstdPath(path: string): boolean {
  return /\.zstd?$/i.test(path);
}

/** What one push decoded; `error` is set once the stream is corrupt or cut short, and stays set. */
export interface ZstdOutput {
  blocks: Uint8Array[];
  error: string | null;
}

/**
 * fzstd's streaming decompressor with failures as values. It handles concatenated frames (one per
 * append batch) by itself. Decoded blocks are collected and returned rather than handed on from
 * fzstd's callback, so an exception from the caller's own code is never mistaken for corrupt data.
 * fzstd does not verify frame checksums: corruption inside a block may decode to garbage, which the
 * line reader then reports as bad lines.
 *
 * fzstd keeps references to unconsumed input, so pushed chunks must not be reused afterwards.
 */
export class ZstdStream {
  private readonly decompressor: Decompress;
  private blocks: Uint8Array[] = [];
  private failure: string | null = null;

  constructor() {
    this.decompressor = new Decompress((data) => {
      if (data.length > 0) this.blocks.push(data);
    });
  }

  get error(): string | null {
    return this.failure;
  }

  push(chunk: Uint8Array): ZstdOutput {
    return this.run(chunk, false);
  }

  /** Tells the decompressor the input is over, which is how a cut-short last frame is detected. */
  end(): ZstdOutput {
    return this.run(new Uint8Array(0), true);
  }

  private run(chunk: Uint8Array, final: boolean): ZstdOutput {
    if (this.failure !== null) return { blocks: [], error: this.failure };
    try {
      this.decompressor.push(chunk, final);
    } catch (e) {
      // Corrupt input can also surface as a RangeError or TypeError from inside fzstd.
      this.failure = e instanceof Error ? e.message : String(e);
    }
    const blocks = this.blocks;
    this.blocks = [];
    return { blocks, error: this.failure };
  }
}
