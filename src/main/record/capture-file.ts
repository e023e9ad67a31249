import { mkdir, open, stat, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { CAPTURE_VERSION, type CaptureHeader } from '../capture/format';
import { UsageError } from '../command/args';
import { dataDir } from '../files/data-dir';
import { lineBytes, type Piece } from './line';

/*
 * The capture file: created private (0600, its default folder 0700), never overwritten, only
 * appended to, one whole line at a time. A line is written in several writes (a large body is
 * streamed), so lines are queued: one line is finished before the next starts.
 */

/** `<data dir>/captures/<UTC time>-<pid>.capture.jsonl` */
export function defaultCapturePath(env: NodeJS.ProcessEnv = process.env, now = new Date()): string {
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  return join(dataDir(env), 'captures', `${stamp}-${process.pid}.capture.jsonl`);
}

/** Bytes gathered before each write(2) of a line. */
const WRITE_BYTES = 1024 * 1024;

export class CaptureFile {
  private queue: Promise<void> = Promise.resolve();
  private failure: Error | null = null;
  lines = 0;

  private constructor(
    readonly path: string,
    private readonly fh: FileHandle,
  ) {}

  /**
   * Opens `path` for a new capture and writes the header. An existing file is refused unless it is
   * an empty regular file (nothing is ever overwritten); `createFolder` makes a missing folder 0700.
   */
  static async create(path: string, header: Omit<CaptureHeader, 'type' | 'v'>, createFolder: boolean): Promise<CaptureFile> {
    if (createFolder) await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    let fh: FileHandle;
    try {
      fh = await open(path, 'wx', 0o600);
    } catch (err: unknown) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw new UsageError(`${path}: its folder does not exist`);
      if (code === 'EACCES') throw new UsageError(`${path}: not allowed to create it`);
      if (code !== 'EEXIST') throw new UsageError(`${path}: cannot create it (${code ?? String(err)})`);
      const info = await stat(path).catch(() => null);
      if (!info || !info.isFile()) throw new UsageError(`${path} exists and is not a regular file; name a new file with --out`);
      if (info.size > 0)
        throw new UsageError(`${path} already exists and is not empty; a capture is never overwritten: name a new file with --out`);
      fh = await open(path, 'a');
    }
    const file = new CaptureFile(path, fh);
    await file.append([JSON.stringify({ type: 'capture', v: CAPTURE_VERSION, ...header })]);
    file.lines = 0;
    return file;
  }

  /** Appends one line (pieces from ./line.ts; the line feed is added). Lines never interleave. */
  append(pieces: readonly Piece[]): Promise<void> {
    const next = this.queue.then(async () => {
      if (this.failure) throw this.failure;
      try {
        let parts: Buffer[] = [];
        let size = 0;
        for await (const b of lineBytes(pieces)) {
          parts.push(b);
          size += b.length;
          if (size >= WRITE_BYTES) {
            await this.writeAll(parts, size);
            parts = [];
            size = 0;
          }
        }
        if (size > 0) await this.writeAll(parts, size);
        this.lines++;
      } catch (err: unknown) {
        // A line cut by a failed write would corrupt every line after it: stop writing.
        this.failure = err instanceof Error ? err : new Error(String(err));
        throw this.failure;
      }
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** One writev(2), and what a short write left, until all is written. */
  private async writeAll(parts: Buffer[], size: number): Promise<void> {
    let { bytesWritten } = await this.fh.writev(parts);
    if (bytesWritten === size) return;
    const rest = Buffer.concat(parts).subarray(bytesWritten);
    for (let off = 0; off < rest.length; off += bytesWritten) ({ bytesWritten } = await this.fh.write(rest, off));
  }

  async dispose(): Promise<void> {
    await this.queue;
    await this.fh.close();
  }
}
