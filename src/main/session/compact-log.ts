import { EVENT_KINDS, type EventBody, type EventKind, type LogEvent } from '../../shared/model/event';
import type { EventLog } from '../../shared/model/event-log';
import { ByteArena, type ArenaPart } from './byte-arena';
import { CallHeads, type CallHeadsPart } from './call-heads';
import { elideEvent } from './elide';
import { ItemHeads, type ItemHeadsPart } from './item-heads';
import { LogItemEvent } from './log-item';

/** Makes the event a line is by itself (the importer's `lineEvent`); null when it is none. */
export type LineConversion = (value: Record<string, unknown>) => EventBody | null;

const KIND_INDEX: ReadonlyMap<string, number> = new Map(EVENT_KINDS.map((k, i) => [k, i]));
/** In the kinds column: the line's event is kept elided (its long texts cut, elide.ts), so `at` elides it again. */
const ELIDED = 0x80;
const KIND_MASK = 0x7f;
if (EVENT_KINDS.length > KIND_MASK) throw new Error('CompactLog: more event kinds than its kinds column holds.');

/**
 * Events a compact log keeps once built, the last of each `seq % RECENT_EVENTS` (a power of two):
 * stepping from one model view to the next reads mostly the same items again (a view holds up to
 * about 1,400 items over a few thousand seqs on e1m), and a search or a token count asks an event
 * twice in a row. Each then costs its parse once, not at every view.
 */
export const RECENT_EVENTS = 16_384;

/** How a compact log holds its events (for tests and the bench). */
export interface CompactLogStats {
  readonly events: number;
  /** Events kept as their source line's bytes, rebuilt on `at`. */
  readonly inArena: number;
  /** Events kept as objects. */
  readonly objects: number;
  /** Bytes of the arena's chunks (off the JS heap). */
  readonly arenaBytes: number;
}

/**
 * A compact log under construction as another thread hands it over (a byte range of a file read in
 * parallel): typed arrays and Buffers, transferable, and the few events kept as objects.
 */
export interface CompactLogPart extends Columns {
  readonly objects: readonly LogEvent[];
  readonly arena: ArenaPart;
  readonly items: ItemHeadsPart;
  readonly calls: CallHeadsPart;
}

/**
 * Builds a CompactLog, one event at a time; seqs are given in push order. The loader decides
 * which events may live as bytes (docs/performance.md, "The compact log").
 */
export class CompactLogBuilder {
  private kinds = new Uint8Array(1024);
  /** Per seq: an arena ref (≥ 0) or, for a kept object, -1 - its index in `objects`. */
  private refs = new Int32Array(1024);
  /** Per seq: 0 for no `branch` field, else 1 + its index in `branchNames`; null until a branch is seen. */
  private branches: Uint32Array | null = null;
  private readonly branchNames: string[] = [];
  private readonly branchIndex = new Map<string, number>();
  private readonly objects: LogEvent[] = [];
  private readonly arena = new ByteArena();
  private readonly itemHeads = new ItemHeads();
  private readonly callHeads = new CallHeads();
  private n = 0;

  get length(): number {
    return this.n;
  }

  /**
   * Appends the next event and returns its seq. With `line` (the source line's bytes,
   * `line[start, end)`), the bytes are kept instead of the event: the caller vouches that the
   * line converts, alone, to exactly this event but its seq — or, with `elided`, to the event
   * that elideEvent made this one from. Without, the event is kept and its `seq` is set in place
   * (the loader hands it over, as to the array log).
   */
  push(event: EventBody, line: Uint8Array | null, start = 0, end = line?.length ?? 0, elided = false): number {
    const kind = KIND_INDEX.get(event.kind);
    if (kind === undefined) throw new Error(`CompactLog: unknown event kind ${JSON.stringify(event.kind)}.`);
    if (this.n === this.kinds.length) this.grow();
    const seq = this.n++;
    this.kinds[seq] = line !== null && elided ? kind | ELIDED : kind;
    if (event.branch !== undefined) this.setBranch(seq, event.branch);
    if (line !== null) {
      this.refs[seq] = this.arena.put(line, start, end);
      if (event.kind === 'item') this.itemHeads.note(seq, event);
      else if (event.kind === 'request') this.callHeads.noteRequest(seq, event);
      else if (event.kind === 'response') this.callHeads.noteResponse(seq, event);
    } else {
      (event as { seq: number }).seq = seq;
      this.refs[seq] = -1 - this.objects.length;
      this.objects.push(event as LogEvent);
    }
    return seq;
  }

