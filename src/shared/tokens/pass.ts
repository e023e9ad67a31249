import type { ReplayState } from '../replay/fold';
import type { ItemRecord } from '../replay/records';
import { lowerBound, positionOf, type SurfaceState, type SurfaceWatch } from '../replay/surface';
import { addUncountable, CATEGORY_COUNT, CATEGORY_INDEX, FRAMING_PER_REQUEST, noUncountable, type Uncountable } from './categories';
import { addAt, type RequestTokens, type TokenAccountant, type UnitInfo, type UnitTokens } from './units';

/** The lists of a result of the pass, refilled when the caller hands the result back. */
interface Lists {
  readonly units: UnitInfo[];
  unitTokens: Float64Array;
}

/**
 * The figures of every request of a branch, in order (the token report, `inspect --json`): a running
 * account of the live items, changed only by the surface operations, extensions and masks between
 * two requests, instead of a look-up of every unit of every view (`tokensOf` per request visits
 * each live item of each view: 136 million visits on the 1M-event bench session, the views table
 * of `npm run bench -- --only e1m`). `next(i)` equals `accountant.tokensOf(i)` field for field
 * (tested): every figure is a whole number of tokens, so the order of the additions does not matter.
 *
 * The count source may move between two requests (the app counts while the report is built in
 * steps): the figures of the live items are then worked out again, once per move.
 */
export class RequestPass {
  private readonly state: ReplayState;
  /** Per item index: the unit it shows while live, and that unit's figures when it entered. */
  private readonly liveUnit: (UnitInfo | undefined)[];
  private readonly liveTokens: (UnitTokens | undefined)[];
  private total = 0;
  private estimated = 0;
  private readonly byCategory = new Float64Array(CATEGORY_COUNT);
  private readonly uncountable: Uncountable = noUncountable();
  private maskedUnknown = 0;
  /** The seq of the request being worked out: units are chosen as of just before it. */
  private beforeSeq = 0;
  private epoch = Number.NaN;
  private last = -1;
  private readonly surfaceAt: (beforeSeq: number) => SurfaceState;
  /** Extensions in seq order: they change a live item's unit without a surface operation. */
  private readonly extensions: { seq: number; id: number }[] = [];
  private nextExtension = 0;
  private readonly lists = new WeakMap<RequestTokens, Lists>();

  constructor(private readonly acc: TokenAccountant) {
    this.state = acc.state;
    const n = this.state.items.length;
    this.liveUnit = new Array<UnitInfo | undefined>(n);
    this.liveTokens = new Array<UnitTokens | undefined>(n);
    for (const rec of this.state.items) for (const x of rec.extensions) this.extensions.push({ seq: x.seq, id: rec.index });
    this.extensions.sort((a, b) => a.seq - b.seq);
    this.surfaceAt = this.state.surface.cursor(this.watch());
  }

  /** Adds (sign 1) or takes away (sign -1) one live unit's figures. */
  private account(u: UnitInfo, t: UnitTokens, sign: 1 | -1): void {
    this.total += sign * t.total;
    this.estimated += sign * t.estimated;
    for (let j = 0; j < t.cats.length; j += 2) addAt(this.byCategory, t.cats[j] as number, sign * (t.cats[j + 1] as number));
    const unc = u.uncountable;
    if (unc.images + unc.opaque + unc.redacted > 0) {
      this.uncountable.images += sign * unc.images;
      this.uncountable.opaque += sign * unc.opaque;
      this.uncountable.redacted += sign * unc.redacted;
    }
    if (u.unknown) this.maskedUnknown += sign;
  }

  private enter(id: number, masked: boolean): void {
    const u = this.acc.itemUnit(this.state.items[id] as ItemRecord, masked, this.beforeSeq);
    const t = this.acc.unitTokens(u);
    this.liveUnit[id] = u;
    this.liveTokens[id] = t;
    this.account(u, t, 1);
  }

  private leave(id: number): void {
    const u = this.liveUnit[id];
    if (u === undefined) return;
    this.account(u, this.liveTokens[id] as UnitTokens, -1);
    this.liveUnit[id] = undefined;
    this.liveTokens[id] = undefined;
  }

  private watch(): SurfaceWatch {
    return {
      reset: (s) => {
        this.liveUnit.fill(undefined);
        this.liveTokens.fill(undefined);
        this.total = 0;
        this.estimated = 0;
        this.byCategory.fill(0);
        Object.assign(this.uncountable, noUncountable());
        this.maskedUnknown = 0;
        for (const id of s.ids) this.enter(id, s.masked.has(id));
      },
      // As applyOp will do it (../replay/surface.ts), seen from the running account.
      before: (op, s) => {
        switch (op.type) {
          case 'add': {
            const i = lowerBound(s.keys, op.key);
            if (s.keys[i] !== op.key) this.enter(op.id, s.masked.has(op.id));
            return;
          }
          case 'remove':
            if (positionOf(s, op.key, op.id) >= 0) this.leave(op.id);
            return;
          case 'removeRange': {
            const i = positionOf(s, op.key, op.id);
            if (i >= 0) for (let k = i; k < i + op.count && k < s.ids.length; k++) this.leave(s.ids[k] as number);
            return;
          }
          case 'mask':
            if (this.liveUnit[op.id] === undefined) return;
            this.leave(op.id);
            this.enter(op.id, op.masked);
            return;
        }
      },
    };
  }

