import { statusText, type RecordStats } from './stats';

/*
 * The live status on stderr: one line rewritten in place (`\r`), at most every INTERVAL_MS, and
 * only when stderr is a terminal — a log file or a pipe gets the final summary alone.
 */

const INTERVAL_MS = 250;

export interface StatusOutput {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

export class StatusLine {
  private timer: NodeJS.Timeout | null = null;
  private last = 0;
  private shown = false;

  constructor(
    private readonly stats: RecordStats,
    private readonly out: StatusOutput,
  ) {
    if (out.isTTY) stats.onChange(() => this.schedule());
  }

  private schedule(): void {
    if (this.timer) return;
    const wait = Math.max(0, this.last + INTERVAL_MS - Date.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      this.last = Date.now();
      this.draw();
    }, wait);
    this.timer.unref();
  }

  private draw(): void {
    // \x1b[K clears what a longer earlier line left on the right.
    this.out.write(`\r${statusText(this.stats)}\x1b[K`);
    this.shown = true;
  }

  /** Before other output on stderr: the live line is cleared so text does not run into it. */
  clear(): void {
    if (this.shown) this.out.write('\r\x1b[K');
    this.shown = false;
  }

  /** The last word: the summary on a line of its own. */
  finish(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.stats.onChange(() => undefined);
    this.clear();
    this.out.write(`${statusText(this.stats)}\n`);
  }
}
