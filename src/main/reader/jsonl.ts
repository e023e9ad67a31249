import type { FileHandle } from 'node:fs/promises';
import { closeQuietly, IoFailure, openForReading, readInto } from './io';
import { JsonlPipeline } from './pipeline';
import type { DiagnosticSink, OnJsonLine, ReaderOptions, ReadStats } from './types';
import { isZstdPath } from './zstd';

export const DEFAULT_CHUNK_BYTES = 1024 * 1024;

function chunkSize(opts: ReaderOptions): number {
  const n = opts.chunkBytes;
  return n !== undefined && Number.isFinite(n) && n >= 1 ? Math.floor(n) : DEFAULT_CHUNK_BYTES;
}

/**
 * Reads a JSONL file (plain, or `.zst`/`.zstd` compressed), handing each object line to `onLine` and
 * every problem to `onDiagnostic`. Never throws for bad input or I/O failures: they become
 * diagnostics. Exceptions thrown by the callbacks themselves do propagate.
 */
export async function readJsonl(
  path: string,
  onLine: OnJsonLine,
  onDiagnostic: DiagnosticSink,
  opts: ReaderOptions = {},
): Promise<ReadStats> {
  const compressed = isZstdPath(path);
  const pipeline = new JsonlPipeline(path, onLine, onDiagnostic, opts, compressed);
  const fh = await openForReading(path);
  if (fh instanceof IoFailure) {
    pipeline.ioFailed(fh.message);
    return pipeline.end();
  }
  try {
    await pump(fh, path, pipeline, chunkSize(opts), compressed, null, opts.onBytes, undefined, opts.readAhead !== false);
  } finally {
    await closeQuietly(fh);
  }
  return pipeline.end();
}

/**
 * Feeds a file to a pipeline: bytes [start, end) when `range` is given (a plain file), else the
 * rest of the file from its current position. `onBytes` is told the bytes fed by this call so far.
 */
async function pump(
  fh: FileHandle,
  path: string,
  pipeline: JsonlPipeline,
  size: number,
  compressed: boolean,
  range: { readonly start: number; readonly end: number } | null,
  onBytes: ((read: number) => void) | undefined,
  stop?: () => boolean,
  ahead = true,
): Promise<void> {
  // Two buffers: the next chunk is read while this one is split and parsed, so the thread does not
  // sit idle for every read (docs/performance.md, "Reading ahead"). A read may reuse its buffer:
  // the splitter and the zstd stream copy what they keep. `ahead` false (ReaderOptions.readAhead):
  // each read starts once the chunk before it is parsed.
  const pair: readonly Buffer[] = [Buffer.allocUnsafeSlow(size), Buffer.allocUnsafeSlow(size)];
  let which = 0;
  let buf = pair[0] as Buffer;
  let position = range?.start ?? null;
  const want = (): number => (range === null || position === null ? size : Math.max(0, Math.min(size, range.end - position)));
  const readNext = (into: Buffer): Promise<number | IoFailure> => {
    const n = want();
    return n === 0 ? Promise.resolve(0) : readInto(fh, path, into, n, position);
  };
  let next = readNext(buf);
  try {
    let read = 0;
    for (;;) {
      const n = await next;
      if (n instanceof IoFailure) {
        pipeline.ioFailed(n.message);
        break;
      }
      if (n === 0) break;
      const chunk = buf.subarray(0, n);
      which ^= 1;
      buf = pair[which] as Buffer;
      if (position !== null) position += n;
      if (ahead) next = readNext(buf);
      if (!pipeline.push(chunk) || stop?.() === true) break;
      if (!ahead) next = readNext(buf);
      read += n;
      onBytes?.(read);
    }
  } finally {
    // A read still under way must end before the file is closed.
    await next;
  }
}

/**
 * One plain file read by byte ranges through one pipeline, so that line numbers, offsets and the
 * once-per-file notes run on across ranges. A parallel load reads its first range and the ranges
 * its workers could not take with one of these, and skips the ranges they took.
 */
export class RangeReader {
  private constructor(
    private readonly path: string,
    private readonly fh: FileHandle | null,
    private readonly pipeline: JsonlPipeline,
    private readonly size: number,
  ) {}

  /** `from`: where the first range starts, when that is not the file's first line. Never throws for I/O. */
  static async open(
    path: string,
    onLine: OnJsonLine,
    onDiagnostic: DiagnosticSink,
    opts: ReaderOptions = {},
    from?: { readonly line: number; readonly offset: number },
  ): Promise<RangeReader> {
    const pipeline = new JsonlPipeline(path, onLine, onDiagnostic, opts, false, from);
    const fh = await openForReading(path);
    if (fh instanceof IoFailure) pipeline.ioFailed(fh.message);
    return new RangeReader(path, fh instanceof IoFailure ? null : fh, pipeline, chunkSize(opts));
  }

  /**
   * Reads bytes [start, end); `start` is where the previous range ended (or the first range
   * starts). `stop`, asked after each chunk, ends the read early (the rest is not read).
   */
  async read(start: number, end: number, onBytes?: (read: number) => void, stop?: () => boolean): Promise<void> {
    if (this.fh !== null) await pump(this.fh, this.path, this.pipeline, this.size, false, { start, end }, onBytes, stop);
  }

  /** Counts a range another reader read, with nothing to report; false (nothing counted) when it cannot be skipped here. */
  skip(bytes: number, lines: number, records: number): boolean {
    return this.fh !== null && this.pipeline.skip(bytes, lines, records);
  }

  /** Whether `skip` would count a range now (the ranges read so far end with a whole line). */
  get canSkip(): boolean {
    return this.fh !== null && this.pipeline.canSkip;
  }

  /** The number of the next line. */
  get currentLine(): number {
    return this.pipeline.currentLine;
  }

  /** Flushes the last line and the file's summaries, and closes the file. */
  async end(): Promise<ReadStats> {
    if (this.fh !== null) await closeQuietly(this.fh);
    return this.pipeline.end();
  }
}
