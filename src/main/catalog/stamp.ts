import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';

/** Bytes of a file's head hashed to tell an appended file (same head) from a rewritten one. */
export const HEAD_BYTES = 64 * 1024;

/** SHA-256 of the first 64 KiB of a file (all of it when shorter), hex; '' when it cannot be read. */
export function headHash(path: string): string {
  let fd: number | null = null;
  try {
    fd = openSync(path, 'r');
    const buf = Buffer.alloc(HEAD_BYTES);
    let n = 0;
    while (n < HEAD_BYTES) {
      const got = readSync(fd, buf, n, HEAD_BYTES - n, n);
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
