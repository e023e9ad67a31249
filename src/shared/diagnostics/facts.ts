import type { Block } from '../model/content';
import type { BudgetPolicy, EventKind, EventOf, LogEvent, Route } from '../model/event';
import { reportedContextTokens } from '../model/event';
import { kindAt, shallowAt, type EventLog } from '../model/event-log';
import { innermostBracket, type Bracket } from './brackets';
import { itemAnswers, itemCalls } from '../model/item';
import type { ReplayState } from '../replay/fold';
import type { CompactionRecord, ItemRecord, RequestRecord } from '../replay/records';
import { surfaceBefore } from '../replay/view';
import { lowerBoundBy, upperBound } from '../seq-search';
import type { Measure, TokenEstimator } from './measure';

/**
 * Indexes over one replayed branch that several rules need: compactions with their events and
 * the items they shadowed, turns, lifecycle boundaries, tool-call units, agent requests with their
 * measured size. Each is computed once, on first use; nothing here mutates the replay.
 */

type Ev<K extends LogEvent['kind']> = EventOf<K> & LogEvent;

export interface CompactionFacts {
  readonly id: string;
  readonly record: CompactionRecord;
  readonly start: Ev<'compaction/start'> | null;
  readonly end: Ev<'compaction/end'> | null;
  readonly summaries: readonly Ev<'compaction/summary'>[];
  readonly summaryErrors: readonly Ev<'compaction/summary-error'>[];
  /** Checkpoint items naming this compaction, in creation order. */
  readonly checkpoints: readonly ItemRecord[];
  /** Marker items (loud truncation fallback) created inside the bracket. */
  readonly markers: readonly ItemRecord[];
  /** Events that took items off the view for this compaction (checkpoints, markers, replaces, drops), ascending. */
  readonly viewSeqs: readonly number[];
  /** The first of `viewSeqs`: when the compaction changed the view; null if it never did. */
  readonly commitSeq: number | null;
  /** The last event of the compaction that changed the view, or its last event at all. */
  readonly settledSeq: number;
  /** The summary a commit was built from: the last `compaction/summary` before the commit. */
  readonly committedSummary: Ev<'compaction/summary'> | null;
  /** Summarizer calls (requests naming the compaction), in order. */
  readonly requests: readonly RequestRecord[];
  /** The source range as the log states it: start's source, else the summary's, else the checkpoints' covers. */
  readonly source: readonly string[];
  /** Items this compaction took off the view, in creation order. */
  readonly shadowed: readonly ItemRecord[];
  readonly policy: BudgetPolicy | null;
  readonly stagings: readonly Ev<'mapreduce/staging'>[];
  readonly maps: readonly Ev<'mapreduce/map'>[];
  readonly repartitions: readonly Ev<'mapreduce/repartition'>[];
  readonly reduces: readonly Ev<'mapreduce/reduce'>[];
  readonly rereads: readonly Ev<'mapreduce/reread'>[];
  readonly audits: readonly Ev<'mapreduce/audit'>[];
  readonly corrections: readonly Ev<'mapreduce/correction'>[];
  /** First and last event of the compaction on the branch. */
  readonly firstSeq: number;
  readonly lastSeq: number;
}

const AUTOMATIC = new Set(['auto', 'preemptive', 'reactive', 'unknown']);

export function isAutomatic(c: CompactionFacts): boolean {
  return AUTOMATIC.has(c.record.trigger);
}

/** An attempt that produced no usable summary: rejected, failed, or rescued by a fallback. */
export function isFailedAttempt(c: CompactionFacts): boolean {
  const o = c.record.outcome;
  return o === 'rejected' || o === 'failed' || o === 'fallback';
}

/** Memo keys whose values read no item's text (buildCompactions reads events and replay state only). */
const TEXT_FREE = ['seqsByKind', 'compactions', 'compactionById'] as const;

export class Facts {
  private cache = new Map<string, unknown>();

