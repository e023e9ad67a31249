import { closeSync, openSync, readSync } from 'node:fs';
import { LineSplitter } from '../reader';
import { isZstdPath } from '../reader';
import { ZstdStream } from '../reader/zstd';

/** A per-harness scanner: gets each line's bytes (valid only during the call), then the end. */
export interface LineScanner {
  line(buf: Buffer, start: number, end: number): void;
}

const CHUNK = 1024 * 1024;
let shared: Buffer | null = null;

/**
 * Feeds every line of a file (plain, or zstd: `.zst`/`.zstd`) to `scanner`, synchronously: a
 * summary scan is a tight loop over page-cached bytes, and sync reads cost no promise or thread
 * hop per megabyte. Lines longer than the reader's limit are skipped. Returns the bytes read, or
 * an error message when the file cannot be read (what was read so far was scanned).
 */
export function scanFileSync(path: string, scanner: LineScanner, maxLineBytes?: number): { bytes: number; error: string | null } {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    return { bytes: 0, error: message(e) };
  }
  const splitter = new LineSplitter((buf, start, end) => scanner.line(buf, start, end), maxLineBytes === undefined ? {} : { maxLineBytes });
  const zstd = isZstdPath(path) ? new ZstdStream() : null;
  let bytes = 0;
  let error: string | null = null;
  try {
    for (;;) {
      // fzstd keeps references to its input: compressed reads get a fresh buffer.
      const buf = zstd ? Buffer.allocUnsafe(CHUNK) : (shared ??= Buffer.allocUnsafeSlow(CHUNK));
      const n = readSync(fd, buf, 0, CHUNK, null);
      if (zstd) {
        const out = n === 0 ? zstd.end() : zstd.push(buf.subarray(0, n));
        for (const b of out.blocks) splitter.push(b);
        if (out.error !== null) {
          error = `not a valid zstd stream: ${out.error}`;
          break;
        }
      } else if (n > 0) splitter.push(buf.subarray(0, n));
      if (n === 0) break;
      bytes += n;
    }
  } catch (e) {
    error = message(e);
  } finally {
    closeSync(fd);
  }
  splitter.end();
  return { bytes, error };
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
