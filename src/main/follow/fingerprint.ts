import { open, stat } from 'node:fs/promises';

/** Bytes kept from the start of each followed file, to tell an append from a rewrite in place. */
const HEAD_BYTES = 4096;

/**
 * What the follower remembers of one followed path between two looks: enough to tell "nothing
 * changed", "lines were appended", "the last line is not finished yet" and "the file was truncated
 * or rewritten" apart without reading the file again.
 */
export interface Fingerprint {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
  readonly isDirectory: boolean;
  /** The file's first bytes (at most HEAD_BYTES); empty for a folder. */
  readonly head: Buffer;
  /** The file is empty or its last byte is a line feed: no line is half written. */
  readonly endsWithLf: boolean;
}

/** The path's fingerprint now; null when it does not exist or cannot be read (that too is a state to compare). */
export async function fingerprint(path: string): Promise<Fingerprint | null> {
  const info = await stat(path).catch(() => null);
  if (!info) return null;
  if (info.isDirectory())
    return { size: 0, mtimeMs: info.mtimeMs, ino: info.ino, isDirectory: true, head: Buffer.alloc(0), endsWithLf: true };
  if (!info.isFile()) return null;
  const handle = await open(path, 'r').catch(() => null);
  if (!handle) return null;
  try {
    const head = Buffer.alloc(Math.min(info.size, HEAD_BYTES));
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const last = Buffer.alloc(1);
    const tail = info.size > 0 ? (await handle.read(last, 0, 1, info.size - 1)).bytesRead : 0;
    return {
      size: info.size,
      mtimeMs: info.mtimeMs,
      ino: info.ino,
      isDirectory: false,
      head: head.subarray(0, bytesRead),
      endsWithLf: info.size === 0 || (tail === 1 && last[0] === 0x0a),
    };
  } finally {
    await handle.close();
  }
}

/** Whether anything a reload would read differs between two fingerprints of one path. */
export function changed(before: Fingerprint | null, after: Fingerprint | null): boolean {
  if (before === null || after === null) return before !== after;
  return before.size !== after.size || before.mtimeMs !== after.mtimeMs || before.ino !== after.ino || !before.head.equals(after.head);
}

/**
 * Why a file was not merely appended to since `before`, or null when it was (or did not change):
 * it shrank, it was replaced by another file, or its first bytes differ (a harness that rewrites
 * its log in place — Codex does on compaction — keeps the size growing but changes what was read).
 */
export function rewritten(path: string, before: Fingerprint | null, after: Fingerprint | null): string | null {
  if (before === null || before.isDirectory || after === null || after.isDirectory) return null;
  if (after.size < before.size) return `${path} was truncated (${before.size} → ${after.size} bytes)`;
  if (after.ino !== before.ino) return `${path} was replaced by another file`;
  if (!after.head.subarray(0, before.head.length).equals(before.head)) return `${path} was rewritten in place`;
  return null;
}
