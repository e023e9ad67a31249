import { open, type FileHandle } from 'node:fs/promises';

/** A failed file operation, as a value: the reader reports it and carries on. */
export class IoFailure {
  constructor(readonly message: string) {}
}

function errnoCode(e: unknown): string | undefined {
  if (typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string') return e.code;
  return undefined;
}

/** A sentence about why `path` could not be read, for a user rather than a programmer. */
export function describeIoError(path: string, e: unknown): string {
  switch (errnoCode(e)) {
    case 'ENOENT':
      return `The file ${path} does not exist.`;
    case 'EACCES':
    case 'EPERM':
      return `The file ${path} cannot be read: permission denied.`;
    case 'EISDIR':
      return `${path} is a directory, not a file.`;
    case 'EMFILE':
    case 'ENFILE':
      return `The file ${path} cannot be opened now: too many files are open.`;
    default:
      return `The file ${path} could not be read: ${e instanceof Error ? e.message : String(e)}.`;
  }
}

export async function openForReading(path: string): Promise<FileHandle | IoFailure> {
  try {
    const fh = await open(path, 'r');
    const st = await fh.stat().catch((e: unknown) => new IoFailure(describeIoError(path, e)));
    if (st instanceof IoFailure || st.isDirectory()) {
      await closeQuietly(fh);
      return st instanceof IoFailure ? st : new IoFailure(`${path} is a directory, not a file.`);
    }
    return fh;
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