  constructor(
    readonly events: EventLog,
    readonly state: ReplayState,
    private readonly fullBlocks: ReadonlyMap<number, readonly Block[]>,
    private readonly estimate: TokenEstimator | null,
  ) {}

  /**
   * These facts with other whole texts (re-read from the source where memory holds previews). What
   * reads no text — the events by kind, the compactions — is taken from these, not worked out again.
   */
  withTexts(fullBlocks: ReadonlyMap<number, readonly Block[]>): Facts {
    const f = new Facts(this.events, this.state, fullBlocks, this.estimate);
    for (const key of TEXT_FREE) if (this.cache.has(key)) f.cache.set(key, this.cache.get(key));
    return f;
  }

  private memo<T>(key: string, make: () => T): T {
    if (this.cache.has(key)) return this.cache.get(key) as T;
    const v = make();
    this.cache.set(key, v);
    return v;
  }

  /** The branch's seqs by event kind, in order; kinds come from the log's columns when it has them. */
  private get seqsByKind(): ReadonlyMap<EventKind, readonly number[]> {
    return this.memo('seqsByKind', () => {
      const out = new Map<EventKind, number[]>();
      for (const seq of this.state.seqs) {
        const kind = kindAt(this.events, seq);
        if (kind === undefined) continue;
        let l = out.get(kind);
        if (!l) out.set(kind, (l = []));
        l.push(seq);
      }
      return out;
    });
  }

  /**
   * The branch's events of these kinds, in order. Rules ask for the few kinds they read rather than
   * walk every event: a compact log builds only those (items as replay keeps them, content on demand).
   */
  ofKinds<K extends EventKind>(...kinds: K[]): (EventOf<K> & LogEvent)[] {
    const lists = kinds.map((k) => this.seqsByKind.get(k) ?? []);
    const seqs = lists.length === 1 ? (lists[0] as readonly number[]) : lists.flat().sort((a, b) => a - b);
    const out: (EventOf<K> & LogEvent)[] = [];
    for (const seq of seqs) {
      const e = shallowAt(this.events, seq);
      if (e && e.seq === seq) out.push(e as EventOf<K> & LogEvent);
    }
    return out;
  }

  /**
   * The event with this seq, as replay reads it (EventLog.shallowAt: an item's blocks may be read on
   * demand): rules ask this of every item (its op), and a compact log answers without the line.
   */
  event(seq: number): LogEvent | undefined {
    const e = shallowAt(this.events, seq);
    return e && e.seq === seq ? e : undefined;
  }

  /** Blocks of an item as created plus every extension (one response logged as several records). */
  blocksOf(rec: ItemRecord): readonly Block[] {
    const full = this.fullBlocks.get(rec.seq);
    const own = full ?? rec.item.blocks;
    if (rec.extensions.length === 0) return own;
    return [...own, ...rec.extensions.flatMap((x) => this.fullBlocks.get(x.seq) ?? x.blocks)];
  }

  /** Full blocks of a compaction/summary event when they were loaded, else the in-memory ones. */
  summaryBlocks(e: Ev<'compaction/summary'>): readonly Block[] {
    return this.fullBlocks.get(e.seq) ?? e.summary;
  }

  /** The surface op that placed an item. */
  opOf(rec: ItemRecord): EventOf<'item'>['op'] | null {
    const e = this.event(rec.seq);
    return e?.kind === 'item' ? e.op : null;
  }

  /** A user instruction: typed by the user (not injected, not derived, not a tool result, not display-only). */
  isUserInstruction(rec: ItemRecord): boolean {
    const it = rec.item;
    if (it.role !== 'user' || it.meta || it.derivation) return false;
    if (this.opOf(rec)?.op === 'log') return false;
    const blocks = this.blocksOf(rec);
    return blocks.some((b) => b.type === 'text') && !blocks.some((b) => b.type === 'tool_result');
  }

