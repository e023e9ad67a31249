import type { Diagnostic } from '../model/diagnostic';
import type { EventKind, EventOf, LogEvent } from '../model/event';
import { logPrefix, shallowAt, type EventLog } from '../model/event-log';
import type { Item } from '../model/item';
import type { Fate } from '../model/view';
import { MAIN_BRANCH, resolveBranch } from './branches';
import {
  EMPTY_ENVELOPE,
  NONE,
  newCompaction,
  type CompactionRecord,
  type Envelope,
  type ItemRecord,
  type RequestRecord,
  type TodoState,
} from './records';
import { appendKey, keyAfter, keyBetween, VacatedKeys } from './keys';
import { SurfaceHistory, lowerBound, positionOf } from './surface';
import { runToEnd, type Steps } from '../steps';

/**
 * The deterministic fold of canonical events into session state: items with their fates over time,
 * the surface history, requests with their envelopes, and compactions. Model views are read from
 * it (./view.ts) without replaying again.
 */
export interface ReplayState {
  readonly branch: string;
  /** Seqs of the events this branch consists of, ascending. */
  readonly seqs: readonly number[];
  /** Items in the order they were created. */
  readonly items: readonly ItemRecord[];
  readonly itemById: ReadonlyMap<string, ItemRecord>;
  readonly surface: SurfaceHistory;
  readonly requests: readonly RequestRecord[];
  readonly compactions: readonly CompactionRecord[];
  readonly envelope: Envelope;
  readonly todo: TodoState | null;
  /** Problems found while folding. `file`/`line` are filled in by whoever knows the files. */
  readonly diagnostics: readonly Diagnostic[];
}

export interface ReplayOptions {
  /** Branch to resolve; default `main`. */
  readonly branch?: string;
  /** Replay only the events up to this seq, as if the log ended there. */
  readonly untilSeq?: number;
}

/**
 * Kinds the fold passes over: branch events (forks, reverts, rollbacks) are resolved before it
 * runs, and the rest change nothing the model sees.
 */
const INERT_KINDS: ReadonlySet<EventKind> = new Set<EventKind>(['session', 'fork', 'revert', 'rollback', 'lifecycle', 'record', 'unknown']);

/** Fates are immutable values: the common one is shared. */
const VERBATIM: Fate = Object.freeze({ fate: 'verbatim' });

const problem = (rule: string, severity: Diagnostic['severity'], message: string, seqs: number[]): Diagnostic => ({
  rule,
  severity,
  message,
  file: null,
  line: null,
  seqs,
});

class Folder {
  readonly items: ItemRecord[] = [];
  readonly itemById = new Map<string, ItemRecord>();
  readonly surface = new SurfaceHistory();
  readonly requests: RequestRecord[] = [];
  readonly requestById = new Map<string, RequestRecord>();
  readonly compactions: CompactionRecord[] = [];
  readonly compactionById = new Map<string, CompactionRecord>();
  readonly diagnostics: Diagnostic[] = [];
  envelope: Envelope = EMPTY_ENVELOPE;
  todo: TodoState | null = null;
  private nextKey = 0;
  /**
   * Keys of items that left the surface and may come back (a restore puts an item back at its own
   * key). A new insert must not take one of them, or the restored item would find its place taken.
   */
  private readonly vacated = new VacatedKeys();

