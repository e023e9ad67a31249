import type { EventOf, Finish, Usage } from '../../shared/model/event';
import { SeqIndex } from './seq-index';
import { ShallowEvent, type ShallowSource } from './shallow-event';

/**
 * A plain request as replay reads it from a compact log: an agent call with an id and nothing else
 * (no route, input or compaction), so replay never has to build the line.
 */
export class LogRequestEvent extends ShallowEvent {
  readonly kind = 'request';
  readonly purpose = 'agent';

  constructor(
    readonly id: string,
    seq: number,
    log: ShallowSource,
  ) {
    super(seq, log);
  }
}

/** A plain response (request, finish, usage; no error) as replay reads it from a compact log. */
export class LogResponseEvent extends ShallowEvent {
  readonly kind = 'response';

  constructor(
    readonly request: string,
    readonly finish: Finish | undefined,
    readonly usage: Usage | undefined,
    seq: number,
    log: ShallowSource,
  ) {
    super(seq, log);
  }
}

/** Call heads as another thread hands them over (plain data, structured-clonable). */
export interface CallHeadsPart {
  /** Per seq of the part: its head, or -1. */
  readonly index: Int32Array;
  readonly ids: readonly string[];
  readonly finishOf: readonly number[];
  readonly shapeOf: readonly number[];
  /** USAGE_SLOTS numbers per head. */
  readonly usage: Float64Array;
  readonly finishes: readonly Finish[];
  readonly shapes: readonly (readonly string[])[];
}

const USAGE_KEYS: readonly string[] = ['input', 'output', 'cacheRead', 'cacheWrite', 'cacheWrite1h', 'reasoning', 'context'];
const USAGE_KEY_INDEX: ReadonlyMap<string, number> = new Map(USAGE_KEYS.map((k, i) => [k, i]));
/**
 * A usage shape (its keys in order) as a number: key index + 1 per position, base 8 (no string per
 * response). `code` is the shape of the keys before `key`.
 */
function shapeCode(code: number, key: number): number {
  return code * 8 + key + 1;
}

/** Usage numbers kept per response; a response whose usage has more keys is not plain. */
const USAGE_SLOTS = USAGE_KEYS.length;

/**
 * The heads of the plain requests and responses a compact log keeps as bytes: what replay reads of
 * them, noted when the line is read, so that replay does not build every request and response of
 * a long session from its line. A response's finish is one shared, frozen object per distinct finish;
 * its usage numbers sit in a typed array, with the order of its keys (JSON output keeps it) as one
 * of a few shapes. Per seq the head's index; no object per event.
 */
export class CallHeads {
  private readonly index = new SeqIndex();
  private readonly ids: string[] = [];
  /** Per head: a request (-1), or a response's finish (index into `finishes`, -2 for none). */
  private readonly finishOf: number[] = [];
  /** Per head: the usage shape (index into `shapes`, -1 for none). */
  private readonly shapeOf: number[] = [];
  private usage = new Float64Array(1024 * USAGE_SLOTS);
  private readonly finishes: Finish[] = [];
  private readonly finishIndex = new Map<string, Map<string, number>>();
  private readonly shapes: (readonly string[])[] = [];
  private readonly shapeIndex = new Map<number, number>();

  /** Notes the request at seq when it is plain; says whether it was. */
  noteRequest(seq: number, e: EventOf<'request'>): boolean {
    if (e.purpose !== 'agent') return false;
    for (const k in e) if (k !== 'kind' && k !== 'id' && k !== 'purpose' && k !== 'at' && k !== 'seq' && k !== 'branch') return false;
    this.add(seq, e.id, -1, -1);
    return true;
  }

  /** Notes the response at seq when it is plain; says whether it was. */
  noteResponse(seq: number, e: EventOf<'response'>): boolean {
    for (const k in e)
      if (k !== 'kind' && k !== 'request' && k !== 'finish' && k !== 'usage' && k !== 'at' && k !== 'seq' && k !== 'branch') return false;
    const finish = e.finish === undefined ? -2 : this.finishId(e.finish);
    if (finish === null) return false;
    let shape = -1;
    const h = this.ids.length;
    if (e.usage !== undefined) {
      let code = 0;
      let n = 0;
      for (const k in e.usage) {
        const key = USAGE_KEY_INDEX.get(k);
        const v = (e.usage as Record<string, unknown>)[k];
        if (key === undefined || typeof v !== 'number' || n === USAGE_SLOTS) return false;
        code = shapeCode(code, key);
        if ((h + 1) * USAGE_SLOTS > this.usage.length) this.growUsage();
        this.usage[h * USAGE_SLOTS + n++] = v;
      }
      shape = this.shapeId(code);
    }
    this.add(seq, e.request, finish, shape);
    return true;
  }