  /**
   * Tool call ids the item issues, extensions included. Asked of every item (pairing), so the item's
   * own are read through itemCalls, which a compact log's items answer without building their blocks;
   * re-read full blocks differ from the previews only in text, never in call ids.
   */
  callsOf(rec: ItemRecord): string[] {
    const ids = itemCalls(rec.item);
    for (const x of rec.extensions) for (const b of this.fullBlocks.get(x.seq) ?? x.blocks) if (b.type === 'tool_call') ids.push(b.id);
    return ids;
  }

  /** Tool call ids the item answers, extensions included (as callsOf). */
  answersOf(rec: ItemRecord): string[] {
    const ids = itemAnswers(rec.item);
    for (const x of rec.extensions)
      for (const b of this.fullBlocks.get(x.seq) ?? x.blocks) if (b.type === 'tool_result') ids.push(b.callId);
    return ids;
  }

  /** Items currently on the surface just before event `seq`, in model order. */
  surfaceAt(seq: number): { items: ItemRecord[]; masked: Set<number> } {
    return surfaceBefore(this.state, seq);
  }

  /** Seqs where a user turn begins: `lifecycle turn-start` events when the log has them, else user instructions. */
  get turnStarts(): readonly number[] {
    return this.memo('turnStarts', () => {
      const explicit: number[] = [];
      for (const e of this.ofKinds('lifecycle')) if (e.boundary === 'turn-start') explicit.push(e.seq);
      if (explicit.length > 0) return explicit;
      const out: number[] = [];
      for (const rec of this.state.items) if (this.isUserInstruction(rec)) out.push(rec.seq);
      return out;
    });
  }

  /** The turn an event belongs to: the number of turn starts at or before it (0 before the first). */
  turnAt(seq: number): number {
    return upperBound(this.turnStarts, seq);
  }

  /** Seqs of lifecycle boundaries after which an earlier process's open compaction is stale. */
  get processBoundaries(): readonly number[] {
    return this.memo('processBoundaries', () =>
      this.ofKinds('lifecycle')
        .filter((e) => e.boundary === 'end-seed' || e.boundary === 'process-start' || e.boundary === 'resume')
        .map((e) => e.seq),
    );
  }

  /** The item that issued each tool call id (the first one). */
  get callItem(): ReadonlyMap<string, ItemRecord> {
    return this.memo('callItem', () => {
      const m = new Map<string, ItemRecord>();
      for (const rec of this.state.items) for (const id of this.callsOf(rec)) if (!m.has(id)) m.set(id, rec);
      return m;
    });
  }

  /** Items holding a result of each tool call id, in creation order. */
  get resultItems(): ReadonlyMap<string, readonly ItemRecord[]> {
    return this.memo('resultItems', () => {
      const m = new Map<string, ItemRecord[]>();
      for (const rec of this.state.items) {
        for (const id of this.answersOf(rec)) {
          let l = m.get(id);
          if (!l) m.set(id, (l = []));
          if (!l.includes(rec)) l.push(rec);
        }
      }
      return m;
    });
  }

  /** Agent requests (calls that send the surface), in order. */
  get agentRequests(): readonly RequestRecord[] {
    return this.memo('agentRequests', () => this.state.requests.filter((r) => r.purpose === 'agent' && r.input === null));
  }

  /**
   * The agent requests `keep` accepts, in order, computed once per `key`. Rules look for "the last
   * such request before seq s" once per compaction or mutation; over this list that is a binary
   * search (lastBefore / firstAfter) instead of a scan of every request, which on a session of
   * 180,000 requests and 500 compactions was most of the diagnostics' 14 s (the history of
   * docs/performance.md).
   */
  agentRequestsWhere(key: string, keep: (r: RequestRecord) => boolean): readonly RequestRecord[] {
    return this.memo(`agentRequestsWhere:${key}`, () => this.agentRequests.filter(keep));
  }