  /** The finished log; `convert` rebuilds the events kept as lines. The builder is not used after. */
  finish(convert: LineConversion): CompactLog {
    this.arena.trim();
    const columns = {
      kinds: this.kinds.slice(0, this.n),
      refs: this.refs.slice(0, this.n),
      branches: this.branches?.slice(0, this.n) ?? null,
      branchNames: this.branchNames,
    };
    this.itemHeads.trim(this.n);
    this.callHeads.trim(this.n);
    return new CompactLog(this.n, columns, this.objects, this.arena, this.itemHeads, this.callHeads, convert);
  }

  /** What was built, to hand to another thread; the builder is not used after. */
  export(): CompactLogPart {
    const n = this.n;
    return {
      kinds: this.kinds.slice(0, n),
      refs: this.refs.slice(0, n),
      branches: this.branches?.slice(0, n) ?? null,
      branchNames: this.branchNames,
      objects: this.objects,
      arena: this.arena.export(),
      items: this.itemHeads.export(n),
      calls: this.callHeads.export(n),
    };
  }

  /**
   * Appends the events another builder made (exported, perhaps by another thread), as if they had
   * been pushed here in order: the part's seq s becomes `length + s`.
   */
  adopt(part: CompactLogPart): void {
    const base = this.n;
    const m = part.kinds.length;
    while (base + m > this.kinds.length) this.grow();
    this.kinds.set(part.kinds, base);
    const arenaBase = this.arena.adopt(part.arena);
    const objectBase = this.objects.length;
    for (let s = 0; s < m; s++) {
      const ref = part.refs[s] as number;
      if (ref >= 0) {
        this.refs[base + s] = arenaBase + ref;
        continue;
      }
      const event = part.objects[-1 - ref] as LogEvent;
      (event as { seq: number }).seq = base + s;
      this.refs[base + s] = ref - objectBase;
      this.objects.push(event);
    }
    const branches = part.branches;
    if (branches !== null) {
      for (let s = 0; s < m; s++) {
        const b = branches[s] as number;
        if (b !== 0) this.setBranch(base + s, part.branchNames[b - 1] as string);
      }
    }
    this.itemHeads.adopt(part.items, base);
    this.callHeads.adopt(part.calls, base);
    this.n = base + m;
  }

  private setBranch(seq: number, name: string): void {
    let index = this.branchIndex.get(name);
    if (index === undefined) {
      index = this.branchNames.push(name);
      this.branchIndex.set(name, index);
    }
    // Most sessions never name a branch: the column exists from the first event that does.
    this.branches ??= new Uint32Array(this.kinds.length);
    this.branches[seq] = index;
  }

  private grow(): void {
    const kinds = new Uint8Array(this.kinds.length * 2);
    kinds.set(this.kinds);
    this.kinds = kinds;
    const refs = new Int32Array(this.refs.length * 2);
    refs.set(this.refs);
    this.refs = refs;
    if (this.branches) {
      const branches = new Uint32Array(this.kinds.length);
      branches.set(this.branches);
      this.branches = branches;
    }
  }
}

interface Columns {
  readonly kinds: Uint8Array;
  readonly refs: Int32Array;
  readonly branches: Uint32Array | null;
  readonly branchNames: readonly string[];
}

/**
 * An event log that keeps most events as the bytes of their source line in a ByteArena — no
 * object graph per event for the garbage collector to copy and trace — and builds such an event
 * again, with its seq, on `at`. Events the line alone does not give (seqs rewritten, references
 * translated, long texts cut from long lines, other importers) stay objects. An arena event is
 * built again on `at` unless it is one of the RECENT_EVENTS last used: callers do not hold on to
 * events, compare them by identity or change them (EventLog).
 */
