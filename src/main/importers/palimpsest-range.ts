import type { JsonLine } from '../reader/types';
import { convert, LINE_KINDS } from './palimpsest';
import type { ImportSink } from './types';

/** What a range import found: its events, or why the range must be read on the main thread. */
export interface RangeImportSummary {
  readonly events: number;
  /** The seq the range's first line would carry by the seqs its lines wrote; null when none wrote one. */
  readonly anchor: number | null;
  /** Why the range cannot be taken as it is (null: it can). */
  readonly refusal: string | null;
}

/**
 * The Palimpsest import of a byte range of a session file that does not start the file, on a
 * worker thread (parallel load). It knows neither the seq nor the line number its range starts
 * at, so it takes only what needs neither: lines that are valid v1 events whose written seqs, if
 * any, count on in line order. The first line that is anything else — an unknown kind, an invalid
 * event, a seq out of step — refuses the range, and the main thread reads it with the file's own
 * import (PalimpsestFileImport), which reports it as a sequential load would. The main thread
 * checks `anchor` against the seq the range really starts at (`PalimpsestFileImport.adopt`).
 */
export class PalimpsestRangeImport {
  private events = 0;
  private anchor: number | null = null;
  private refusal: string | null = null;

  constructor(private readonly sink: ImportSink) {}

  /** Whether lines are still taken (false once the range was refused). */
  get open(): boolean {
    return this.refusal === null;
  }

  line(l: JsonLine): void {
    if (this.refusal !== null) return;
    const value = l.value;
    const written = value.seq;
    if (written !== undefined) {
      if (typeof written !== 'number' || !Number.isSafeInteger(written) || written < this.events) {
        this.refusal = `line ${l.line} of the range writes a seq that cannot count on in line order`;
        return;
      }
      this.anchor ??= written - this.events;
      if (written - this.events !== this.anchor) {
        this.refusal = `line ${l.line} of the range writes a seq out of step with the lines before it`;
        return;
      }
    }
    const c = convert(value);
    if (!c.ok) {
      this.refusal = `line ${l.line} of the range is not a valid Palimpsest v1 event`;
      return;
    }
    if (c.badVersion !== undefined) {
      this.refusal = `line ${l.line} of the range names a format version other than 1`;
      return;
    }
    if (c.tooDeep !== undefined) {
      this.refusal = `line ${l.line} of the range has a tool schema nested too deep`;
      return;
    }
    // The file's first import translates nothing and keeps written seqs that count on (adopt checks
    // both): the event is the line's, as `lineEvent` makes it.
    this.sink.emit(c.event, l, undefined, LINE_KINDS.has(c.event.kind));
    this.events++;
  }

  /** Refuses the range for a reason found outside the import (the reader reported something). */
  refuse(why: string): void {
    this.refusal ??= why;
  }

  summary(): RangeImportSummary {
    return { events: this.events, anchor: this.anchor, refusal: this.refusal };
  }
}
