import { isZstdPath } from '../reader';
import { isJsonDocument } from '../reader/document';
import { closeQuietly, IoFailure, openForReading } from '../reader/io';
import { afterLines } from './parallel-load';

/*
 * The prefix of a session file that a first view reads (LoadOptions.prefixBytes): whole lines
 * only, so that the prefix reads as the file would had its writer stopped there. A compressed
 * file and a JSON document have no line to stop at that this could find cheaply: they are read
 * whole.
 */

/**
 * Where the read of a prefix of about `bytes` of the file ends: after the first line end at or
 * after `bytes`. null when the file is to be read whole: it is no longer than that, it has no line
 * end after that point, or it is not a plain file of lines.
 */
export async function prefixEnd(path: string, size: number, bytes: number): Promise<number | null> {
  if (bytes <= 0 || bytes >= size || isZstdPath(path) || (await isJsonDocument(path))) return null;
  const fh = await openForReading(path);
  if (fh instanceof IoFailure) return null;
  try {
    const end = await afterLines(fh, path, bytes - 1, 1);
    return end === null || end >= size ? null : end;
  } finally {
    await closeQuietly(fh);
  }
}
