import { watch, type FSWatcher } from 'node:fs';

/**
 * Tells its owner that one of a set of paths (files and folders) may have changed. It uses
 * fs.watch for speed and polls as well, on a timer: fs.watch misses events on network and
 * overlay file systems and in containers, loses a file replaced by a rename, and cannot watch a
 * path that does not exist yet (a subagent folder, a capture to come). The owner decides what
 * changed; a notice here is only a reason to look. It owns its watchers and its timer: dispose().
 */
export class ChangeWatch {
  private readonly watchers = new Map<string, FSWatcher>();
  private readonly timer: NodeJS.Timeout;
  private disposed = false;

  constructor(
    private readonly notify: () => void,
    pollMs: number,
  ) {
    // The poll keeps the process alive while it follows (`inspect --follow` waits on nothing else).
    this.timer = setInterval(() => this.notify(), pollMs);
  }

  /** Watch exactly these paths from now on (those that exist; the poll covers the rest). */
  set(paths: readonly string[]): void {
    if (this.disposed) return;
    const wanted = new Set(paths);
    for (const [p, w] of this.watchers)
      if (!wanted.has(p)) {
        w.close();
        this.watchers.delete(p);
      }
    for (const p of wanted) {
      if (this.watchers.has(p)) continue;
      try {
        const w = watch(p, { persistent: false }, () => this.notify());
        // A watched path that goes away (a file replaced, a folder removed) is dropped; the poll sees the rest.
        w.on('error', () => {
          w.close();
          if (this.watchers.get(p) === w) this.watchers.delete(p);
        });
        this.watchers.set(p, w);
      } catch {
        // Missing, or not watchable here: the poll covers it.
      }
    }
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    clearInterval(this.timer);
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }
}
