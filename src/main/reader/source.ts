import { constants as bufferConstants } from 'node:buffer';
import { mkdtemp, open, rm, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseLineBytes } from './decode';
import { closeQuietly, IoFailure, openForReading, readInto } from './io';
import { DEFAULT_CHUNK_BYTES } from './jsonl';
import { isZstdPath, ZstdStream } from './zstd';

/** Lines at most this far apart are read together by readMany. */
const READ_GAP = 64 * 1024;
/** The most bytes readMany reads in one call. */
const READ_SPAN = 8 * 1024 * 1024;

/**
 * Re-reads lines of one session file by the offsets the reader reported, keeping one file handle
 * open for the life of the session instead of opening the file per line. A zstd file is
 * decompressed once, on the first re-read, into a private temporary file (offsets refer to the
 * decompressed stream); the session file itself is only ever read. The owner must `dispose()` it.
 */
export class LineSource {
  private handle: Promise<FileHandle | IoFailure> | null = null;
  private tempDir: string | null = null;
  private disposed = false;

  constructor(readonly path: string) {}

  /** The JSON object on the line at [offset, offset + length), or null when it cannot be read. */
  async read(offset: number, length: number): Promise<Record<string, unknown> | null> {
    if (this.disposed) return null;
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0) return null;
    if (length > bufferConstants.MAX_STRING_LENGTH) return null;
    const buf = await this.bytes(offset, length);
    return buf ? parseLineBytes(buf, 0, length) : null;
  }

  /**
   * Many lines at once, in the order asked, each null when it cannot be read. Lines close together
   * in the file are read with one call (gaps up to READ_GAP bytes, spans up to READ_SPAN): a search
   * or a view re-reading thousands of long texts pays a handful of reads, not one per line.
   */
  async readMany(ranges: readonly { readonly offset: number; readonly length: number }[]): Promise<(Record<string, unknown> | null)[]> {
    const out: (Record<string, unknown> | null)[] = new Array<Record<string, unknown> | null>(ranges.length).fill(null);
    const order = ranges
      .map((_, i) => i)
      .filter((i) => {
        const r = ranges[i] as { offset: number; length: number };
        return Number.isSafeInteger(r.offset) && Number.isSafeInteger(r.length) && r.offset >= 0 && r.length >= 0;
      });
    order.sort((a, b) => (ranges[a] as { offset: number }).offset - (ranges[b] as { offset: number }).offset);
    for (let g = 0; g < order.length;) {
      const first = ranges[order[g] as number] as { offset: number; length: number };
      let end = first.offset + first.length;
      let h = g + 1;
      for (; h < order.length; h++) {
        const r = ranges[order[h] as number] as { offset: number; length: number };
        const next = Math.max(end, r.offset + r.length);
        if (r.offset - end > READ_GAP || next - first.offset > READ_SPAN) break;
        end = next;
      }
      if (h === g + 1) {
        out[order[g] as number] = await this.read(first.offset, first.length);
      } else {
        const buf = await this.bytes(first.offset, end - first.offset);
        for (let k = g; k < h; k++) {
          const r = ranges[order[k] as number] as { offset: number; length: number };
          // A span the file no longer has whole (it shrank): each line on its own, as read() would.
          out[order[k] as number] = buf
            ? parseLineBytes(buf, r.offset - first.offset, r.offset - first.offset + r.length)
            : await this.read(r.offset, r.length);
        }
      }
      g = h;
    }
    return out;
  }

  /** The bytes [offset, offset + length) of the file, or null when they cannot be read. */
  private async bytes(offset: number, length: number): Promise<Buffer | null> {
    if (this.disposed || length > bufferConstants.MAX_LENGTH) return null;
    this.handle ??= isZstdPath(this.path) ? this.decompressToTemp() : openForReading(this.path);
    const fh = await this.handle;
    if (fh instanceof IoFailure) return null;
    const buf = Buffer.allocUnsafe(length);
    let got = 0;
    while (got < length) {
      const n = await readInto(fh, this.path, buf.subarray(got), length - got, offset + got);
      if (n instanceof IoFailure || n === 0) return null;
      got += n;
    }
    return buf;
  }

  private async decompressToTemp(): Promise<FileHandle | IoFailure> {
    const src = await openForReading(this.path);
    if (src instanceof IoFailure) return src;
    try {
      this.tempDir = await mkdtemp(join(tmpdir(), 'palimpsest-zstd-'));
      const temp = join(this.tempDir, `${basename(this.path)}.jsonl`);
      const out = await open(temp, 'w+');
      const zstd = new ZstdStream();
      const buf = Buffer.allocUnsafeSlow(DEFAULT_CHUNK_BYTES);
      for (;;) {
        const n = await readInto(src, this.path, buf, DEFAULT_CHUNK_BYTES, null);
        if (n instanceof IoFailure) {
          await closeQuietly(out);
          return n;
        }
        // Gaps were reported when the session was loaded and add no bytes: the offsets the reader
        // gave count only what decoded, as this copy does.
        for (const b of (n === 0 ? zstd.end() : zstd.push(buf.subarray(0, n))).parts) if (b instanceof Uint8Array) await out.write(b);
        if (zstd.done || n === 0) break;
      }
      return out;
    } catch (e) {
      return new IoFailure(`Could not prepare ${this.path} for re-reading: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      await closeQuietly(src);
    }
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    const fh = this.handle ? await this.handle : null;
    if (fh && !(fh instanceof IoFailure)) await closeQuietly(fh);
    if (this.tempDir) await rm(this.tempDir, { recursive: true, force: true });
  }
}
