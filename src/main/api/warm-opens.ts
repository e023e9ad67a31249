import type { FormatId } from '../importers/types';
import type { ProgressEvent } from '../../shared/api/contract';
import type { OpenSession, SessionRegistry } from './sessions';

/**
 * How long an open begun for a session the host was started with waits to be taken: a page or a
 * window loads in a second or two; one that never asks (closed at once) leaves nothing held long.
 */
export const WARM_MS = 30_000;

interface Waiting {
  readonly captures: readonly string[];
  readonly open: Promise<OpenSession | null>;
  readonly timer: ReturnType<typeof setTimeout>;
}

/**
 * Opens begun before anyone asks. A host started with a session (`palimpsest serve FILE`, the app
 * given a file) reads the one its UI opens at once while its page or window loads (a second or
 * more, about as long as the read of a real session), and the first openSession of that path
 * takes the open instead of starting one. An open not taken in WARM_MS is closed. One that failed
 * is not taken: the caller's own open reports why, as it would have.
 */
export class WarmOpens implements Disposable {
  private readonly waiting = new Map<string, Waiting>();

  constructor(
    private readonly registry: SessionRegistry,
    private readonly onProgress?: (e: ProgressEvent) => void,
  ) {}

  /** Begins opening `path` (with `captures` joined) for the first openSession that names it. */
  start(path: string, captures: readonly string[] = []): void {
    if (this.waiting.has(path)) return;
    const open = this.registry.open(path, undefined, this.onProgress, captures).catch(() => null);
    const timer = setTimeout(() => this.drop(path), WARM_MS);
    // A host closing does not wait for an open nobody took.
    timer.unref();
    this.waiting.set(path, { captures, open, timer });
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
    this.waiting.delete(path);
    clearTimeout(w.timer);
    return w.open;
  }

  private drop(path: string): void {
    const w = this.waiting.get(path);
    if (!w) return;
    this.waiting.delete(path);
    void w.open.then((s) => s && this.registry.close(s.id));
  }

  /** Closes the opens nobody took (the registry closes the rest with itself). */
  [Symbol.dispose](): void {
    for (const path of [...this.waiting.keys()]) {
      clearTimeout(this.waiting.get(path)?.timer);
      this.drop(path);
    }
  }
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