  /** The event at seq as replay reads it, or null when it has no head. */
  event(seq: number, log: ShallowSource): LogRequestEvent | LogResponseEvent | null {
    const h = this.index.get(seq);
    if (h < 0) return null;
    const id = this.ids[h] as string;
    const f = this.finishOf[h] as number;
    if (f === -1) return new LogRequestEvent(id, seq, log);
    return new LogResponseEvent(id, f === -2 ? undefined : this.finishes[f], this.usageOf(h), seq, log);
  }

  /** Drops the spare room of the seq index once the log is complete. */
  trim(length: number): void {
    this.index.trim(length);
    this.usage = this.usage.slice(0, this.ids.length * USAGE_SLOTS);
  }

  /** The heads of seqs [0, length), to hand to another thread. */
  export(length: number): CallHeadsPart {
    return {
      index: this.index.export(length),
      ids: this.ids,
      finishOf: this.finishOf,
      shapeOf: this.shapeOf,
      usage: this.usage.slice(0, this.ids.length * USAGE_SLOTS),
      finishes: this.finishes,
      shapes: this.shapes,
    };
  }

  /**
   * Takes another log's heads: its seq s becomes `seqBase + s`. Its finishes and usage shapes are
   * matched to this log's own, so that each distinct finish stays one shared, frozen object.
   */
  adopt(part: CallHeadsPart, seqBase: number): void {
    const finishes = part.finishes.map((f) => this.finishId(f));
    const shapes = part.shapes.map((keys) => this.shapeId(keys.reduce((code, k) => shapeCode(code, USAGE_KEY_INDEX.get(k) as number), 0)));
    const hBase = this.ids.length;
    this.index.adopt(part.index, seqBase, hBase);
    while ((hBase + part.ids.length) * USAGE_SLOTS > this.usage.length) this.growUsage();
    this.usage.set(part.usage, hBase * USAGE_SLOTS);
    for (let h = 0; h < part.ids.length; h++) {
      this.ids.push(part.ids[h] as string);
      const f = part.finishOf[h] as number;
      this.finishOf.push(f < 0 ? f : (finishes[f] as number));
      const s = part.shapeOf[h] as number;
      this.shapeOf.push(s < 0 ? s : (shapes[s] as number));
    }
  }

  private usageOf(h: number): Usage | undefined {
    const s = this.shapeOf[h] as number;
    if (s < 0) return undefined;
    const keys = this.shapes[s] as readonly string[];
    const u: Record<string, number> = {};
    for (let i = 0; i < keys.length; i++) u[keys[i] as string] = this.usage[h * USAGE_SLOTS + i] as number;
    return u as Usage;
  }

  private finishId(f: Finish): number | null {
    // Keyed by raw, reason and whether raw comes first (JSON output keeps the order): no string per response.
    let rawFirst: boolean | null = null;
    for (const k in f) {
      if (k !== 'raw' && k !== 'reason') return null;
      rawFirst ??= k === 'raw';
    }
    let byReason = this.finishIndex.get(f.raw);
    if (!byReason) this.finishIndex.set(f.raw, (byReason = new Map()));
    const key = rawFirst ? f.reason : `~${f.reason}`;
    let i = byReason.get(key);
    if (i === undefined) {
      i = this.finishes.push(Object.freeze(rawFirst ? { raw: f.raw, reason: f.reason } : { reason: f.reason, raw: f.raw })) - 1;
      byReason.set(key, i);
    }
    return i;
  }

  private shapeId(code: number): number {
    let i = this.shapeIndex.get(code);
    if (i === undefined) {
      const keys: string[] = [];
      for (let c = code; c > 0; c = Math.floor(c / 8)) keys.unshift(USAGE_KEYS[(c % 8) - 1] as string);
      i = this.shapes.push(Object.freeze(keys)) - 1;
      this.shapeIndex.set(code, i);
    }
    return i;
  }

  private add(seq: number, id: string, finish: number, shape: number): void {
    this.index.set(seq, this.ids.length);
    this.ids.push(id);
    this.finishOf.push(finish);
    this.shapeOf.push(shape);
  }

  private growUsage(): void {
    const next = new Float64Array(Math.max(1024 * USAGE_SLOTS, this.usage.length * 2));
    next.set(this.usage);
    this.usage = next;
  }
}
