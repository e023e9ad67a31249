import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';

/** Bytes of a file's head hashed to tell an appended file (same head) from a rewritten one. */
export const HEAD_BYTES = 64 * 1024;

/**
 * SHA-256 of the first `limit` bytes of a file (at most 64 KiB; fewer when it is shorter), hex; ''
 * when it cannot be read. A file indexed when it was shorter than 64 KiB is compared on the bytes it
 * had then, so that an append to a small file is still seen as one.
 */
export function headHash(path: string, limit = HEAD_BYTES): string {
  const want = Math.min(HEAD_BYTES, limit);
  let fd: number | null = null;
  try {
    fd = openSync(path, 'r');
    const buf = Buffer.alloc(want);
    let n = 0;
    while (n < want) {
      const got = readSync(fd, buf, n, want - n, n);
      if (got === 0) break;
      n += got;
    }
    return createHash('sha256').update(buf.subarray(0, n)).digest('hex');
  } catch {
    return '';
  } finally {
    if (fd !== null) closeSync(fd);
  }
}