  fold(e: LogEvent): void {
    if (INERT_KINDS.has(e.kind)) return;
    switch (e.kind) {
      case 'header':
        return this.header(e);
      case 'item':
        return this.item(e);
      case 'mask':
        return this.mask(e);
      case 'drop':
        return this.drop(e);
      case 'restore':
        return this.restore(e);
      case 'request':
        return this.request(e);
      case 'response':
        return this.response(e);
      case 'todo':
        this.todo = { todos: e.todos, after: e.after ?? null, seq: e.seq };
        return;
      case 'compaction/start': {
        const c = this.compaction(e.id, e.seq);
        c.startSeq = e.seq;
        c.trigger = e.trigger;
        c.strategy = e.strategy ?? null;
        c.policy = e.policy ?? null;
        c.preTokens = e.preTokens ?? null;
        if (e.source) c.source = e.source;
        return;
      }
      case 'compaction/summary': {
        const c = this.compaction(e.id, e.seq);
        c.summarySeqs.push(e.seq);
        c.finish = e.finish ?? c.finish;
        c.usage = e.usage ?? c.usage;
        if (e.source && c.source.length === 0) c.source = e.source;
        if (e.request && !c.requestIds.includes(e.request)) c.requestIds.push(e.request);
        return;
      }
      case 'compaction/summary-error': {
        const c = this.compaction(e.id, e.seq);
        c.summaryErrorSeqs.push(e.seq);
        c.error = e.error;
        c.finish = e.finish ?? c.finish;
        c.usage = e.usage ?? c.usage;
        return;
      }
      case 'compaction/end': {
        const c = this.compaction(e.id, e.seq);
        c.endSeq = e.seq;
        c.outcome = e.outcome;
        c.fallback = e.fallback ?? null;
        c.postTokens = e.postTokens ?? null;
        if (e.error) c.error = e.error;
        return;
      }
      case 'mapreduce/staging':
        this.compaction(e.compactionId, e.seq).mapreduce.stagingSeqs.push(e.seq);
        return;
      case 'mapreduce/map':
        this.compaction(e.compactionId, e.seq).mapreduce.mapSeqs.push(e.seq);
        return;
      case 'mapreduce/repartition':
        this.compaction(e.compactionId, e.seq).mapreduce.repartitionSeqs.push(e.seq);
        return;
      case 'mapreduce/reduce':
        this.compaction(e.compactionId, e.seq).mapreduce.reduceSeqs.push(e.seq);
        return;
      case 'mapreduce/reread':
        this.compaction(e.compactionId, e.seq).mapreduce.rereadSeqs.push(e.seq);
        return;
      case 'mapreduce/audit':
        this.compaction(e.compactionId, e.seq).mapreduce.auditSeqs.push(e.seq);
        return;
      case 'mapreduce/correction':
        this.compaction(e.compactionId, e.seq).mapreduce.correctionSeqs.push(e.seq);
        return;
    }
  }

  private header(e: EventOf<'header'> & LogEvent): void {
    const prev = this.envelope;
    this.envelope = {
      system: e.system !== undefined ? e.system : prev.system,
      systemSeq: e.system !== undefined ? e.seq : prev.systemSeq,
      tools: e.tools !== undefined ? e.tools : prev.tools,
      toolsSeq: e.tools !== undefined ? e.seq : prev.toolsSeq,
      route: e.route ? { ...prev.route, ...stripUndefined(e.route) } : prev.route,
      routeSeqs: e.route ? [...prev.routeSeqs, e.seq] : prev.routeSeqs,
      unrecorded: e.unrecorded ?? prev.unrecorded,
      reloadMayDrop: e.reloadMayDrop === undefined ? prev.reloadMayDrop : e.reloadMayDrop || null,
    };
  }

  private live(id: string): ItemRecord | null {
    const rec = this.itemById.get(id);
    if (!rec || rec.key === null) return null;
    return positionOf(this.surface.live, rec.key, rec.index) >= 0 ? rec : null;
  }

  private setFate(rec: ItemRecord, seq: number, fate: Fate): void {
    rec.fates.push({ seq, fate });
  }

  private enter(rec: ItemRecord, seq: number, key: string): void {
    rec.key = key;
    this.surface.apply({ seq, type: 'add', id: rec.index, key });
  }

  private leave(rec: ItemRecord, seq: number, fate: Fate): void {
    if (rec.key === null) return;
    this.vacated.add(rec.key);
    this.surface.apply({ seq, type: 'remove', id: rec.index, key: rec.key });
    this.setFate(rec, seq, fate);
  }

