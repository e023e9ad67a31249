import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { grouped } from '../../../shared/grouped';

/**
 * Where an export is written, piece by piece: a session of a hundred thousand items makes a document
 * of hundreds of megabytes, which is never held as one string.
 */
export interface Sink {
  write(text: string): Promise<void>;
}

/** Pieces are gathered up to this many characters before a write: many small writes cost more than one. */
const BATCH = 1 << 16;

/**
 * Writes to a temporary file beside `path` and renames it into place at close(): a failed export
 * leaves no half-written document, and an existing one stays whole until the new one is complete.
 */
export class FileSink implements Sink {
  private readonly tmp: string;
  private readonly stream: WriteStream;
  private pending: string[] = [];
  private size = 0;
  private failure: Error | null = null;

  constructor(readonly path: string) {
    this.tmp = join(dirname(path), `.${basename(path)}.${process.pid}.partial`);
    this.stream = createWriteStream(this.tmp, { flags: 'wx' });
    this.stream.on('error', (err) => (this.failure = err));
  }

  async write(text: string): Promise<void> {
    this.pending.push(text);
    this.size += text.length;
    if (this.size >= BATCH) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.failure) throw this.failure;
    const chunk = this.pending.join('');
    this.pending = [];
    this.size = 0;
    // once() rejects on 'error' and removes its listeners either way.
    if (chunk.length > 0 && !this.stream.write(chunk)) await once(this.stream, 'drain');
  }

  /** Finishes the file and moves it to its path. */
  async close(): Promise<void> {
    await this.flush();
    await new Promise<void>((resolve, reject) => {
      this.stream.once('error', reject);
      this.stream.end(resolve);
    });
    if (this.failure) throw this.failure;
    await rename(this.tmp, this.path);
  }

  /** Drops the temporary file. */
  async abort(): Promise<void> {
    this.stream.destroy();
    await rm(this.tmp, { force: true });
  }
}

/** A document past the most a StringSink holds. */
export class TooLarge extends Error {}

/** Collects the document (the web host returns it for download; tests read it), up to `max` characters. */
export class StringSink implements Sink {
  private readonly parts: string[] = [];
  private size = 0;
  constructor(private readonly max = Number.POSITIVE_INFINITY) {}
  async write(text: string): Promise<void> {
    this.size += text.length;
    if (this.size > this.max) throw new TooLarge(`the document is over ${grouped(this.max)} characters`);
    this.parts.push(text);
  }
  text(): string {
    return this.parts.join('');
  }
}

/** Writes nothing: the preview runs the export only for what it would redact. */
export class NullSink implements Sink {
  async write(): Promise<void> {}
}
