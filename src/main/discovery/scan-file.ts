import { closeSync, readSync } from 'node:fs';
import { openRegularSync } from '../files/open-regular';
import { DEFAULT_MAX_LINE_BYTES, LineSplitter } from '../reader';
import { isZstdPath } from '../reader';
import { ZstdStream } from '../reader/zstd';

/** A per-harness scanner: gets each line's bytes, then the end. */
export interface LineScanner {
  /** `buf` stays valid until the next flush() (or, without one, only during the call). */
  line(buf: Buffer, start: number, end: number): void;
  /** The buffers given to line() so far are about to be reused. */
  flush?(): void;
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
    fd = openRegularSync(path);
  } catch (e) {
    return { bytes: 0, error: message(e) };
  }
  const splitter = new LineSplitter((buf, start, end) => scanner.line(buf, start, end), maxLineBytes === undefined ? {} : { maxLineBytes });
  const zstd = isZstdPath(path) ? new ZstdStream() : null;
  let bytes = 0;
  let error: string | null = null;
  try {
    for (;;) {
      const buf = (shared ??= Buffer.allocUnsafeSlow(CHUNK));
      const n = readSync(fd, buf, 0, CHUNK, null);
      if (zstd) {
        for (const part of (n === 0 ? zstd.end() : zstd.push(buf.subarray(0, n))).parts) {
          if (part instanceof Uint8Array) {
            splitter.push(part);
            continue;
          }
          // The frames after a bad stretch are still scanned; the first bad stretch is the error.
          splitter.gap();
          error ??= `corrupt zstd data from byte ${part.offset}: ${part.reason}`;
        }
        scanner.flush?.();
        if (zstd.done) break;
      } else if (n > 0) {
        splitter.push(buf.subarray(0, n));
        scanner.flush?.();
      }
      if (n === 0) break;
      bytes += n;
    }
  } catch (e) {
    error = message(e);
  } finally {
    closeSync(fd);
  }
  splitter.end();
  scanner.flush?.();
  return { bytes, error };
}

/** A scanner that takes the lines of a buffer in a loop of its own (see scanLinesSync). */
export interface BlockScanner extends LineScanner {
  /**
   * Every line of `buf[start, end)`: each ends with an LF, except the file's last line when it has
   * none (then `end` is where the file ends). `buf` stays valid until the next flush().
   */
  block(buf: Buffer, start: number, end: number): void;
}

const LF = 0x0a;

/**
 * scanFileSync for a plain file and a BlockScanner: the complete lines of each read go to the
 * scanner in one call, and a line cut by the end of a read is moved to the front of the buffer for
 * the next one (the buffer grows for a line longer than itself). No line splitter, no callback per
 * line: for the few hundred nanoseconds a Claude Code line costs, both were worth a tenth, and
 * they were more code for V8 to optimise at the start of every listing. Lines longer than
 * `maxLineBytes` are skipped, as by the splitter.
 */
export function scanLinesSync(
  path: string,
  scanner: BlockScanner,
  maxLineBytes = DEFAULT_MAX_LINE_BYTES,
): { bytes: number; error: string | null } {
  let fd: number;
  try {
    fd = openRegularSync(path);
  } catch (e) {
    return { bytes: 0, error: message(e) };
  }
  let buf = (shared ??= Buffer.allocUnsafeSlow(CHUNK));
  let have = 0; // bytes of an unfinished line, at buf[0, have)
  let skipping = false; // inside a line over the limit: its bytes are dropped up to its LF
  let bytes = 0;
  let error: string | null = null;
  try {
    for (;;) {
      if (have === buf.length) {
        // One line fills the buffer: a larger one for this file (the shared one stays as it is).
        const bigger = Buffer.allocUnsafeSlow(buf.length * 2);
        buf.copy(bigger, 0, 0, have);
        buf = bigger;
      }
      const n = readSync(fd, buf, have, buf.length - have, null);
      if (n === 0) {
        if (have > 0 && !skipping) scanner.block(buf, 0, have);
        break;
      }
      bytes += n;
      const end = have + n;
      const last = buf.lastIndexOf(LF, end - 1);
      if (last < have) {
        // No line ends in what was read: keep it, or drop it up to its LF when over the limit.
        if (skipping || end > maxLineBytes) {
          skipping = true;
          have = 0;
        } else have = end;
        continue;
      }
      // The first line ends at the first LF: skipped when over the limit.
      const first = buf.indexOf(LF, have);
      const from = skipping || first > maxLineBytes ? first + 1 : 0;
      skipping = false;
      scanner.block(buf, from, last + 1);
      scanner.flush?.();
      have = end - last - 1;
      if (have > 0) buf.copyWithin(0, last + 1, end);
    }
  } catch (e) {
    error = message(e);
  } finally {
    closeSync(fd);
  }
  scanner.flush?.();
  return { bytes, error };
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