  /** The fate of items taken off the surface in favour of `by`. */
  private fateFor(by: ItemRecord): Fate {
    const d = by.item.derivation;
    if (d?.kind === 'pruned') return { fate: 'pruned', by: by.id };
    if (d?.kind === 'checkpoint') return { fate: 'summarised', compactionId: d.compactionId, by: by.id };
    if (d?.kind === 'marker') return { fate: 'dropped', reason: d.fallback ?? 'truncation', by: by.id };
    return { fate: 'dropped', reason: 'replaced', by: by.id };
  }

  private item(e: EventOf<'item'> & LogEvent): void {
    const op = e.op;
    if (op.op === 'extend') {
      const target = this.itemById.get(e.item.id);
      if (target) {
        target.extensions = [...target.extensions, { seq: e.seq, blocks: e.item.blocks }];
        return;
      }
      this.diagnostics.push(
        problem(
          'REPLAY_UNKNOWN_ITEM',
          'warning',
          `Event ${e.seq} extends item "${e.item.id}", which does not exist; it is added as a new item.`,
          [e.seq],
        ),
      );
    }
    let id = e.item.id;
    if (this.itemById.has(id)) {
      let n = 2;
      while (this.itemById.has(`${e.item.id}#${n}`)) n++;
      id = `${e.item.id}#${n}`;
      this.diagnostics.push(
        problem('REPLAY_DUPLICATE_ITEM', 'warning', `Event ${e.seq} reuses item id "${e.item.id}"; it is shown as "${id}".`, [e.seq]),
      );
    }
    const rec: ItemRecord = {
      index: this.items.length,
      id,
      seq: e.seq,
      item: id === e.item.id ? e.item : renamed(e.item, id),
      extensions: NONE,
      sources: e.sources ?? NONE,
      key: null,
      fates: [],
      maskReferences: NONE,
    };
    this.items.push(rec);
    this.itemById.set(id, rec);

    if (op.op === 'log') {
      this.setFate(rec, e.seq, { fate: 'dropped', reason: 'never-sent' });
      return;
    }
    this.setFate(rec, e.seq, VERBATIM);

    let placed = false;
    if (op.op === 'replace') placed = this.replace(rec, op.from, op.to, e.seq);
    else if (op.op === 'insert') placed = this.insertBefore(rec, op.before, e.seq);
    if (!placed) this.enter(rec, e.seq, appendKey(this.nextKey++));

    const d = rec.item.derivation;
    if (d?.kind === 'checkpoint') {
      const c = this.compaction(d.compactionId, e.seq);
      c.checkpointItems.push(rec.id);
      if (c.outcome === null) c.outcome = 'committed';
      // A checkpoint takes the items it covers off the surface (cosh's covered_ranges, Rind's boundary).
      for (const cid of d.covers) {
        const covered = this.live(cid);
        if (covered && covered !== rec) this.leave(covered, e.seq, this.fateFor(rec));
      }
    }
    if (d?.kind === 'reinjected' || d?.kind === 'marker') {
      for (const of of d.of) {
        const src = this.itemById.get(of);
        if (!src) continue;
        if (d.kind === 'reinjected' && !this.live(of)) this.setFate(src, e.seq, { fate: 'reinjected', by: rec.id });
        if (d.kind === 'marker' && this.live(of)) this.leave(src, e.seq, this.fateFor(rec));
      }
    }
  }

  private replace(rec: ItemRecord, from: string, to: string, seq: number): boolean {
    const a = this.live(from);
    const b = this.live(to);
    if (!a || !b || a.key === null || b.key === null) {
      this.diagnostics.push(
        problem(
          'REPLAY_UNKNOWN_ITEM',
          'error',
          `Event ${seq} replaces items "${from}" through "${to}", but ${!a ? `"${from}"` : `"${to}"`} is not in the view at that point; the new item is appended instead.`,
          [seq],
        ),
      );
      return false;
    }
    const live = this.surface.live;
    let pa = positionOf(live, a.key, a.index);
    let pb = positionOf(live, b.key, b.index);
    if (pa > pb) [pa, pb] = [pb, pa];
    const key = live.keys[pa] as string;
    const removed = live.ids.slice(pa, pb + 1);
    const fate = this.fateFor(rec);
    for (let p = pa; p <= pb; p++) this.vacated.add(live.keys[p] as string);
    this.surface.apply({ seq, type: 'removeRange', id: live.ids[pa] as number, key, count: removed.length });
    for (const index of removed) (this.items[index] as ItemRecord).fates.push({ seq, fate });
    this.enter(rec, seq, key);
    return true;
  }

