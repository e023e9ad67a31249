import type { SourceLoc } from '../../shared/model/event';

/** Locations as another thread hands them over: typed arrays (transferable). */
export interface LocationsPart {
  readonly files: Uint32Array;
  readonly lines: Float64Array;
  readonly offsets: Float64Array;
  readonly lengths: Uint32Array;
}

/**
 * Where each event of a log came from — file index, 1-based line, byte offset and length — in
 * typed arrays indexed by seq, grown by doubling, rather than an object on every event: on e1m
 * (1 M small events) that was 55 MB less heap after a load (the history of docs/performance.md).
 * Offsets and lines are doubles, exact up to 2^53, so no file is too large; file indices and
 * lengths are 32-bit (the reader skips, and never emits, a line longer than a string can be, far
 * below 4 GiB).
 */
export class EventLocations {
  private files = new Uint32Array(1024);
  private lines = new Float64Array(1024);
  private offsets = new Float64Array(1024);
  private lengths = new Uint32Array(1024);
  private n = 0;

  get size(): number {
    return this.n;
  }

  /** Records the location of the next seq; returns that seq. */
  push(file: number, line: number, offset: number, length: number): number {
    if (this.n === this.lines.length) this.grow();
    const i = this.n++;
    this.files[i] = file;
    this.lines[i] = line;
    this.offsets[i] = offset;
    this.lengths[i] = length;
    return i;
  }

  /** The location of `seq`, or null when there is no such event. */
  of(seq: number): SourceLoc | null {
    if (!(seq >= 0 && seq < this.n) || !Number.isInteger(seq)) return null;
    return {
      file: this.files[seq] as number,
      line: this.lines[seq] as number,
      offset: this.offsets[seq] as number,
      length: this.lengths[seq] as number,
    };
  }

  /** The locations, to hand to another thread; not used after. */
  export(): LocationsPart {
    this.trim();
    return { files: this.files, lines: this.lines, offsets: this.offsets, lengths: this.lengths };
  }

  /** Appends another log's locations, its line numbers moved on by `lineBase` (a byte range read from line 1). */
  adopt(part: LocationsPart, lineBase: number): void {
    const m = part.lines.length;
    while (this.n + m > this.lines.length) this.grow();
    this.files.set(part.files, this.n);
    this.offsets.set(part.offsets, this.n);
    this.lengths.set(part.lengths, this.n);
    for (let i = 0; i < m; i++) this.lines[this.n + i] = (part.lines[i] as number) + lineBase;
    this.n += m;
  }

  /** A copy that grows apart from this one (a session read on: read-on.ts). */
  copy(): EventLocations {
    const c = new EventLocations();
    c.files = this.files.slice(0, Math.max(this.n, 1024));
    c.lines = this.lines.slice(0, Math.max(this.n, 1024));
    c.offsets = this.offsets.slice(0, Math.max(this.n, 1024));
    c.lengths = this.lengths.slice(0, Math.max(this.n, 1024));
    c.n = this.n;
    return c;
  }

  /** Releases the slack of the doubling once the log is complete. */
  trim(): void {
    this.files = this.files.slice(0, this.n);
    this.lines = this.lines.slice(0, this.n);
    this.offsets = this.offsets.slice(0, this.n);
    this.lengths = this.lengths.slice(0, this.n);
  }

  private grow(): void {
    const size = Math.max(1024, this.lines.length * 2);
    for (const key of ['files', 'lengths'] as const) {
      const next = new Uint32Array(size);
      next.set(this[key]);
      this[key] = next;
    }
    for (const key of ['lines', 'offsets'] as const) {
      const next = new Float64Array(size);
      next.set(this[key]);
      this[key] = next;
    }
  }
}
