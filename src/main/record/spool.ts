import { createHash, type Hash } from 'node:crypto';
import { closeSync, openSync, read, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Utf8Check } from './utf8';

/*
 * One body (or one list of events) as it streams through the proxy: its size, SHA-256 and UTF-8
 * validity are worked out on the way, and its bytes are kept in memory up to SPILL_BYTES, then in
 * a private temporary file, so a large body is never held whole. The capture line is written from
 * it afterwards (./line.ts), and the file removed.
 *
 * Writes to the file are synchronous: a body is never queued in memory waiting for a slow disk,
 * and a local write of one network chunk (≤ 64 KiB) costs microseconds.
 */

export const SPILL_BYTES = 1024 * 1024;
const READ_BYTES = 1024 * 1024;

export interface SpoolDir {
  readonly path: string;
  /** A new file name in it. */
  next(): string;
}

/**
 * What a spool works out besides its size. Each costs a pass over every byte on the forwarding
 * path, so a spool only does what its reader uses: a body written to the capture needs all three,
 * a decoded text only its UTF-8 check, the events (JSON the proxy wrote) only their bytes, and the
 * bytes of a plain event stream (written as its events) only their count.
 */
export interface SpoolOptions {
  /** Keep the bytes (false: they are only counted). */
  readonly keep: boolean;
  /** Work out the SHA-256. */
  readonly sha256: boolean;
  /** Check the bytes are valid UTF-8. */
  readonly utf8: boolean;
}

export const BODY: SpoolOptions = { keep: true, sha256: true, utf8: true };

export class Spool {
  bytes = 0;
  private readonly hash: Hash | null;
  private readonly utf8: Utf8Check | null;
  private readonly keep: boolean;
  private mem: Buffer[] = [];
  private fd: number | null = null;
  private file: string | null = null;
  private ended = false;
  private digest: string | null = null;
  private valid: boolean | null = null;

  constructor(
    private readonly dir: SpoolDir,
    opts: SpoolOptions = BODY,
    private readonly limit = SPILL_BYTES,
  ) {
    this.keep = opts.keep;
    this.hash = opts.sha256 ? createHash('sha256') : null;
    this.utf8 = opts.utf8 ? new Utf8Check() : null;
  }

  write(chunk: Buffer): void {
    if (this.ended) throw new Error('spool: write after end');
    if (chunk.length === 0) return;
    this.bytes += chunk.length;
    this.hash?.update(chunk);
    this.utf8?.push(chunk);
    if (!this.keep) return;
    if (this.fd !== null) {
      writeAll(this.fd, chunk);
      return;
    }
    // The chunk may be a view on a buffer the stream reuses: keep a copy.
    this.mem.push(Buffer.from(chunk));
    if (this.bytes > this.limit) this.spill();
  }

  private spill(): void {
    this.file = this.dir.next();
    this.fd = openSync(this.file, 'wx+', 0o600);
    for (const b of this.mem) writeAll(this.fd, b);
    this.mem = [];
  }

  /** Ends the spool: nothing can be written after. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.digest = this.hash?.digest('hex') ?? null;
    this.valid = this.utf8?.end() ?? null;
  }

  /** The SHA-256 (hex) of the bytes, once ended. */
  sha256(): string {
    this.end();
    if (this.digest === null) throw new Error('spool: no SHA-256 was asked for');
    return this.digest;
  }

  /** Whether the bytes are valid UTF-8, once ended. */
  isUtf8(): boolean {
    this.end();
    if (this.valid === null) throw new Error('spool: no UTF-8 check was asked for');
    return this.valid;
  }

  /** The bytes, in pieces of at most 1 MiB (memory) or READ_BYTES (file), in order. */
  async *chunks(): AsyncGenerator<Buffer> {
    if (!this.keep) throw new Error('spool: the bytes were not kept');
    if (this.fd === null) {
      yield* this.mem;
      return;
    }
    const fd = this.fd;
    let pos = 0;
    while (pos < this.bytes) {
      const buf = Buffer.allocUnsafe(Math.min(READ_BYTES, this.bytes - pos));
      const n = await new Promise<number>((ok, fail) => read(fd, buf, 0, buf.length, pos, (err, got) => (err ? fail(err) : ok(got))));
      if (n === 0) throw new Error(`spool: ${this.file ?? ''} ended early`);
      pos += n;
      yield buf.subarray(0, n);
    }
  }

  dispose(): void {
    this.mem = [];
    if (this.fd !== null) {
      closeSync(this.fd);
      this.fd = null;
      try {
        if (this.file) unlinkSync(this.file);
      } catch {
        // Already gone: the whole folder is removed when the proxy closes.
      }
    }
  }
}

function writeAll(fd: number, b: Buffer): void {
  let off = 0;
  while (off < b.length) off += writeSync(fd, b, off, b.length - off);
}

/** File names in a private folder (made 0700 by mkdtemp). */
export function spoolDir(path: string): SpoolDir {
  let n = 0;
  return { path, next: () => join(path, `${process.pid}-${n++}.part`) };
}
