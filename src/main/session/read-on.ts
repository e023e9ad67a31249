import { open, stat } from 'node:fs/promises';
import type { Diagnostic } from '../../shared/model/diagnostic';
import type { FileImport, FormatId, Importer, SessionImport } from '../importers/types';
import { JsonlPipeline } from '../reader/pipeline';
import type { JsonLine, ReadStats } from '../reader/types';
import { forkState, UnforkableState } from './fork-state';
import type { LogBuilder } from './log-builder';
import type { LoadedSession, SessionFile } from './types';

/*
 * Reading on: a followed session takes the lines appended to its last file without being read
 * again from the start. A load that may read on (LoadOptions.resumable) keeps its import open —
 * the importer's state after the last complete line, and the log it wrote — and ends a copy of it
 * instead (forkState): the copy writes what an import writes at the end of a file (responses
 * still open, findings counted over the file) into a copy of the log, and the session is made
 * from that copy. Appended lines then go to the open import, and a new copy is ended. So the
 * session read on is, event for event, what a fresh load of the same bytes makes: an import reads
 * lines in order and what it emits for a line depends only on the lines before it, and the end is
 * the same end run on the same state.
 *
 * It reads on only when that holds as simply as that: the session's files other than the last
 * are as they were, no file was added, the appended bytes are whole lines that the reader reads
 * with nothing to report (no blank, broken or over-long line: the reader's findings of a file are
 * summed up at its end), and the format is one whose import is known to fork (the tests read real
 * sessions of each on in pieces). Otherwise `readOn` answers null and the caller loads again.
 */

/** The formats whose imports read on; others are read again from the start on every change. */
export const READ_ON_FORMATS: ReadonlySet<FormatId> = new Set(['claude-code', 'codex']);

/** What a load hands over when it may read on: its open import, positioned after the last whole line of its last file. */
export interface OpenImport {
  /** The importer (a constant: shared, never copied). */
  readonly importer: Importer;
  readonly builder: LogBuilder;
  readonly session: SessionImport;
  readonly file: FileImport;
  /** The session's files, the last one as read so far. */
  readonly files: readonly SessionFile[];
  /** The session's files as the importer names them now (companion files found later mean a load again). */
  listFiles(): Promise<readonly string[]>;
  /** Makes the loaded session from a finished log (load.ts). */
  finish(builder: LogBuilder, files: readonly SessionFile[]): LoadedSession;
}

/** Whether the byte before `offset` of `path` is a line feed: the read ended with a whole line. */
export async function endsWithWholeLine(path: string, offset: number): Promise<boolean> {
  if (offset === 0) return false;
  const fh = await open(path, 'r').catch(() => null);
  if (!fh) return false;
  try {
    const b = Buffer.alloc(1);
    const { bytesRead } = await fh.read(b, 0, 1, offset - 1);
    return bytesRead === 1 && b[0] === 0x0a;
  } finally {
    await fh.close();
  }
}

/** The import kept open after a load, and the sessions made from it. */
export class ReadOn {
  private files: SessionFile[];
  /** Bumped at each read-on: a session made before the latest cannot read on (the import has gone past it). */
  private generation = 0;

  constructor(private readonly o: OpenImport) {
    this.files = [...o.files];
  }

  /** The session as read so far: a copy of the open import, ended. Throws UnforkableState when the import cannot be copied. */
  session(): LoadedSession {
    const { builder, session, file, importer } = this.o;
    const log = builder.fork();
    const copy = forkState(
      { session, file },
      new Map<object, object>([
        [builder, log],
        [importer, importer],
      ]),
    );
    copy.file.end();
    copy.session.end();
    const loaded = this.o.finish(log, this.files);
    const generation = this.generation;
    return { ...loaded, readOn: () => (generation === this.generation ? this.readOn() : Promise.resolve(null)) };
  }

  /** The session with the whole lines appended since, or null when it must be loaded again (see the top of this file). */
  private async readOn(): Promise<LoadedSession | null> {
    const last = this.files[this.files.length - 1] as SessionFile;
    for (const f of this.files.slice(0, -1)) if ((await stat(f.path).catch(() => null))?.size !== f.bytes) return null;
    const names = await this.o.listFiles();
    if (names.length !== this.files.length || names.some((n, i) => n !== this.files[i]?.path)) return null;
    const size = (await stat(last.path).catch(() => null))?.size ?? -1;
    if (size < last.bytes) return null;
    // Nothing whole since (bytes written during the last read, which read past them): the same session again.
    if (size === last.bytes) return this.sessionOrNull();
    const bytes = await readFrom(last.path, last.bytes, size - last.bytes);
    const whole = bytes.lastIndexOf(0x0a) + 1;
    if (whole === 0) return null;
    const lines: JsonLine[] = [];
    const found: Diagnostic[] = [];
    const pipeline = new JsonlPipeline(
      last.path,
      // A line's bytes are valid only during this call; the array log never keeps them.
      (l: JsonLine) => void lines.push({ value: l.value, line: l.line, offset: l.offset, length: l.length }),
      (d) => void found.push(d),
      {},
      false,
      { line: last.stats.lines + 1, offset: last.bytes },
    );
    pipeline.push(bytes.subarray(0, whole));
    const stats = pipeline.end();
    if (found.length > 0 || stats.skipped > 0) return null;
    const { builder, file } = this.o;
    builder.currentPath = last.path;
    builder.currentIndex = last.index;
    for (const l of lines) file.line(l);
    const read: ReadStats = {
      bytes: last.stats.bytes + whole,
      lines: last.stats.lines + stats.lines,
      records: last.stats.records + stats.records,
      skipped: last.stats.skipped,
    };
    this.files = [...this.files.slice(0, -1), { ...last, bytes: last.bytes + whole, stats: read }];
    this.generation++;
    return this.sessionOrNull();
  }

  private sessionOrNull(): LoadedSession | null {
    try {
      return this.session();
    } catch (err) {
      if (err instanceof UnforkableState) return null;
      throw err;
    }
  }
}

async function readFrom(path: string, offset: number, length: number): Promise<Buffer> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(length);
    let got = 0;
    while (got < length) {
      const { bytesRead } = await fh.read(buf, got, length - got, offset + got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return buf.subarray(0, got);
  } finally {
    await fh.close();
  }
}
