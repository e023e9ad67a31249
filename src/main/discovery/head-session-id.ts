import { closeSync, readSync } from 'node:fs';
import { openRegularSync } from '../files/open-regular';

/**
 * The first `"sessionId"` a file names in its first 4 kB, if any: the metadata line of a Gemini CLI
 * chat (or its legacy pretty-printed document), the first line of a Claude Code file. Discovery
 * groups files into sessions by it without parsing whole files.
 */
export function headSessionId(path: string): string | null {
  let fd: number | null = null;
  try {
    fd = openRegularSync(path);
    const buf = Buffer.allocUnsafe(4096);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return /"sessionId":\s*"([^"\\]+)"/.exec(buf.toString('utf8', 0, n))?.[1] ?? null;
  } catch {
    return null;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}