  /** Agent requests whose size is known (reported, or estimated when an estimator is plugged in), with that size. */
  get measuredAgentRequests(): readonly { readonly seq: number; readonly req: RequestRecord; readonly m: Measure }[] {
    return this.memo('measuredAgentRequests', () => {
      const out: { seq: number; req: RequestRecord; m: Measure }[] = [];
      for (const req of this.agentRequests) {
        const m = this.requestTokens(req);
        if (m) out.push({ seq: req.seq, req, m });
      }
      return out;
    });
  }

  private readonly measures = new Map<RequestRecord, Measure | null>();

  /** The size of the context a request sent: reported usage, else a local estimate of its view, else null. */
  requestTokens(r: RequestRecord): Measure | null {
    let m = this.measures.get(r);
    if (m === undefined) {
      m = this.measureRequest(r);
      this.measures.set(r, m);
    }
    return m;
  }

  private measureRequest(r: RequestRecord): Measure | null {
    const reported = reportedContextTokens(r.usage ?? undefined);
    // Every request sends at least one token: a context of 0 is a placeholder (a client's
    // record of a failed call), never a measurement.
    if (reported !== null && reported > 0) return { value: reported, unit: 'tokens', source: 'reported' };
    if (!this.estimate || r.input !== null) return null;
    const { items } = this.surfaceAt(r.seq);
    let n = 0;
    for (const rec of items) n += this.estimate(this.blocksOf(rec));
    const system = r.envelope.system;
    if (system) n += this.estimate(system);
    return { value: n, unit: 'tokens', source: 'estimated' };
  }

  /** Headers that set the system prompt, as (seq, system) in log order. */
  private get systemHeaders(): readonly { seq: number; system: readonly Block[] | null }[] {
    return this.memo('systemHeaders', () => {
      const out: { seq: number; system: readonly Block[] | null }[] = [];
      for (const e of this.ofKinds('header')) if (e.system !== undefined) out.push({ seq: e.seq, system: e.system });
      return out;
    });
  }

  /** The system prompt in force just before `seq`: blocks, null (not recorded) or undefined (no header said). */
  systemAt(seq: number): readonly Block[] | null | undefined {
    const hs = this.systemHeaders;
    const i = lowerBoundBy(hs, seq) - 1;
    return i >= 0 ? (hs[i] as { system: readonly Block[] | null }).system : undefined;
  }

  /** Routes in force after each header that changed it, as (seq, route) in log order. */
  private get routes(): readonly { seq: number; route: Route }[] {
    return this.memo('routes', () => {
      const out: { seq: number; route: Route }[] = [];
      let route: Route = {};
      for (const e of this.ofKinds('header')) {
        if (!e.route) continue;
        const next: Route = { ...route };
        for (const [k, v] of Object.entries(e.route)) if (v !== undefined) (next as Record<string, unknown>)[k] = v;
        route = next;
        out.push({ seq: e.seq, route });
      }
      return out;
    });
  }

  /** The route in force just before `seq`: every header's route merged, field by field. */
  routeAt(seq: number): Route {
    const rs = this.routes;
    const i = lowerBoundBy(rs, seq) - 1;
    return i >= 0 ? (rs[i] as { route: Route }).route : {};
  }

  /**
   * Events that took items off the surface (compaction commits, markers, replaces, prunes, drops),
   * ascending, each with the items it took off.
   */
  get removals(): readonly { seq: number; items: readonly ItemRecord[] }[] {
    return this.memo('removals', () => {
      const by = new Map<number, ItemRecord[]>();
      for (const rec of this.state.items) {
        for (const fc of rec.fates) {
          if (fc.seq === rec.seq) continue;
          const f = fc.fate.fate;
          if (f !== 'summarised' && f !== 'dropped' && f !== 'pruned') continue;
          let l = by.get(fc.seq);
          if (!l) by.set(fc.seq, (l = []));
          l.push(rec);
        }
      }
      return [...by].sort((a, b) => a[0] - b[0]).map(([seq, items]) => ({ seq, items }));
    });
  }

  get compactions(): readonly CompactionFacts[] {
    return this.memo('compactions', () => buildCompactions(this));
  }

