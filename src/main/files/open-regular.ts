import { closeSync, constants, fstatSync, openSync, readFileSync, statSync, type Stats } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';

/*
 * Every file a user, a session or a spec names is opened here, and only if it is a regular file.
 * Opening a FIFO for reading waits until something writes to it — forever, on one of the four
 * threads of libuv's pool, so four such opens stall every file operation of the process — and a
 * device such as /dev/zero never ends. So: stat first (nothing else is ever opened: opening some
 * devices has effects of its own), then open non-blocking and check the handle again, so that a
 * file swapped for a FIFO between the two is refused instead of waited on.
 */

// Windows has no O_NONBLOCK (and no FIFOs in its file system): there the stat checks alone apply.
const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** What a path that is not a regular file is, in words ("a FIFO"), or null for a regular file. */
export function kindOf(st: Stats): string | null {
  if (st.isFile()) return null;
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** A path that exists but is not a regular file; the message names the path and what it is. */
export class NotRegularFile extends Error {
  constructor(
    readonly path: string,
    readonly kind: string,
  ) {
    super(kind === 'a directory' ? `${path} is a directory, not a file` : `${path} is ${kind}, not a regular file`);
  }
}

/** Throws NotRegularFile unless `st` is a regular file. */
function mustBeRegular(path: string, st: Stats): void {
  const kind = kindOf(st);
  if (kind !== null) throw new NotRegularFile(path, kind);
}

/**
 * A handle on the regular file `path`, read-only. Rejects with NotRegularFile for anything else
 * (the path is not opened then), and with Node's own error (ENOENT, ELOOP, …) when it cannot be.
 */
export async function openRegular(path: string): Promise<FileHandle> {
  mustBeRegular(path, await stat(path));
  const fh = await open(path, READ_FLAGS);
  try {
    mustBeRegular(path, await fh.stat());
  } catch (e) {
    await fh.close().catch(() => undefined);
    throw e;
  }
  return fh;
}

/** openRegular for synchronous readers (discovery's scans): a file descriptor the caller closes. */
export function openRegularSync(path: string): number {
  mustBeRegular(path, statSync(path));
  const fd = openSync(path, READ_FLAGS);
  try {
    mustBeRegular(path, fstatSync(fd));
  } catch (e) {
    closeSync(fd);
    throw e;
  }
  return fd;
}

/** The whole of the regular file `path` as UTF-8; rejects as openRegular does. */
export async function readRegularFile(path: string): Promise<string> {
  const fh = await openRegular(path);
  try {
    return await fh.readFile('utf8');
  } finally {
    await fh.close().catch(() => undefined);
  }
}

/** The first `bytes` bytes of the regular file `path` (fewer when it is shorter); rejects as openRegular does. */
export async function readRegularHead(path: string, bytes: number): Promise<Buffer> {
  const fh = await openRegular(path);
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await fh.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close().catch(() => undefined);
  }
}

/** readRegularFile, synchronously. */
export function readRegularFileSync(path: string): string {
  const fd = openRegularSync(path);
  try {
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/** The `code` of a Node error (ENOENT, ELOOP, …), if it has one. */
export function errnoCode(e: unknown): string | undefined {
  if (typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string') return e.code;
  return undefined;
}

/**
 * Why `path` could not be stat'ed or opened, as a clause after the path: "no such file or
 * directory", "is a symbolic link loop", "is a FIFO, not a regular file", … For messages that
 * must not mistake a loop of links for a missing file.
 */
export function whyUnreadable(path: string, e: unknown): string {
  if (e instanceof NotRegularFile) return e.message;
  switch (errnoCode(e)) {
    case 'ENOENT':
      return `${path}: no such file or directory`;
    case 'ELOOP':
      return `${path} is a symbolic link loop`;
    default:
      return `${path}: ${e instanceof Error ? e.message : String(e)}`;
  }
}
