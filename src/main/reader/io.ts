import type { FileHandle } from 'node:fs/promises';
import { errnoCode, NotRegularFile, openRegular } from '../files/open-regular';

/** A failed file operation, as a value: the reader reports it and carries on. */
export class IoFailure {
  constructor(readonly message: string) {}
}

/** A sentence about why `path` could not be read, for a user rather than a programmer. */
export function describeIoError(path: string, e: unknown): string {
  if (e instanceof NotRegularFile) return `${e.message}.`;
  switch (errnoCode(e)) {
    case 'ENOENT':
      return `The file ${path} does not exist.`;
    case 'EACCES':
    case 'EPERM':
      return `The file ${path} cannot be read: permission denied.`;
    case 'ELOOP':
      return `${path} is a symbolic link loop.`;
    case 'EISDIR':
      return `${path} is a directory, not a file.`;
    case 'EMFILE':
    case 'ENFILE':
      return `The file ${path} cannot be opened now: too many files are open.`;
    default:
      return `The file ${path} could not be read: ${e instanceof Error ? e.message : String(e)}.`;
  }
}

/** A handle on the regular file `path`; a FIFO, a device or a folder is refused, never opened. */
export async function openForReading(path: string): Promise<FileHandle | IoFailure> {
  try {
    return await openRegular(path);
  } catch (e) {
    return new IoFailure(describeIoError(path, e));
  }
}

/** Reads up to `length` bytes into `buf`; `position` null continues from the current position. */
export async function readInto(
  fh: FileHandle,
  path: string,
  buf: Buffer,
  length: number,
  position: number | null,
): Promise<number | IoFailure> {
  try {
    const { bytesRead } = await fh.read(buf, 0, length, position);
    return bytesRead;
  } catch (e) {
    return new IoFailure(describeIoError(path, e));
  }
}

export async function closeQuietly(fh: FileHandle): Promise<void> {
  try {
    await fh.close();
  } catch (e) {
    // Everything wanted was read already; a failed close cannot change the result.
    void e;
  }
}