  private insertBefore(rec: ItemRecord, before: string, seq: number): boolean {
    const b = this.live(before);
    if (!b || b.key === null) {
      this.diagnostics.push(
        problem(
          'REPLAY_UNKNOWN_ITEM',
          'error',
          `Event ${seq} inserts before item "${before}", which is not in the view; the new item is appended instead.`,
          [seq],
        ),
      );
      return false;
    }
    const live = this.surface.live;
    const pos = positionOf(live, b.key, b.index);
    const prevKey = pos > 0 ? (live.keys[pos - 1] as string) : null;
    // Between the neighbours, past any key a dropped item may return to.
    let key = keyBetween(prevKey, b.key);
    while (this.vacated.has(key)) key = keyBetween(key, b.key);
    this.enter(rec, seq, key);
    return true;
  }

  /** A free key for an item restored to `key` when a live item holds it now (a replacement took its place). */
  private restoreKey(key: string): string {
    const live = this.surface.live;
    let i = lowerBound(live.keys, key);
    if (live.keys[i] !== key) return key;
    let k = key;
    do {
      const next = live.keys[i + 1];
      k = next === undefined ? keyAfter(k) : keyBetween(k, next);
      i = lowerBound(live.keys, k);
    } while (live.keys[i] === k || this.vacated.has(k));
    return k;
  }

  private mask(e: EventOf<'mask'> & LogEvent): void {
    for (const id of e.items) {
      const rec = this.live(id);
      if (!rec) {
        this.diagnostics.push(
          problem(
            'REPLAY_UNKNOWN_ITEM',
            'warning',
            `Event ${e.seq} ${e.masked ? 'masks' : 'unmasks'} item "${id}", which is not in the view.`,
            [e.seq],
          ),
        );
        continue;
      }
      if (e.masked) rec.maskReferences = [...rec.maskReferences, { seq: e.seq, reference: e.reference ?? null }];
      this.surface.apply({ seq: e.seq, type: 'mask', id: rec.index, masked: e.masked });
      this.setFate(rec, e.seq, e.masked ? { fate: 'masked' } : { fate: 'verbatim' });
    }
  }

  private drop(e: EventOf<'drop'> & LogEvent): void {
    for (const id of e.items) {
      const rec = this.live(id);
      if (!rec) {
        this.diagnostics.push(
          problem('REPLAY_UNKNOWN_ITEM', 'warning', `Event ${e.seq} drops item "${id}", which is not in the view.`, [e.seq]),
        );
        continue;
      }
      this.leave(rec, e.seq, { fate: 'dropped', reason: e.reason });
    }
  }

  private restore(e: EventOf<'restore'> & LogEvent): void {
    for (const id of e.items) {
      const rec = this.itemById.get(id);
      if (!rec || rec.key === null || this.live(id)) {
        this.diagnostics.push(
          problem(
            'REPLAY_UNKNOWN_ITEM',
            'warning',
            `Event ${e.seq} restores item "${id}", which ${rec ? 'is already in the view' : 'does not exist'}.`,
            [e.seq],
          ),
        );
        continue;
      }
      this.enter(rec, e.seq, this.restoreKey(rec.key));
      this.setFate(rec, e.seq, { fate: 'reinjected', by: rec.id });
    }
  }

