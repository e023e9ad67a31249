import { stat } from 'node:fs/promises';
import type { FormatId } from '../importers/types';
import { PREPARED_MS, type ApiOutput, type ProgressEvent } from '../../shared/api/contract';
import type { OpenSession, SessionRegistry } from './sessions';

/**
 * How long an open begun for a session the host was started with waits to be taken: a page or a
 * window loads in a second or two; one that never asks (closed at once) leaves nothing held long.
 */
export const WARM_MS = 30_000;

/**
 * Largest file read because the UI says the user is reaching for it (`prepare`): a real session of
 * a few megabytes reads in a tenth of a second or two, about the time from pointing at a row to
 * clicking it. A larger file would cost more than it saves when it is not clicked, and a very large
 * one opens with a first view of its head anyway.
 */
export const PREPARE_MAX_BYTES = 8 * 1024 * 1024;

interface Waiting {
  readonly captures: readonly string[];
  readonly open: Promise<OpenSession | null>;
  readonly timer: ReturnType<typeof setTimeout>;
  /** Begun by `prepare` (a guess), not for a session the host was started with. */
  readonly guess: boolean;
}

/** What `prepare` did: began reading, was reading or holding it already, or left it to the open (why). The contract's list, not a copy. */
type Prepared = ApiOutput<'prepareSession'>['prepared'];

/**
 * Opens begun before anyone asks. A host started with a session (`palimpsest serve FILE`, the app
 * given a file) reads the one its UI opens at once while its page or window loads (a second or
 * more, about as long as the read of a real session), and the first openSession of that path
 * takes the open instead of starting one. An open not taken in WARM_MS is closed. One that failed
 * is not taken: the caller's own open reports why, as it would have. The same holds for the
 * session the library's user is reaching for (`prepare`), a guess held to one at a time.
 */
export class WarmOpens implements Disposable {
  private readonly waiting = new Map<string, Waiting>();
  /** The path of the one guess held (begun or read, not yet taken). */
  private guessed: string | null = null;
  /** The guess being read, until its open settles. */
  private reading: string | null = null;
  /** The guess asked for while another was still being read: begun once that one is in. */
  private queued: string | null = null;
  private disposed = false;

  constructor(
    private readonly registry: SessionRegistry,
    private readonly onProgress?: (e: ProgressEvent) => void,
  ) {}

  /** Begins opening `path` (with `captures` joined) for the first openSession that names it. */
  start(path: string, captures: readonly string[] = []): void {
    if (this.waiting.has(path)) return;
    this.begin(path, captures, WARM_MS, false);
  }

  /**
   * The UI says the user is reaching for `path` (pointing at its row, or its row picked with the
   * keyboard): read it now, for the openSession that may follow. One guess at a time: a guess asked
   * for while another is read waits for it (two reads at once would slow the one that is clicked),
   * and a new guess lets the last one go. Only a file the host may open, of at most
   * PREPARE_MAX_BYTES, is read; a read that fails is not taken, so the open that follows says why.
   */
  async prepare(path: string): Promise<Prepared> {
    if (this.disposed) return 'not allowed';
    if (this.waiting.has(path)) return 'waiting';
    // A path the host may not open is not looked at: the answer would tell whether it exists.
    if (!(await this.registry.isAllowed(path))) return 'not allowed';
    const info = await stat(path).catch(() => null);
    if (!info?.isFile()) return 'not a file';
    if (info.size > PREPARE_MAX_BYTES) return 'too large';
    // The stat awaited: another call may have begun it meanwhile, or the host closed.
    if (this.waiting.has(path)) return 'waiting';
    if (this.disposed) return 'not allowed';
    if (this.reading !== null) {
      this.queued = path;
      return 'next';
    }
    this.guess(path);
    return 'started';
  }

  /**
   * An open of another session than the guess: the guess was wrong, and its memory and slot go.
   * Resolves once they have (the guess's read ended and it is closed); null: there was no guess.
   */
  forget(path: string): Promise<void> | null {
    this.queued = null;
    return this.guessed !== null && this.guessed !== path ? this.drop(this.guessed) : null;
  }

  private guess(path: string): void {
    if (this.guessed !== null) void this.drop(this.guessed);
    this.guessed = path;
    this.reading = path;
    const open = this.begin(path, [], PREPARED_MS, true);
    // The guess asked for meanwhile, if any, is begun once this read is in.
    void open.then(() => {
      this.reading = null;
      const next = this.queued;
      this.queued = null;
      if (next !== null && !this.disposed && !this.waiting.has(next)) this.guess(next);
    });
  }

  private begin(path: string, captures: readonly string[], ms: number, guess: boolean): Promise<OpenSession | null> {
    const open = this.registry.open(path, undefined, this.onProgress, captures).catch(() => null);
    const timer = setTimeout(() => void this.drop(path), ms);
    // A host closing does not wait for an open nobody took.
    timer.unref();
    this.waiting.set(path, { captures, open, timer, guess });
    return open;
  }

  /**
   * The open begun for this path and these captures, once (null: none was, it failed, or it was
   * taken). An open of another format or of one session of a database is the caller's own.
   */
  async take(
    path: string,
    format: FormatId | undefined,
    session: string | undefined,
    captures: readonly string[],
  ): Promise<OpenSession | null> {
    const w = this.waiting.get(path);
    if (!w || format !== undefined || session !== undefined || !sameList(w.captures, captures)) return null;
    this.letGo(path, w);
    return w.open;
  }

  private drop(path: string): Promise<void> {
    const w = this.waiting.get(path);
    if (!w) return Promise.resolve();
    this.letGo(path, w);
    return w.open.then((s) => {
      if (s) this.registry.close(s.id);
    });
  }

  private letGo(path: string, w: Waiting): void {
    this.waiting.delete(path);
    clearTimeout(w.timer);
    if (w.guess && this.guessed === path) this.guessed = null;
  }

  /** Closes the opens nobody took (the registry closes the rest with itself). */
  [Symbol.dispose](): void {
    this.disposed = true;
    this.queued = null;
    for (const path of [...this.waiting.keys()]) void this.drop(path);
  }
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
