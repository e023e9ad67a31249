import { appendFile, mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/*
 * Appends one JSON line to a results file. Node writes a large buffer in several write(2) calls
 * (512 KiB chunks), so two appends in flight at once can interleave inside each other's lines — and
 * run records carry whole request bodies. Appends to one path are therefore queued in this process;
 * the file is only ever appended to, never rewritten.
 */

const queues = new Map<string, Promise<void>>();

export function appendLine(file: string, line: string): Promise<void> {
  const key = resolve(file);
  const prev = queues.get(key) ?? Promise.resolve();
  const next = prev.then(async () => {
    await mkdir(dirname(key), { recursive: true });
    await appendFile(key, line.endsWith('\n') ? line : `${line}\n`, { encoding: 'utf8', flag: 'a' });
  });
  // The queue continues after a failed append (the caller sees the failure); it is dropped when idle.
  const settled = next.catch(() => undefined);
  queues.set(key, settled);
  void settled.then(() => {
    if (queues.get(key) === settled) queues.delete(key);
  });
  return next;
}
