import { constants as bufferConstants } from 'node:buffer';
import { mkdtemp, open, rm, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseLineBytes } from './decode';
import { closeQuietly, IoFailure, openForReading, readInto } from './io';
import { DEFAULT_CHUNK_BYTES } from './jsonl';
import { isZstdPath, ZstdStream } from './zstd';

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
    return parseLineBytes(buf, 0, length);
  }

  private async decompressToTemp(): Promise<FileHandle | IoFailure> {
    const src = await openForReading(this.path);
    if (src instanceof IoFailure) return src;
    try {
      this.tempDir = await mkdtemp(join(tmpdir(), 'palimpsest-zstd-'));
      const temp = join(this.tempDir, `${basename(this.path)}.jsonl`);
      const out = await open(temp, 'w+');
      const zstd = new ZstdStream();
      for (;;) {
        const buf = Buffer.allocUnsafeSlow(DEFAULT_CHUNK_BYTES);
        const n = await readInto(src, this.path, buf, DEFAULT_CHUNK_BYTES, null);
        if (n instanceof IoFailure) {
          await closeQuietly(out);
          return n;
        }
        const res = n === 0 ? zstd.end() : zstd.push(buf.subarray(0, n));
        for (const b of res.blocks) await out.write(b);
        // A corrupt tail was reported when the session was loaded; what decoded is still usable.
        if (res.error !== null || n === 0) break;
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