  private request(e: EventOf<'request'> & LogEvent): void {
    const rec: RequestRecord = {
      index: this.requests.length,
      id: e.id,
      seq: e.seq,
      purpose: e.purpose,
      compactionId: e.compactionId ?? null,
      envelope: this.envelope,
      // Most requests name no route of their own: they share the envelope's rather than each holding a copy.
      route: e.route ? { ...this.envelope.route, ...stripUndefined(e.route) } : this.envelope.route,
      todo: this.todo,
      input: e.input ? { items: e.input.items, instruction: e.input.instruction } : null,
      unlogged: e.unlogged ?? NONE,
      responseSeq: null,
      finish: null,
      usage: null,
      error: null,
    };
    this.requests.push(rec);
    this.requestById.set(e.id, rec);
    if (e.compactionId) {
      const c = this.compaction(e.compactionId, e.seq);
      if (!c.requestIds.includes(e.id)) c.requestIds.push(e.id);
    }
  }

  private response(e: EventOf<'response'> & LogEvent): void {
    const req = this.requestById.get(e.request);
    if (!req) {
      this.diagnostics.push(
        problem('REPLAY_RESPONSE_WITHOUT_REQUEST', 'warning', `Event ${e.seq} answers request "${e.request}", which was never made.`, [
          e.seq,
        ]),
      );
      return;
    }
    req.responseSeq = e.seq;
    req.finish = e.finish ?? null;
    req.usage = e.usage ?? null;
    req.error = e.error ?? null;
  }

  private compaction(id: string, seq: number): CompactionRecord {
    let c = this.compactionById.get(id);
    if (!c) {
      c = newCompaction(id);
      this.compactionById.set(id, c);
      this.compactions.push(c);
    }
    if (c.seqs[c.seqs.length - 1] !== seq) c.seqs.push(seq);
    return c;
  }
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

/**
 * The item under another id. Its blocks are named, not spread: an item a compact log keeps for
 * replay reads its blocks through a getter, which a spread would leave out.
 */
function renamed(item: Item, id: string): Item {
  return { ...item, id, blocks: item.blocks };
}

/** Events folded between two pauses of replaySteps. */
export const REPLAY_STEP = 50_000;

/** Fold the events of one branch (optionally only a prefix) into replay state. */
export function replay(events: EventLog, options: ReplayOptions = {}): ReplayState {
  return runToEnd(replaySteps(events, options));
}

/**
 * replay() in steps: it pauses after every REPLAY_STEP events, yielding how many of the branch's
 * events it has folded and how many there are, so that a caller on a busy thread (the app's main
 * process, opening a session of a million events) can answer other questions between steps.
 */
export function* replaySteps(events: EventLog, options: ReplayOptions = {}): Generator<Steps, ReplayState, void> {
  const branch = options.branch ?? MAIN_BRANCH;
  // A prefix is replayed as if the log ended there: later reverts and rollbacks do not reach back.
  const visible = options.untilSeq === undefined ? events : logPrefix(events, options.untilSeq + 1);
  const resolved = resolveBranch(visible, branch);
  const f = new Folder();
  for (const p of resolved.problems) f.diagnostics.push(problem('REPLAY_BRANCH', 'warning', p.message, [p.seq]));
  const seqs: number[] = [];
  const total = resolved.seqs.length;
  let done = 0;
  for (const seq of resolved.seqs) {
    if (done > 0 && done % REPLAY_STEP === 0) yield { done, total };
    done++;
    // Kinds that change nothing the model sees are not built when the log answers kinds from a column
    // (an array's events are already built, and keep the seq check below).
    const kind = events.kindAt?.(seq);
    if (kind !== undefined && INERT_KINDS.has(kind)) {
      seqs.push(seq);
      continue;
    }
    const e = shallowAt(events, seq);
    if (!e || e.seq !== seq) {
      f.diagnostics.push(
        problem('REPLAY_BAD_SEQ', 'error', `The event log has no event at seq ${seq}; seqs must be contiguous from 0.`, []),
      );
      continue;
    }
    seqs.push(seq);
    f.fold(e);
  }
  return {
    branch,
    seqs,
    items: f.items,
    itemById: f.itemById,
    surface: f.surface,
    requests: f.requests,
    compactions: f.compactions,
    envelope: f.envelope,
    todo: f.todo,
    diagnostics: f.diagnostics,
  };
}
