import type { Diagnostic } from '../../shared/model/diagnostic';
import type { EventBody, LogEvent } from '../../shared/model/event';
import type { EventLog } from '../../shared/model/event-log';
import type { ImportSink } from '../importers/types';
import type { JsonLine } from '../reader/types';
import { CompactLogBuilder, type CompactLogPart, type LineConversion } from './compact-log';
import { elideBlocksInPlace, elideEvent } from './elide';
import { EventLocations, type LocationsPart } from './locations';

/**
 * The longest line a compact log keeps as bytes when its event is elided: beyond it the elided
 * event (a preview of each long text) takes less memory than the line, which holds the whole text.
 */
export const ELIDED_LINE_MAX_BYTES = 1024;

/** What a LogBuilder of a byte range hands over (parallel load): transferable, or plain data. */
export interface LogPart {
  readonly log: CompactLogPart;
  readonly locations: LocationsPart;
}

/** The event log being built; importers write into it as their sink. */
export class LogBuilder implements ImportSink {
  /** The array log, or null when the events go to `compact`. */
  private events: LogEvent[] | null;
  private compact: CompactLogBuilder | null;
  locations = new EventLocations();
  diagnostics: Diagnostic[] = [];
  /** The file being read, for events' locations and for diagnostics that do not name a file. */
  currentPath = '';
  currentIndex = 0;
  /** The chosen importer's `lineEvent`, once it is chosen: without it no line is kept as bytes. */
  lineEvent: LineConversion | null = null;

  /** Whether the events go to a compact log. */
  get compactLog(): boolean {
    return this.compact !== null;
  }

  constructor(compact: boolean) {
    this.events = compact ? null : [];
    this.compact = compact ? new CompactLogBuilder() : null;
  }

  /** Builds an array log after all (the importer keeps no line as bytes); only before the first event. */
  useArrayLog(): void {
    if (this.nextSeq !== 0) throw new Error('LogBuilder.useArrayLog: events were already emitted.');
    this.events ??= [];
    this.compact = null;
  }

  emit(event: EventBody, from: JsonLine, fileIndex?: number, lineAlone?: boolean): number {
    // The importer hands the event over: it is completed in place rather than copied (hot path).
    // An event made from its line alone is the line's own parse, no one else's, so its long texts
    // are cut where they stand; of the kinds a line alone gives (LINE_KINDS), only items have any.
    // Other events may share objects with their importer: elideEvent copies what it cuts.
    let e: EventBody;
    let elided: boolean;
    if (lineAlone === true && event.kind === 'item') {
      e = event;
      elided = elideBlocksInPlace(event.item.blocks);
    } else {
      e = elideEvent(event);
      elided = e !== event;
    }
    let seq: number;
    if (this.compact) {
      // An elided event is its line's event elided again: a short line is kept and elided on
      // reading; a long one stays an object (the object is smaller than the line it elides).
      const keep = lineAlone === true && this.lineEvent !== null && (!elided || from.length <= ELIDED_LINE_MAX_BYTES);
      const bytes = keep ? from.bytes : undefined;
      seq = bytes !== undefined ? this.compact.push(e, bytes, from.start, from.end, elided) : this.compact.push(e, null);
    } else {
      const events = this.events as LogEvent[];
      seq = events.length;
      (e as EventBody & { seq: number }).seq = seq;
      events.push(e as LogEvent);
    }
    const file = fileIndex !== undefined && fileIndex >= 0 && fileIndex <= this.currentIndex ? fileIndex : this.currentIndex;
    this.locations.push(file, from.line, from.offset, from.length);
    return seq;
  }

  /**
   * A builder that starts with this one's events, locations and findings and grows apart from it
   * (a session read on, read-on.ts): the events are shared, as nothing changes an emitted event.
   * Only an array log forks.
   */
  fork(): LogBuilder {
    if (!this.events) throw new Error('LogBuilder.fork: only an array log forks.');
    const b = new LogBuilder(false);
    b.events = this.events.slice();
    b.locations = this.locations.copy();
    b.diagnostics = this.diagnostics.slice();
    b.currentPath = this.currentPath;
    b.currentIndex = this.currentIndex;
    b.lineEvent = this.lineEvent;
    return b;
  }

  /** The finished log. */
  log(): EventLog {
    if (this.events) return this.events;
    // Without a lineEvent no line was kept as bytes, so the stand-in is never called.
    return (this.compact as CompactLogBuilder).finish(this.lineEvent ?? (() => null));
  }

  /** A compact log's events and locations, to hand to another thread; the builder is not used after. */
  export(): LogPart {
    if (!this.compact) throw new Error('LogBuilder.export: only a compact log is handed over.');
    return { log: this.compact.export(), locations: this.locations.export() };
  }

  /**
   * Appends the events another builder of the same file made from the lines that follow (a byte
   * range read in parallel, its lines numbered from 1): as if they had been emitted here.
   */
  adopt(part: LogPart, lineBase: number): void {
    if (!this.compact) throw new Error('LogBuilder.adopt: only a compact log takes a part.');
    this.compact.adopt(part.log);
    this.locations.adopt(part.locations, lineBase);
  }

  diagnostic(d: Parameters<ImportSink['diagnostic']>[0]): void {
    this.diagnostics.push({ ...d, file: d.file === undefined ? this.currentPath : d.file, seqs: d.seqs ?? [] });
  }

  get nextSeq(): number {
    return this.events ? this.events.length : (this.compact as CompactLogBuilder).length;
  }
}
