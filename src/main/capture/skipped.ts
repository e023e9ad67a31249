/*
 * The lines a reader could not use, each with its file, line and reason. A file of a million bad
 * lines must not make a million entries: after MAX_SKIPPED_LISTED the rest are only counted, and
 * one last entry says how many there were and where the first of them was.
 */

export const MAX_SKIPPED_LISTED = 1000;

export interface Skipped {
  readonly file: string;
  readonly line: number;
  readonly reason: string;
}

export class SkipList {
  private readonly listed: Skipped[] = [];
  private more = 0;
  private firstMore = 0;

  constructor(private readonly file: string) {}

  add(line: number, reason: string): void {
    if (this.listed.length < MAX_SKIPPED_LISTED) {
      this.listed.push({ file: this.file, line, reason });
      return;
    }
    if (this.more++ === 0) this.firstMore = line;
  }

  /** How many were skipped in all. */
  get count(): number {
    return this.listed.length + this.more;
  }

  /** The first reason given, for an error when nothing could be read. */
  get first(): Skipped | null {
    return this.listed[0] ?? null;
  }

  list(): Skipped[] {
    if (this.more === 0) return [...this.listed];
    const reason = `${this.more} more ${this.more === 1 ? 'line was' : 'lines were'} skipped (not listed), from line ${this.firstMore} on`;
    return [...this.listed, { file: this.file, line: this.firstMore, reason }];
  }
}
