import { JsonlDecoder } from './decode';
import { LineSplitter, lineLimit } from './lines';
import { FileReport } from './report';
import type { DiagnosticSink, OnJsonLine, ReaderOptions, ReadStats } from './types';
import { type ZstdGap, type ZstdOutput, ZstdStream } from './zstd';

/**
 * One file's way from raw bytes to records: [zstd] → line splitter → decoder, with its diagnostics.
 * The byte source (a file, or chunks in memory) is the caller's, so both read paths behave alike.
 */
export class JsonlPipeline {
  private readonly report: FileReport;
  private readonly decoder: JsonlDecoder;
  private readonly splitter: LineSplitter;
  private readonly zstd: ZstdStream | null;
  private stopped = false;
  private finished: ReadStats | null = null;

  /** `from`: the line number and byte offset of the first byte pushed (a byte range of a plain file). */
  constructor(
    file: string,
    onLine: OnJsonLine,
    onDiagnostic: DiagnosticSink,
    opts: ReaderOptions,
    compressed: boolean,
    from?: { readonly line: number; readonly offset: number },
  ) {
    const max = lineLimit(opts.maxLineBytes);
    this.report = new FileReport(file, onDiagnostic);
    this.decoder = new JsonlDecoder(this.report, onLine, max);
    this.splitter = new LineSplitter(this.decoder, {
      maxLineBytes: max,
      firstLine: from?.line,
      firstOffset: from?.offset,
    });
    this.zstd = compressed ? new ZstdStream() : null;
  }

  /** Feeds the next raw bytes; false once reading should stop (nothing more of a zstd file can be decoded). */
  push(chunk: Uint8Array): boolean {
    if (this.stopped) return false;
    if (this.zstd === null) {
      this.splitter.push(chunk);
      return true;
    }
    return this.feedDecoded(this.zstd.push(chunk));
  }

  /**
   * Counts `bytes` bytes of a plain file, `lines` lines of which `records` were delivered, that
   * another reader read (a byte range read in parallel, with nothing to report). False, and
   * nothing counted, when a line is unfinished here or the pipeline stopped or decompresses.
   */
  skip(bytes: number, lines: number, records: number): boolean {
    if (!this.canSkip || !this.splitter.skip(bytes, lines)) return false;
    this.decoder.skip(lines, records);
    return true;
  }

  /** Whether `skip` would count a range now. */
  get canSkip(): boolean {
    return !this.stopped && this.zstd === null && this.finished === null && this.splitter.betweenLines;
  }

  /** Number of the line being read now (1-based). */
  get currentLine(): number {
    return this.splitter.currentLine;
  }

  /** The source failed: report it where reading stopped, keep what was read. */
  ioFailed(message: string): void {
    if (this.stopped) return;
    this.stopped = true;
    this.report.add('READ_IO', 'error', this.splitter.currentLine, message);
  }

  /** Flushes the last line and the per-file summaries. Idempotent. */
  end(): ReadStats {
    if (this.finished !== null) return this.finished;
    if (this.zstd !== null && !this.stopped) this.feedDecoded(this.zstd.end());
    this.splitter.end();
    const stats = this.decoder.finish(this.splitter.bytes);
    this.report.finish();
    this.finished = stats;
    return stats;
  }

  private feedDecoded(out: ZstdOutput): boolean {
    for (const part of out.parts) {
      if (part instanceof Uint8Array) this.splitter.push(part);
      else this.zstdGap(part);
    }
    if (this.zstd?.done !== true) return true;
    this.stopped = true;
    return false;
  }

  /**
   * Bytes of a zstd file could not be decoded: a line they cut is dropped, not joined to the bytes
   * after the gap, and one diagnostic says where the bad stretch is and what was lost.
   */
  private zstdGap(gap: ZstdGap): void {
    const line = this.splitter.currentLine;
    const cut = this.splitter.gap();
    if (cut >= 0) this.decoder.cutLine();
    const where =
      gap.resumedAt === null ? `from byte ${gap.offset} to the end of the file` : `from byte ${gap.offset} to byte ${gap.resumedAt}`;
    const lost =
      gap.lostBytes !== null && gap.lostBytes > 0
        ? ` The lines in it are lost (the bad frame declared ${gap.lostBytes} more bytes of text).`
        : ' The lines in it, if any, are lost.';
    const cutText = cut >= 0 ? ` Line ${line} was cut short there (${cut} bytes) and was skipped.` : '';
    const after =
      gap.resumedAt === null
        ? ' The lines before it were kept.'
        : ` Reading went on at the next frame; line numbers after it count only the lines read.`;
    this.report.add(
      'READ_ZSTD',
      'error',
      line,
      `The zstd compressed data ${where} could not be decoded: ${gap.reason}.${lost}${cutText}${after}`,
    );
  }
}