export class CompactLog implements EventLog {
  private readonly kinds: Uint8Array;
  private readonly refs: Int32Array;
  private readonly branches: Uint32Array | null;
  private readonly branchNames: readonly string[];
  /** The events built last: slot `seq % RECENT_EVENTS` holds the last one built of those seqs. */
  private readonly recentSeqs = new Int32Array(RECENT_EVENTS).fill(-1);
  private readonly recentEvents = new Array<LogEvent | undefined>(RECENT_EVENTS);

  constructor(
    readonly length: number,
    columns: Columns,
    private readonly objects: readonly LogEvent[],
    private readonly arena: ByteArena,
    private readonly itemHeads: ItemHeads,
    private readonly callHeads: CallHeads,
    private readonly convert: LineConversion,
  ) {
    ({ kinds: this.kinds, refs: this.refs, branches: this.branches, branchNames: this.branchNames } = columns);
  }

  /** Whether the log has an event with this seq (a whole number in range). */
  private has(seq: number): boolean {
    return seq >= 0 && seq < this.length && Number.isInteger(seq);
  }

  at(seq: number): LogEvent | undefined {
    if (!this.has(seq)) return undefined;
    const ref = this.refs[seq] as number;
    if (ref < 0) return this.objects[-1 - ref];
    // Direct-mapped by seq: events close together in the log (a view's items) take different slots.
    const slot = seq & (RECENT_EVENTS - 1);
    if (this.recentSeqs[slot] === seq) return this.recentEvents[slot] as LogEvent;
    const event = this.build(seq, ref);
    this.recentSeqs[slot] = seq;
    this.recentEvents[slot] = event;
    return event;
  }

  /**
   * The text of the line the event at seq was kept as, or null when it is kept as an object (a
   * search may look at it before it pays for a parse).
   */
  lineText(seq: number): string | null {
    if (!this.has(seq)) return null;
    const ref = this.refs[seq] as number;
    return ref < 0 ? null : this.arena.text(ref);
  }

  /**
   * The parsed line the event at seq was kept as, or null when it is kept as an object: the whole
   * line, long texts included, without reading the file again (LoadedSession.hydrate).
   */
  lineValue(seq: number): Record<string, unknown> | null {
    const text = this.lineText(seq);
    return text === null ? null : (JSON.parse(text) as Record<string, unknown>);
  }

  /** The event at seq made again from its line. */
  private build(seq: number, ref: number): LogEvent {
    const converted = this.convert(JSON.parse(this.arena.text(ref)) as Record<string, unknown>);
    // The line converted when it was read and the bytes have not changed since: this is a bug.
    if (converted === null) throw new Error(`CompactLog: the line of seq ${seq} no longer converts to an event.`);
    const event = ((this.kinds[seq] as number) & ELIDED) !== 0 ? elideEvent(converted) : converted;
    (event as { seq: number }).seq = seq;
    return event as LogEvent;
  }

  /**
   * The event as replay reads it: a plain item event (ItemHeads) with a LogItem, whose blocks are
   * read from the line only when asked for; a plain request or response from its head (CallHeads);
   * any other event as `at` builds it.
   */
  shallowAt(seq: number): LogEvent | undefined {
    const item = this.itemHeads.item(seq, this);
    if (item) return new LogItemEvent(item, seq, this);
    return this.callHeads.event(seq, this) ?? this.at(seq);
  }

  /** The kind of the event with this seq, from its column (no event built); undefined when there is none. */
  kindAt(seq: number): EventKind | undefined {
    if (!this.has(seq)) return undefined;
    return EVENT_KINDS[(this.kinds[seq] as number) & KIND_MASK];
  }

  /** The `branch` field of the event with this seq, from its column (undefined: none, or no such event). */
  branchAt(seq: number): string | undefined {
    if (this.branches === null || !this.has(seq)) return undefined;
    const index = this.branches[seq] as number;
    return index === 0 ? undefined : this.branchNames[index - 1];
  }

  *[Symbol.iterator](): Iterator<LogEvent> {
    for (let seq = 0; seq < this.length; seq++) yield this.at(seq) as LogEvent;
  }

  stats(): CompactLogStats {
    return { events: this.length, inArena: this.arena.size, objects: this.objects.length, arenaBytes: this.arena.allocatedBytes };
  }
}