  compactionById(id: string): CompactionFacts | undefined {
    return this.memo('compactionById', () => new Map(this.compactions.map((c) => [c.id, c]))).get(id);
  }

  /** The compaction whose bracket (start … end) contains `seq`, if any (the latest started). */
  bracketAt(seq: number): CompactionFacts | null {
    let best: CompactionFacts | null = null;
    for (const c of this.compactions) {
      const s = c.record.startSeq;
      if (s === null || s > seq) continue;
      const e = c.record.endSeq;
      if (e !== null && e < seq) continue;
      if (!best || (best.record.startSeq ?? -1) < s) best = c;
    }
    return best;
  }
}

function buildCompactions(f: Facts): CompactionFacts[] {
  const state = f.state;
  interface Mutable {
    start: Ev<'compaction/start'> | null;
    end: Ev<'compaction/end'> | null;
    summaries: Ev<'compaction/summary'>[];
    summaryErrors: Ev<'compaction/summary-error'>[];
    checkpoints: ItemRecord[];
    markers: ItemRecord[];
    viewSeqs: Set<number>;
    shadowed: Set<ItemRecord>;
    stagings: Ev<'mapreduce/staging'>[];
    maps: Ev<'mapreduce/map'>[];
    repartitions: Ev<'mapreduce/repartition'>[];
    reduces: Ev<'mapreduce/reduce'>[];
    rereads: Ev<'mapreduce/reread'>[];
    audits: Ev<'mapreduce/audit'>[];
    corrections: Ev<'mapreduce/correction'>[];
  }
  const m = new Map<string, Mutable>();
  const get = (id: string): Mutable => {
    let x = m.get(id);
    if (!x) {
      x = {
        start: null,
        end: null,
        summaries: [],
        summaryErrors: [],
        checkpoints: [],
        markers: [],
        viewSeqs: new Set(),
        shadowed: new Set(),
        stagings: [],
        maps: [],
        repartitions: [],
        reduces: [],
        rereads: [],
        audits: [],
        corrections: [],
      };
      m.set(id, x);
    }
    return x;
  };
  for (const c of state.compactions) get(c.id);
  const dropOwner = new Map<number, string>();
  const kinds = [
    'compaction/start',
    'compaction/end',
    'compaction/summary',
    'compaction/summary-error',
    'mapreduce/staging',
    'mapreduce/map',
    'mapreduce/repartition',
    'mapreduce/reduce',
    'mapreduce/reread',
    'mapreduce/audit',
    'mapreduce/correction',
    'drop',
  ] as const;
  for (const e of f.ofKinds(...kinds)) {
    switch (e.kind) {
      case 'compaction/start':
        get(e.id).start ??= e;
        break;
      case 'compaction/end':
        get(e.id).end = e;
        break;
      case 'compaction/summary':
        get(e.id).summaries.push(e);
        break;
      case 'compaction/summary-error':
        get(e.id).summaryErrors.push(e);
        break;
      case 'mapreduce/staging':
        get(e.compactionId).stagings.push(e);
        break;
      case 'mapreduce/map':
        get(e.compactionId).maps.push(e);
        break;
      case 'mapreduce/repartition':
        get(e.compactionId).repartitions.push(e);
        break;
      case 'mapreduce/reduce':
        get(e.compactionId).reduces.push(e);
        break;
      case 'mapreduce/reread':
        get(e.compactionId).rereads.push(e);
        break;
      case 'mapreduce/audit':
        get(e.compactionId).audits.push(e);
        break;
      case 'mapreduce/correction':
        get(e.compactionId).corrections.push(e);
        break;
      case 'drop':
        if (e.compactionId !== undefined) dropOwner.set(e.seq, e.compactionId);
        break;
      default:
        break;
    }
  }
  // Brackets, to attribute markers and compaction drops that do not name their compaction.
  const brackets: Bracket[] = [];
  for (const c of state.compactions) {
    if (c.startSeq !== null) brackets.push({ id: c.id, from: c.startSeq, to: c.endSeq ?? Number.POSITIVE_INFINITY });
  }
  const bracketAt = innermostBracket(brackets);
  const byId = state.itemById;
  for (const rec of state.items) {
    const d = rec.item.derivation;
    if (d?.kind === 'checkpoint') {
      const x = get(d.compactionId);
      x.checkpoints.push(rec);
      x.viewSeqs.add(rec.seq);
    } else if (d?.kind === 'marker') {
      const owner = bracketAt(rec.seq);
      if (owner !== null) {
        get(owner).markers.push(rec);
        get(owner).viewSeqs.add(rec.seq);
      }
    }
    for (const fc of rec.fates) {
      const fate = fc.fate;
      let owner: string | null = null;
      if (fate.fate === 'summarised') owner = fate.compactionId;
      else if (fate.fate === 'dropped') {
        const by = fate.by !== undefined ? byId.get(fate.by) : undefined;
        if (by?.item.derivation?.kind === 'checkpoint') owner = by.item.derivation.compactionId;
        else if (by?.item.derivation?.kind === 'marker') owner = bracketAt(by.seq);
        else if (dropOwner.has(fc.seq)) owner = dropOwner.get(fc.seq) ?? null;
        else if (fate.reason === 'compaction' || fate.reason === 'truncation') owner = bracketAt(fc.seq);
      }
      if (owner === null) continue;
      const x = get(owner);
      x.shadowed.add(rec);
      x.viewSeqs.add(fc.seq);
    }
  }
  const requestsOf = new Map<string, RequestRecord[]>();
  for (const r of state.requests) {
    if (r.compactionId === null) continue;
    let l = requestsOf.get(r.compactionId);
    if (!l) requestsOf.set(r.compactionId, (l = []));
    l.push(r);
  }
  const out: CompactionFacts[] = [];
  for (const record of state.compactions) {
    const x = get(record.id);
    const viewSeqs = [...x.viewSeqs].sort((a, b) => a - b);
    const commitSeq = viewSeqs[0] ?? null;
    let committedSummary: Ev<'compaction/summary'> | null = null;
    for (const s of x.summaries) if (commitSeq === null || s.seq < commitSeq) committedSummary = s;
    if (commitSeq === null) committedSummary = null;
    const covers: string[] = [];
    for (const k of x.checkpoints) {
      const d = k.item.derivation;
      if (d?.kind === 'checkpoint') for (const id of d.covers) if (!covers.includes(id)) covers.push(id);
    }
    const source = x.start?.source ?? x.summaries.find((s) => s.source && s.source.length > 0)?.source ?? covers;
    let firstSeq = Number.POSITIVE_INFINITY;
    let lastSeq = Number.NEGATIVE_INFINITY;
    for (const s of [...record.seqs, ...viewSeqs]) {
      if (s < firstSeq) firstSeq = s;
      if (s > lastSeq) lastSeq = s;
    }
    out.push({
      id: record.id,
      record,
      start: x.start,
      end: x.end,
      summaries: x.summaries,
      summaryErrors: x.summaryErrors,
      checkpoints: x.checkpoints,
      markers: x.markers,
      viewSeqs,
      commitSeq,
      settledSeq: viewSeqs[viewSeqs.length - 1] ?? (Number.isFinite(lastSeq) ? lastSeq : 0),
      committedSummary,
      requests: requestsOf.get(record.id) ?? [],
      source,
      shadowed: [...x.shadowed].sort((a, b) => a.index - b.index),
      policy: x.start?.policy ?? record.policy,
      stagings: x.stagings,
      maps: x.maps,
      repartitions: x.repartitions,
      reduces: x.reduces,
      rereads: x.rereads,
      audits: x.audits,
      corrections: x.corrections,
      firstSeq: Number.isFinite(firstSeq) ? firstSeq : 0,
      lastSeq: Number.isFinite(lastSeq) ? lastSeq : 0,
    });
  }
  return out.sort((a, b) => a.firstSeq - b.firstSeq);
}