  /** The live items, just before request `index` (its seq), with figures as the count source has them now. */
  private advance(index: number, seq: number): SurfaceState {
    if (index <= this.last) throw new RangeError(`A pass goes through the requests in order: request ${index} after ${this.last}.`);
    this.last = index;
    this.beforeSeq = seq;
    const s = this.surfaceAt(seq);
    for (
      ;
      this.nextExtension < this.extensions.length && (this.extensions[this.nextExtension] as { seq: number }).seq < seq;
      this.nextExtension++
    ) {
      const id = (this.extensions[this.nextExtension] as { id: number }).id;
      if (this.liveUnit[id] === undefined || s.masked.has(id)) continue;
      this.leave(id);
      this.enter(id, false);
    }
    const epoch = this.acc.source.epoch;
    if (epoch !== this.epoch) {
      // Counts or the calibration moved since the live items entered: their figures again, once.
      for (const id of s.ids) {
        const u = this.liveUnit[id];
        if (u === undefined) continue;
        this.account(u, this.liveTokens[id] as UnitTokens, -1);
        const t = this.acc.unitTokens(u);
        this.liveTokens[id] = t;
        this.account(u, t, 1);
      }
      this.epoch = epoch;
    }
    return s;
  }

  /**
   * The figures of request `index` (indexes must increase from one call to the next). `reuse`: a
   * result of this pass the caller is done with; its lists are filled again instead of new ones
   * made for every request.
   */
  next(index: number, reuse: RequestTokens | null = null): RequestTokens | null {
    const r = this.state.requests[index];
    if (!r) return null;
    // A summarizer call shows its own input, not the surface.
    if (r.input) return this.acc.tokensOf(index);
    const s = this.advance(index, r.seq);

    const lists = (reuse && this.lists.get(reuse)) || { units: [], unitTokens: new Float64Array(0) };
    const size = s.ids.length + 3;
    if (lists.unitTokens.length < size) lists.unitTokens = new Float64Array(Math.max(size, lists.unitTokens.length * 2));
    const { units, unitTokens } = lists;
    // Written by position and cut to length at the end: emptying the list first would let go of its
    // storage, and every request would grow a new one.
    let n = 0;
    const put = (u: UnitInfo, tokens: number): void => {
      unitTokens[n] = tokens;
      units[n++] = u;
    };
    const byCategory = new Float64Array(this.byCategory);
    const uncountable = { ...this.uncountable };
    let total = FRAMING_PER_REQUEST + this.total;
    let estimated = this.estimated;
    addAt(byCategory, CATEGORY_INDEX.framing, FRAMING_PER_REQUEST);
    /** A unit of this request alone (tools, system, todo block): its figures on top of the live items'. */
    const own = (u: UnitInfo): void => {
      const t = this.acc.unitTokens(u);
      total += t.total;
      estimated += t.estimated;
      for (let j = 0; j < t.cats.length; j += 2) addAt(byCategory, t.cats[j] as number, t.cats[j + 1] as number);
      addUncountable(uncountable, u.uncountable);
      put(u, t.total);
    };
    const env = r.envelope;
    if (env.tools !== undefined) own(this.acc.envelopeUnit('tools', env.toolsSeq, env.tools));
    if (env.system !== undefined) own(this.acc.envelopeUnit('system', env.systemSeq, env.system));
    for (const id of s.ids) put(this.liveUnit[id] as UnitInfo, (this.liveTokens[id] as UnitTokens).total);
    if (r.todo && r.todo.todos.length > 0) own(this.acc.todoUnit(r.todo));
    units.length = n;
    const out: RequestTokens = {
      index,
      request: r,
      units,
      unitTokens: unitTokens.subarray(0, n),
      total,
      estimated,
      byCategory,
      uncountable,
      unloggedSystem: env.system === null,
      unloggedTools: env.tools === null,
      maskedUnknown: this.maskedUnknown,
      distinct: true,
    };
    this.lists.set(out, lists);
    return out;
  }

  /** `next(index).total` without the lists: what `inspect --json` needs of every request. */
  totalOf(index: number): number | null {
    const r = this.state.requests[index];
    if (!r) return null;
    if (r.input) return this.acc.tokensOf(index)?.total ?? null;
    this.advance(index, r.seq);
    let total = FRAMING_PER_REQUEST + this.total;
    const env = r.envelope;
    if (env.tools !== undefined) total += this.acc.unitTokens(this.acc.envelopeUnit('tools', env.toolsSeq, env.tools)).total;
    if (env.system !== undefined) total += this.acc.unitTokens(this.acc.envelopeUnit('system', env.systemSeq, env.system)).total;
    if (r.todo && r.todo.todos.length > 0) total += this.acc.unitTokens(this.acc.todoUnit(r.todo)).total;
    return total;
  }
}

/** `tokensOf(i).total` of every request of the branch, in order. */
export function totalsInOrder(acc: TokenAccountant): number[] {
  const pass = new RequestPass(acc);
  return acc.state.requests.map((_, i) => pass.totalOf(i) as number);
}
