import type { Severity } from '../../../shared/model/diagnostic';
import type { BudgetPolicy, EventBody, EventOf } from '../../../shared/model/event';
import type { Item } from '../../../shared/model/item';
import type { JsonLine } from '../../reader/types';
import { oneLine } from '../dsh/json';
import { canonicalItem, maskReference, todosOf } from './items';
import type { BranchMeta, CoshItem, ContextChange, Envelope, ItemKind, Reference, Staging, TodoValue } from './parse';
import {
  type BranchState, type Context, type MItem, activeCheckpoint, applySelection, cloneBranch, hiddenWhy, inRanges, isDisplayOnly, modelView,
  newBranch, newContext, repair, setItems,
} from './state';
import { CanonSurface } from './surface';

/**
 * Replays cosh `HistoryEvent`s the way session_history.rs does and writes, for every event, the
 * canonical events that turn the model view Palimpsest's replay will compute into the view cosh
 * composes (`build_messages`). Each branch keeps its cosh mirror (./state.ts) beside a simulation
 * of the canonical surface (./surface.ts); after an event changes a branch, the two views are
 * compared and the difference is written as surface operations that say why: a new item is
 * appended (a checkpoint is inserted before the raw tail, a new version of an item replaces the
 * old one), items leave by a checkpoint's `covers` or by a `drop` naming the cause (`hidden`,
 * `compaction`, `other`), come back by `restore`, and masks are `mask` events by the model.
 *
 * Requests are not in cosh's log: one is inferred before each model output (a new Assistant or
 * ToolCall item after a non-output item). cosh saves state diffs at throttled save points, so
 * within one save the log order is item upserts first, then the plan, staging, visibility and
 * masks; requests inferred inside a save see the state in that order, with one correction: a
 * `masked` change is moved right after the `mask_tool_result` call that caused it, when the call
 * is in the same save and its target (the newest unmasked visible result) is the masked item.
 */

export interface MachineOut {
  readonly dry: boolean;
  emit(event: EventBody, from: JsonLine): number;
  report(rule: string, severity: Severity, message: string, seqs?: number[], line?: number | null): void;
  readonly nextSeq: number;
}

interface OpenCompaction {
  readonly id: string;
  readonly startSeq: number;
  readonly strategy: string;
}

interface Branch {
  state: BranchState;
  surface: CanonSurface;
  /** The canonical plan last written on this branch's history, as JSON (null: none yet). */
  todoCanon: string | null;
  lastNewKind: ItemKind | null;
  open: OpenCompaction | null;
  divergenceReported: boolean;
}

function cloneB(b: Branch, name?: string): Branch {
  const state = cloneBranch(b.state);
  if (name !== undefined) state.name = name;
  return { state, surface: b.surface.clone(), todoCanon: b.todoCanon, lastNewKind: b.lastNewKind, open: b.open, divergenceReported: false };
}

interface Queued {
  readonly l: JsonLine;
  readonly ev: Envelope;
}

const key = (branch: string, event: number): string => `${branch}\u0000${event}`;

const OUTPUT: ReadonlySet<ItemKind> = new Set<ItemKind>(['Assistant', 'ToolCall']);

/** Rank of a delta in `diff_context`'s output order; null for deltas written on their own. */
function rank(ev: Envelope): number | null {
  const d = ev.delta;
  switch (d.type) {
    case 'metadata':
      return d.change.field === 'title' ? 0 : 1;
    case 'message':
      return 2;
    case 'context': {
      const c = d.change;
      switch (c.field) {
        case 'initialize': return 3;
        case 'item_upsert': return 4;
        case 'item_remove': return 5;
        case 'todo': return 6;
        case 'next_id': return 7;
        case 'max_tokens': return 8;
        case 'overflow_model': return 9;
        case 'split': case 'split_buffer_append': return 10;
        case 'map_reduce': case 'map_segment_accepted': return 11;
        case 'visible_from': return 12;
        case 'hidden': return c.on ? 13 : 14;
        case 'masked': return c.on ? 15 : 16;
        case 'last_tool_set': return 17;
        case 'message_boundary': return 18;
      }
      return null;
    }
    default:
      return null;
  }
}
const REPEATABLE: ReadonlySet<number> = new Set([2, 4, 5, 18]);

/** Strip texts for the replay log: only structure is needed to rebuild a past state. */
function lighten(ev: Envelope): Envelope {
  const d = ev.delta;
  if (d.type !== 'context') return ev;
  const c = d.change;
  if (c.field === 'item_upsert') return { ...ev, delta: { type: 'context', change: { field: 'item_upsert', item: { ...c.item, text: '' } } } };
  if (c.field === 'map_segment_accepted') return { ...ev, delta: { type: 'context', change: { ...c, summary: '' } } };
  if (c.field === 'split_buffer_append') return { ...ev, delta: { type: 'context', change: { ...c, appended: '' } } };
  return ev;
}

export interface MachineOptions {
  /** The root session id from the file name (`session-<id>.jsonl`), if any. */
  readonly fileSessionId?: string | null;
}

export class CoshMachine {
  private readonly branches = new Map<string, Branch>();
  private readonly revertCache = new Map<string, Branch>();
  private readonly lastSeq = new Map<string, number>();
  private readonly eventIndex = new Map<string, number>();
  private readonly history: Envelope[] = [];
  private readonly todoValues = new Map<number, TodoValue>();
  private readonly usedCanon = new Set<string>();
  private readonly canonSeq = new Map<string, number>();
  private readonly compactionOf = new Map<string, string>();
  /** Kind of every canonical item (ids are unique across branches). */
  private readonly kindOf = new Map<string, ItemKind>();
  private lastEventId = 0;
  private requestCount = 0;
  private batch: Queued[] = [];
  private batchRank = -1;
  private pendingMasks = new Set<number>();

  // Aggregated findings.
  private nonMonotonic: { count: number; line: number; seqs: number[] } | null = null;
  private readonly missingBranches = new Map<string, { count: number; line: number }>();
  private badVersion: { count: number; line: number; version: number } | null = null;

  constructor(private readonly out: MachineOut) {}

  // -------------------------------------------------------------------------------------------
  // Input: events in file order, grouped into save batches
  // -------------------------------------------------------------------------------------------

  push(l: JsonLine, ev: Envelope): void {
    const r = rank(ev);
    const last = this.batch[this.batch.length - 1];
    const continues = r !== null && last !== undefined && last.ev.branch === ev.branch && ev.eventId === last.ev.eventId + 1 &&
      (r > this.batchRank || (r === this.batchRank && REPEATABLE.has(r)));
    if (!continues) this.flush();
    if (r === null) {
      this.apply(l, ev);
      return;
    }
    this.batch.push({ l, ev });
    this.batchRank = r;
  }

  /** Process the buffered save. */
  flush(): void {
    const batch = this.batch;
    if (batch.length === 0) return;
    this.batch = [];
    this.batchRank = -1;
    this.pendingMasks = new Set();
    for (const q of batch) {
      const d = q.ev.delta;
      if (d.type === 'context' && d.change.field === 'masked' && d.change.on) for (const id of d.change.ids) this.pendingMasks.add(id);
    }
    for (const q of batch) this.apply(q.l, q.ev);
    this.pendingMasks = new Set();
  }

  // -------------------------------------------------------------------------------------------
  // One event
  // -------------------------------------------------------------------------------------------

  private emit(event: EventBody, l: JsonLine, branch: string): number {
    event.branch = branch;
    return this.out.emit(event, l);
  }

  private record(l: JsonLine, branch: string, type: string, summary?: string): number {
    const r: EventOf<'record'> = { kind: 'record', type };
    if (summary !== undefined) r.summary = oneLine(summary, 160);
    return this.emit(r, l, branch);
  }

  private apply(l: JsonLine, ev: Envelope): void {
    const before = this.out.nextSeq;
    // Every event that reaches replay is kept (texts stripped), so a past state can be rebuilt
    // by the same rules, skipped events included.
    const index = this.history.length;
    if (!this.out.dry) this.history.push(lighten(ev));
    const d = ev.delta;
    const type = d.type === 'context' ? `context/${d.change.field}` : d.type === 'metadata' ? `metadata/${d.change.field}` : d.type === 'message' ? `message/${d.change.op}` : d.type;
    if (ev.eventId <= this.lastEventId && ev.eventId !== 0) {
      // session_history.rs: a stale writer's colliding id; the first writer's event wins.
      const seq = this.record(l, ev.branch, type, `skipped: event ${ev.eventId} does not follow ${this.lastEventId}`);
      this.nonMonotonic ??= { count: 0, line: l.line, seqs: [] };
      this.nonMonotonic.count++;
      if (this.nonMonotonic.seqs.length < 20) this.nonMonotonic.seqs.push(seq);
      return;
    }
    this.lastEventId = ev.eventId;
    if (ev.schemaVersion !== 1) {
      this.badVersion ??= { count: 0, line: l.line, version: ev.schemaVersion };
      this.badVersion.count++;
      this.record(l, ev.branch, type, `schema_version ${ev.schemaVersion}: not replayed`);
      return;
    }
    let applied: Branch | null;
    switch (d.type) {
      case 'genesis':
        applied = this.genesis(l, ev, d.meta);
        break;
      case 'fork':
      case 'revert':
      case 'rollback':
        applied = this.reference(l, ev);
        break;
      default: {
        const b = this.branches.get(ev.branch);
        if (!b) {
          const m = this.missingBranches.get(ev.branch) ?? { count: 0, line: l.line };
          m.count++;
          this.missingBranches.set(ev.branch, m);
          this.record(l, ev.branch, type, `not replayed: branch ${ev.branch} has no genesis or fork`);
          return;
        }
        this.change(b, l, ev, type);
        applied = b;
      }
    }
    if (!applied) return;
    applied.state.head = ev.eventId;
    if (this.out.nextSeq === before) this.record(l, ev.branch, type);
    const k = key(ev.branch, ev.eventId);
    if (!this.out.dry) {
      this.lastSeq.set(k, this.out.nextSeq - 1);
      this.eventIndex.set(k, index);
    }
  }

  private header(l: JsonLine, branch: string, m: { provider: string | null; model: string | null; reasoning: string | null }, genesis: boolean): void {
    const route: NonNullable<EventOf<'header'>['route']> = {};
    if (m.provider !== null) route.provider = m.provider;
    if (m.model !== null) route.model = m.model;
    if (m.reasoning !== null) route.reasoning = m.reasoning;
    const h: EventOf<'header'> = { kind: 'header', route };
    if (genesis) {
      // cosh persists neither its system prompt nor its tool schemas.
      h.system = null;
      h.tools = null;
      h.reason = 'genesis';
    }
    this.emit(h, l, branch);
  }

  private genesis(l: JsonLine, ev: Envelope, meta: BranchMeta): Branch | null {
    if (this.branches.has(ev.branch)) {
      this.record(l, ev.branch, 'genesis', 'not replayed: the branch already exists');
      this.out.report('COSH_BAD_REF', 'error', `Line ${l.line}: a second genesis for branch ${ev.branch}; cosh refuses the whole history here (DuplicateBranch). Ignored.`, [], l.line);
      return null;
    }
    if (meta.sessionId !== ev.branch) {
      this.out.report('COSH_BAD_REF', 'error', `Line ${l.line}: genesis of branch ${ev.branch} names session ${meta.sessionId}; cosh refuses the whole history here (InvalidGenesisBranch). Replayed anyway.`, [], l.line);
    }
    const b: Branch = { state: newBranch(ev.branch, ev.eventId), surface: new CanonSurface(), todoCanon: null, lastNewKind: null, open: null, divergenceReported: false };
    this.branches.set(ev.branch, b);
    this.header(l, ev.branch, meta, true);
    this.record(l, ev.branch, 'genesis', `${meta.title}${meta.cwd ? ` in ${meta.cwd}` : ''}`);
    return b;
  }

  // -------------------------------------------------------------------------------------------
  // Fork, revert, rollback: references resolved to canonical refs, then the selection applied
  // -------------------------------------------------------------------------------------------

  private refFailure(l: JsonLine, ev: Envelope, message: string): null {
    this.record(l, ev.branch, ev.delta.type, `not replayed: ${message}`);
    this.out.report('COSH_BAD_REF', 'error', `Line ${l.line}: ${ev.delta.type} on branch ${ev.branch}: ${message}. cosh refuses the whole history here; Palimpsest ignores the event and reads on.`, [], l.line);
    return null;
  }

  private reference(l: JsonLine, ev: Envelope): Branch | null {
    const d = ev.delta;
    if (d.type !== 'fork' && d.type !== 'revert' && d.type !== 'rollback') return null;
    const ref = d.type === 'fork' ? d.parent : d.target;
    if (d.type !== 'fork') {
      if (ref.branch !== ev.branch) return this.refFailure(l, ev, `its target is on branch ${ref.branch} (CrossBranchReference)`);
      const current = this.branches.get(ev.branch);
      if (!current) return this.refFailure(l, ev, 'the branch does not exist (MissingBranch)');
      if (d.type === 'revert') this.revertCache.set(key(ev.branch, current.state.head), cloneB(current));
    } else if (this.branches.has(ev.branch)) {
      return this.refFailure(l, ev, 'the branch already exists (DuplicateBranch)');
    }
    const resolved = this.resolve(ref, ev.branch);
    if (typeof resolved === 'string') return this.refFailure(l, ev, resolved);
    const seq = this.lastSeq.get(key(ref.branch, ref.event)) ?? 0;
    const target = { branch: ref.branch, seq };
    let label: string | undefined;
    if (d.type === 'fork') {
      label = d.meta.title;
      this.emit({ kind: 'fork', parent: target, label }, l, ev.branch);
      this.header(l, ev.branch, d.meta, false);
    } else if (d.type === 'revert') {
      label = d.preview ? `${d.label}: ${d.preview}` : d.label;
      this.emit({ kind: 'revert', target, label }, l, ev.branch);
    } else {
      this.emit({ kind: 'rollback', target, label: d.label }, l, ev.branch);
    }
    this.branches.set(ev.branch, resolved);
    this.sync(resolved, l, null);
    if (ref.selection.kind !== 'at_event' && resolved.state.context) this.writeTodo(resolved, l, resolved.state.context.todo, this.resolvedAfter(resolved), false);
    return resolved;
  }

  /** The binding of the plan a selection resolved to (`todo_points.last()`). */
  private resolvedAfter(b: Branch): number | null | undefined {
    const last = b.state.todoPoints[b.state.todoPoints.length - 1];
    return last ? last[0] : undefined;
  }

  /** `HistoryProjection::resolve`: the state of a reference, as a new branch named `name`. */
  private resolve(ref: Reference, name: string): Branch | string {
    const k = key(ref.branch, ref.event);
    let base = this.revertCache.get(k);
    if (!base) {
      const head = this.branches.get(ref.branch);
      if (head && head.state.head === ref.event) base = head;
    }
    base ??= this.pastState(ref) ?? undefined;
    if (!base) return `its reference (branch ${ref.branch}, event ${ref.event}) names no replayed event of that branch (MissingReference)`;
    const b = cloneB(base, name);
    if (b.state.context) repair(b.state.context);
    const err = applySelection(b.state, ref.selection);
    if (err) return err.kind === 'missing-message' ? `message ${err.messageId} is not in the referenced state (MissingMessage)` : `message ${err.messageId} has no context boundary there (MissingContextBoundary)`;
    if (ref.selection.kind !== 'at_event' && b.state.context) {
      const last = b.state.todoPoints[b.state.todoPoints.length - 1];
      b.state.context.todo = last ? (this.todoValues.get(last[1]) ?? null) : null;
    }
    b.lastNewKind = null;
    return b;
  }

  /** The state of a branch right after an older event, rebuilt by replaying the log up to it. */
  private pastState(ref: Reference): Branch | null {
    const index = this.eventIndex.get(key(ref.branch, ref.event));
    if (index === undefined || this.out.dry) return null;
    const dry = new CoshMachine({ dry: true, emit: () => -1, report: () => undefined, nextSeq: 0 });
    const line: JsonLine = { value: {}, line: 0, offset: 0, length: 0 };
    for (let i = 0; i <= index; i++) dry.push(line, this.history[i] as Envelope);
    dry.flush();
    const b = dry.branches.get(ref.branch);
    return b && b.state.head === ref.event ? b : null;
  }

  // -------------------------------------------------------------------------------------------
  // Changes within a branch
  // -------------------------------------------------------------------------------------------

  private change(b: Branch, l: JsonLine, ev: Envelope, type: string): void {
    const d = ev.delta;
    const st = b.state;
    switch (d.type) {
      case 'metadata':
        if (d.change.field === 'title') this.record(l, ev.branch, type, d.change.title);
        else if (d.change.provider === null && d.change.model === null && d.change.reasoning === null) this.record(l, ev.branch, type, 'model cleared');
        else this.header(l, ev.branch, d.change, false);
        return;
      case 'message': {
        const c = d.change;
        if (c.op === 'upsert') {
          const ids = c.contextItemIds;
          if (ids.length > 0 && !st.boundaries.has(c.messageId)) st.boundaries.set(c.messageId, { first: Math.min(...ids), last: Math.max(...ids) });
          if (!st.messages.includes(c.messageId)) st.messages.push(c.messageId);
          if (ids.length === 0) st.ctxIds.delete(c.messageId);
          else st.ctxIds.set(c.messageId, ids.slice());
          this.record(l, ev.branch, type, `display message ${c.messageId}${ids.length > 0 ? ` (context items ${ids.join(', ')})` : ''}`);
        } else {
          st.messages = st.messages.filter((m) => m !== c.messageId);
          st.ctxIds.delete(c.messageId);
          st.boundaries.delete(c.messageId);
          this.record(l, ev.branch, type, `display message ${c.messageId} removed`);
        }
        return;
      }
      case 'snapshot':
        this.record(l, ev.branch, type, `${d.name} → ${d.target.branch}@${d.target.event}`);
        return;
      case 'tombstone':
        st.deleted = true;
        this.record(l, ev.branch, type, `branch ${ev.branch} deleted (kept in the file)`);
        return;
      case 'context':
        this.context(b, l, ev, d.change, type);
        return;
      default:
        return;
    }
  }

  private ctx(b: Branch): Context {
    b.state.context ??= newContext();
    return b.state.context;
  }

  private context(b: Branch, l: JsonLine, ev: Envelope, ch: ContextChange, type: string): void {
    const st = b.state;
    const branch = ev.branch;
    if (ch.field === 'initialize') st.todoPoints = [];
    const plan = ch.field === 'initialize' ? { value: ch.todo, after: ch.todoAfter } : ch.field === 'todo' ? { value: ch.value, after: ch.after } : null;
    if (plan && plan.after !== null) {
      this.todoValues.set(ev.eventId, plan.value);
      st.todoPoints.push([plan.after, ev.eventId]);
    }
    switch (ch.field) {
      case 'message_boundary':
        st.boundaries.set(ch.messageId, { first: ch.first, last: ch.last });
        this.record(l, branch, type, `message ${ch.messageId}: groups ${ch.first}..${ch.last}`);
        return;
      case 'initialize': {
        const prev = st.context;
        const c = newContext();
        c.maxTokens = ch.maxTokens;
        c.split = ch.split;
        c.mapReduce = ch.mapReduce;
        c.visibleFrom = ch.visibleFrom;
        c.hidden = new Set(ch.hidden);
        c.masked = new Set(ch.masked);
        c.todo = ch.todo;
        st.context = c;
        this.record(l, branch, type, `context initialized (budget ${ch.maxTokens} tokens${ch.visibleFrom !== null ? `, visible from #${ch.visibleFrom}` : ''})`);
        this.staging(b, l, ev, prev?.mapReduce ?? null, ch.mapReduce, prev?.split != null, ch.split !== null);
        if (ch.todoLossy) this.out.report('COSH_TODO_SHAPE', 'info', `Line ${l.line}: the plan has a shape cosh no longer reads; like cosh, it is taken as no plan.`, [], l.line);
        if (ch.todo !== null || b.todoCanon !== null) this.writeTodo(b, l, ch.todo, ch.todoAfter ?? undefined, false);
        this.sync(b, l, null);
        return;
      }
      case 'item_upsert':
        this.upsert(b, l, ev, ch.item);
        return;
      case 'item_remove': {
        const c = this.ctx(b);
        const before = c.items.length;
        if (c.byId.has(ch.itemId)) setItems(c, c.items.filter((it) => it.coshId !== ch.itemId));
        repair(c);
        if (c.items.length === before) this.record(l, branch, type, `item #${ch.itemId} was not in the context`);
        this.sync(b, l, null);
        return;
      }
      case 'next_id':
        this.ctx(b);
        this.record(l, branch, type, `next item id ${ch.value}`);
        return;
      case 'max_tokens':
        this.ctx(b).maxTokens = ch.value;
        this.record(l, branch, type, `context budget ${ch.value} tokens`);
        return;
      case 'overflow_model':
        this.ctx(b);
        this.record(l, branch, type, ch.value === null ? 'overflow cleared' : `summarizer overflow stuck for ${ch.value}`);
        return;
      case 'last_tool_set':
        this.ctx(b);
        this.record(l, branch, type, ch.value === null ? 'no tool set' : `tools offered: ${ch.value.join(', ')}`);
        return;
      case 'split': {
        const c = this.ctx(b);
        const had = c.split !== null;
        c.split = ch.value;
        if (ch.value === null || !had) c.splitAppends = 0;
        this.staging(b, l, ev, c.mapReduce, c.mapReduce, had, ch.value !== null);
        return;
      }
      case 'map_reduce': {
        const c = this.ctx(b);
        const prev = c.mapReduce;
        c.mapReduce = ch.value;
        this.staging(b, l, ev, prev, ch.value, c.split !== null, c.split !== null);
        return;
      }
      case 'map_segment_accepted': {
        const c = this.ctx(b);
        const s = c.mapReduce;
        const seg = s?.segments.find((x) => x.ordinal === ch.ordinal);
        if (!s || !seg || seg.summary !== null) {
          this.record(l, branch, type, `map ${ch.ordinal}: ignored (no open segment with that ordinal)`);
          return;
        }
        c.mapReduce = { ...s, segments: s.segments.map((x) => (x.ordinal === ch.ordinal ? { ...x, summary: ch.summary } : x)) };
        this.mapEvent(b, l, ev, ch.ordinal, ch.summary);
        return;
      }
      case 'split_buffer_append': {
        const c = this.ctx(b);
        if (!c.split) {
          this.record(l, branch, type, 'ignored: no split staging');
          return;
        }
        c.split = { ...c.split, buffer: c.split.buffer + ch.appended, cursor: ch.cursor };
        this.mapEvent(b, l, ev, c.splitAppends++, ch.appended);
        return;
      }
      case 'todo':
        this.ctx(b).todo = ch.value;
        if (ch.lossy) this.out.report('COSH_TODO_SHAPE', 'info', `Line ${l.line}: the plan has a shape cosh no longer reads; like cosh, it is taken as no plan.`, [], l.line);
        this.writeTodo(b, l, ch.value, ch.after ?? undefined, true);
        return;
      case 'visible_from':
        this.ctx(b).visibleFrom = ch.value;
        this.sync(b, l, null);
        return;
      case 'hidden': {
        const c = this.ctx(b);
        for (const id of ch.ids) {
          if (ch.on) c.hidden.add(id);
          else c.hidden.delete(id);
        }
        this.sync(b, l, null);
        return;
      }
      case 'masked': {
        const c = this.ctx(b);
        for (const id of ch.ids) {
          if (ch.on) c.masked.add(id);
          else c.masked.delete(id);
        }
        this.sync(b, l, null);
        return;
      }
    }
  }

  private allocCanon(coshId: number): string {
    let id = String(coshId);
    for (let k = 2; this.usedCanon.has(id); k++) id = `${coshId}~${k}`;
    this.usedCanon.add(id);
    return id;
  }

  private upsert(b: Branch, l: JsonLine, ev: Envelope, item: CoshItem): void {
    const c = this.ctx(b);
    const at = c.byId.has(item.id) ? c.items.findIndex((it) => it.coshId === item.id) : -1;
    const m: MItem = {
      coshId: item.id, kind: item.kind, canon: this.allocCanon(item.id),
      ...(item.callId !== undefined ? { callId: item.callId } : {}),
      ...(item.name !== undefined ? { name: item.name } : {}),
      ...(item.covered !== undefined ? { covered: item.covered } : {}),
    };
    const replaced = at >= 0 ? (c.items[at] as MItem) : null;
    if (replaced) {
      c.items[at] = m;
      c.byCanon.delete(replaced.canon);
    } else c.items.push(m);
    c.byId.set(item.id, m);
    c.byCanon.set(m.canon, m);
    // A mask_tool_result call masks the newest result when it is dispatched: a `masked` change
    // of the same save for exactly that result belongs here, before the call's own result.
    let relocated = false;
    if (!replaced && item.kind === 'ToolCall' && item.name === 'mask_tool_result' && this.pendingMasks.size > 0) {
      const target = maskTarget(c);
      if (target !== null && this.pendingMasks.has(target)) {
        this.pendingMasks.delete(target);
        c.masked.add(target);
        relocated = true;
      }
    }
    const S = b.surface;
    if (!replaced && !relocated && !b.divergenceReported && item.kind !== 'Compaction' && !isDisplayOnly(item.kind) && !c.masked.has(item.id)
      && (item.kind !== 'ToolResult' || S.order.length > 0) && hiddenWhy(c, activeCheckpoint(c)?.covered ?? [], item.id) === null) {
      // The common case: a new visible item at the end of an unchanged view.
      this.request(b, l, m.kind);
      this.kindOf.set(m.canon, m.kind);
      S.append(m.canon);
      const seq = this.emit({ kind: 'item', item: canonicalItem(item, m.canon), op: { op: 'append' } }, l, b.state.name);
      if (seq >= 0) this.canonSeq.set(m.canon, seq);
      return;
    }
    this.sync(b, l, { item: m, cosh: item, replaced });
  }

  /** A model output: the call that produced it saw the surface as it is now. */
  private request(b: Branch, l: JsonLine, kind: ItemKind): void {
    if (OUTPUT.has(kind) && (b.lastNewKind === null || (!OUTPUT.has(b.lastNewKind) && b.lastNewKind !== 'UserCommand'))) {
      this.emit({ kind: 'request', id: `req-${++this.requestCount}`, purpose: 'agent' }, l, b.state.name);
    }
    b.lastNewKind = kind;
  }

  // -------------------------------------------------------------------------------------------
  // The plan
  // -------------------------------------------------------------------------------------------

  private writeTodo(b: Branch, l: JsonLine, value: TodoValue, afterCosh: number | null | undefined, always: boolean): void {
    if (value === null && b.todoCanon === null) return;
    const todos = todosOf(value);
    let after: string | null | undefined;
    if (afterCosh === 0) after = null;
    else if (afterCosh !== undefined && afterCosh !== null) {
      const it = b.state.context?.byId.get(afterCosh);
      after = it ? it.canon : String(afterCosh);
    }
    const json = JSON.stringify({ todos, after: after === undefined ? '(unbound)' : after });
    if (!always && json === b.todoCanon) return;
    b.todoCanon = json;
    const e: EventOf<'todo'> = { kind: 'todo', todos };
    if (after !== undefined) e.after = after;
    this.emit(e, l, b.state.name);
  }

  // -------------------------------------------------------------------------------------------
  // Staging (MapReduce and legacy split) as a compaction bracket
  // -------------------------------------------------------------------------------------------

  private policy(b: Branch): BudgetPolicy {
    const w = b.state.context?.maxTokens;
    const p: BudgetPolicy = { name: 'cosh (COMPACT_PCT 80, RECENT_RAW_PCT 20)', triggerRatio: 0.8, rawTailRatio: 0.2 };
    if (w !== undefined && w > 0) p.window = w;
    return p;
  }

  private openBracket(b: Branch, l: JsonLine, ev: Envelope, strategy: string): OpenCompaction {
    if (b.open) return b.open;
    const id = `cmp-e${ev.eventId}`;
    const startSeq = this.emit({ kind: 'compaction/start', id, trigger: 'unknown', strategy, policy: this.policy(b) }, l, b.state.name);
    b.open = { id, startSeq, strategy };
    return b.open;
  }

  private canonOf(b: Branch, coshId: number): string {
    return b.state.context?.byId.get(coshId)?.canon ?? String(coshId);
  }

  private segments(b: Branch, s: Staging): { ordinal: number; items: string[] }[] {
    return s.segments.filter((x) => x.itemIds.length > 0).map((x) => ({ ordinal: x.ordinal, items: x.itemIds.map((id) => this.canonOf(b, id)) }));
  }

  private staging(b: Branch, l: JsonLine, ev: Envelope, prev: Staging | null, next: Staging | null, splitBefore: boolean, splitNow: boolean): void {
    const branch = b.state.name;
    if (next) {
      const open = this.openBracket(b, l, ev, 'mapreduce');
      const version = next.version;
      if (version !== 1 && version !== 2 && version !== 3) {
        this.record(l, branch, 'context/map_reduce', `staging version ${String(version)}: not understood`);
        this.out.report('COSH_STAGING_VERSION', 'warning', `Line ${l.line}: MapReduce staging version ${String(version)}; versions 1, 2 and 3 are known. Kept as a record.`, [], l.line);
        return;
      }
      const structural = !prev || prev.version !== version || prev.fingerprint !== next.fingerprint || JSON.stringify(prev.sourceIds) !== JSON.stringify(next.sourceIds);
      const prevOrdinals = new Set(prev?.segments.map((x) => x.ordinal) ?? []);
      if (!structural && prev && next.repartitions > prev.repartitions) {
        const replaces = prev.segments.filter((x) => x.summary === null && !next.segments.some((y) => y.ordinal === x.ordinal)).map((x) => x.ordinal);
        const fresh = this.segments(b, { ...next, segments: next.segments.filter((x) => !prevOrdinals.has(x.ordinal)) });
        const e: EventOf<'mapreduce/repartition'> = { kind: 'mapreduce/repartition', compactionId: open.id, attempt: next.repartitions, segments: fresh };
        if (replaces.length > 0) e.replaces = replaces;
        this.emit(e, l, branch);
      } else if (structural || JSON.stringify(prev?.segments.map((x) => [x.ordinal, x.itemIds])) !== JSON.stringify(next.segments.map((x) => [x.ordinal, x.itemIds]))) {
        this.emit({ kind: 'mapreduce/staging', compactionId: open.id, version, fingerprint: next.fingerprint, segments: this.segments(b, next) }, l, branch);
      }
      for (const seg of next.segments) {
        if (seg.summary === null) continue;
        const before = structural ? undefined : prev?.segments.find((x) => x.ordinal === seg.ordinal);
        if (before && before.summary !== null) continue;
        this.mapEvent(b, l, ev, seg.ordinal, seg.summary);
      }
      const notes: string[] = [];
      if (next.phase !== null && next.phase !== prev?.phase) notes.push(`phase ${next.phase}${next.level > 0 ? ` (level ${next.level})` : ''}`);
      if (next.candidate !== null && next.candidate !== prev?.candidate) notes.push(`candidate: ${next.candidate}`);
      if (next.audits > (prev?.audits ?? 0)) notes.push(`${next.audits - (prev?.audits ?? 0)} audit(s) recorded`);
      if (notes.length > 0) this.record(l, branch, 'context/map_reduce', notes.join('; '));
    } else if (splitNow && !splitBefore) {
      const open = this.openBracket(b, l, ev, 'split');
      // A legacy split buffer: sequential chunk summaries, no segments.
      this.emit({ kind: 'mapreduce/staging', compactionId: open.id, version: null, fingerprint: '', segments: [] }, l, branch);
    }
    const c = b.state.context;
    if (b.open && c && c.mapReduce === null && c.split === null) {
      const id = b.open.id;
      b.open = null;
      this.emit({ kind: 'compaction/end', id, outcome: 'failed', error: { message: 'The staging was discarded with no checkpoint committed; the log does not say why (abort, invalidation or a failed summarizer).' } }, l, branch);
    }
  }

  private mapEvent(b: Branch, l: JsonLine, ev: Envelope, ordinal: number, summary: string): void {
    const branch = b.state.name;
    const open = this.openBracket(b, l, ev, 'mapreduce');
    this.emit({ kind: 'mapreduce/map', compactionId: open.id, ordinal, status: 'accepted', summary: [{ type: 'text', text: summary }] }, l, branch);
  }

  // -------------------------------------------------------------------------------------------
  // The view: cosh's composition vs Palimpsest's surface
  // -------------------------------------------------------------------------------------------

  private dropReason(c: Context | null, view: ReturnType<typeof modelView>, canon: string, byCanon?: ReadonlyMap<string, MItem>): { reason: 'hidden' | 'compaction' | 'other'; compactionId?: string } {
    const it = (byCanon ?? c?.byCanon)?.get(canon);
    if (!c || !it) return { reason: 'other' };
    const cover = view.checkpoint?.covered ?? [];
    const why = hiddenWhy(c, cover, it.coshId);
    if (why === 'hidden') return { reason: 'hidden' };
    if (why === 'checkpoint' && view.checkpoint) {
      const cid = this.compactionOf.get(view.checkpoint.canon);
      return cid !== undefined ? { reason: 'compaction', compactionId: cid } : { reason: 'compaction' };
    }
    if (why === 'legacy-boundary') {
      // The legacy boundary is set to the checkpoint that folded what lies before it.
      const atBoundary = c.visibleFrom === null ? undefined : c.byId.get(c.visibleFrom);
      const cp = (atBoundary?.kind === 'Compaction' ? atBoundary : undefined) ?? activeCheckpoint(c);
      const cid = cp ? this.compactionOf.get(cp.canon) : undefined;
      return cid !== undefined ? { reason: 'compaction', compactionId: cid } : { reason: 'compaction' };
    }
    return { reason: 'other' };
  }

  private drop(b: Branch, l: JsonLine, ids: string[], r: { reason: 'hidden' | 'compaction' | 'other'; compactionId?: string }): void {
    if (ids.length === 0) return;
    for (const id of ids) b.surface.remove(id);
    const e: EventOf<'drop'> = { kind: 'drop', items: ids, reason: r.reason };
    if (r.compactionId !== undefined) e.compactionId = r.compactionId;
    this.emit(e, l, b.state.name);
  }

  private sync(b: Branch, l: JsonLine, n: { item: MItem; cosh: CoshItem; replaced: MItem | null } | null): void {
    const c = b.state.context;
    const view = modelView(c);
    const want = view.items.map((it) => it.canon);
    const wantSet = new Set(want);
    const S = b.surface;
    const branch = b.state.name;
    const newCanon = n?.item.canon ?? null;
    const byCanon: ReadonlyMap<string, MItem> = c?.byCanon ?? new Map();

    // Items a new checkpoint takes off by its `covers`.
    let covers: string[] = [];
    if (n && n.item.kind === 'Compaction' && c) {
      const ranges = n.item.covered ?? [];
      covers = c.items.filter((it) => it !== n.item && inRanges(ranges, it.coshId) && !wantSet.has(it.canon)).map((it) => it.canon);
    }
    const coverSet = wantSet.has(newCanon ?? '') ? new Set(covers) : new Set<string>();
    const old = n?.replaced?.canon ?? null;

    // 1. Leave: grouped by cause, in surface order.
    let group: string[] = [];
    let groupReason: ReturnType<CoshMachine['dropReason']> | null = null;
    for (const id of S.order.slice()) {
      if (wantSet.has(id) || coverSet.has(id) || (id === old && !isDisplayOnly(n?.item.kind ?? 'User'))) continue;
      const r = this.dropReason(c, view, id, byCanon);
      if (groupReason && (groupReason.reason !== r.reason || groupReason.compactionId !== r.compactionId)) {
        this.drop(b, l, group, groupReason);
        group = [];
      }
      group.push(id);
      groupReason = r;
    }
    if (groupReason) this.drop(b, l, group, groupReason);

    // 2. Come back.
    const restore: string[] = [];
    for (const id of want) {
      if (id === newCanon || S.isLive(id)) continue;
      if (S.canRestore(id)) {
        S.restore(id);
        restore.push(id);
      }
    }
    if (restore.length > 0) this.emit({ kind: 'restore', items: restore }, l, branch);

    // 3. The new item (or new version).
    if (n) this.place(b, l, n, want, wantSet, covers, view);

    // 4. Masks: the model's request, with the reference cosh renders.
    for (const id of want) {
      const on = view.masked.has(id);
      if (on === S.masked.has(id)) continue;
      S.mask(id, on);
      const it = byCanon.get(id);
      const e: EventOf<'mask'> = { kind: 'mask', items: [id], masked: on, by: 'model' };
      if (on && it) e.reference = maskReference(it.coshId, it.callId ?? '');
      this.emit(e, l, branch);
    }

    // 5. They must now agree.
    const got = S.order;
    if (!b.divergenceReported && (got.length !== want.length || got.some((x, i) => x !== want[i]))) {
      b.divergenceReported = true;
      this.out.report('COSH_VIEW_DIVERGES', 'warning', `Line ${l.line}: on branch ${branch}, the view Palimpsest rebuilds (${got.join(', ') || 'empty'}) differs from cosh's composition (${want.join(', ') || 'empty'}); views on this branch after this point may be wrong.`, [], l.line);
    }
  }

  private place(b: Branch, l: JsonLine, n: { item: MItem; cosh: CoshItem; replaced: MItem | null }, want: string[], wantSet: Set<string>, covers: string[], view: ReturnType<typeof modelView>): void {
    const S = b.surface;
    const branch = b.state.name;
    const canon = n.item.canon;
    const item: Item = canonicalItem(n.cosh, canon);
    const c = b.state.context;

    if (!n.replaced) this.request(b, l, n.item.kind);

    let sources: number[] | undefined;
    let compactionId: string | null = null;
    if (n.item.kind === 'Compaction') {
      const covered = n.item.covered ?? [];
      const source = c ? c.items.filter((it) => it !== n.item && inRanges(covered, it.coshId)).map((it) => it.canon) : [];
      const open = b.open;
      compactionId = open ? open.id : `cmp-${canon}`;
      const startSeq = open ? open.startSeq : this.emit({ kind: 'compaction/start', id: compactionId, trigger: 'unknown', strategy: covered.length > 0 ? 'checkpoint' : 'legacy (visible_from)', policy: this.policy(b), source }, l, branch);
      const summarySeq = this.emit({ kind: 'compaction/summary', id: compactionId, summary: [{ type: 'text', text: n.cosh.text }], source }, l, branch);
      item.derivation = { kind: 'checkpoint', compactionId, covers, part: 'summary' };
      sources = [startSeq, summarySeq, ...covers.map((x) => this.canonSeq.get(x)).filter((x): x is number => x !== undefined)].filter((x) => x >= 0);
      this.compactionOf.set(canon, compactionId);
    }

    const emitItem = (op: EventOf<'item'>['op']): void => {
      const e: EventOf<'item'> = { kind: 'item', item, op };
      if (sources && sources.length > 0) e.sources = sources;
      const seq = this.emit(e, l, branch);
      if (seq >= 0) this.canonSeq.set(canon, seq);
      // A checkpoint takes the items it covers off the surface as it enters (fold.ts).
      if (item.derivation?.kind === 'checkpoint' && S.isLive(canon)) for (const x of item.derivation.covers) if (x !== canon) S.remove(x);
    };

    this.kindOf.set(canon, n.item.kind);
    if (isDisplayOnly(n.item.kind)) {
      emitItem({ op: 'log' });
    } else if (n.replaced) {
      // A new version takes the old one's place (and so its sort key).
      const oldId = n.replaced.canon;
      if (!S.isLive(oldId) && S.canRestore(oldId)) {
        S.restore(oldId);
        this.emit({ kind: 'restore', items: [oldId] }, l, branch);
      }
      if (S.isLive(oldId)) {
        S.replace(canon, oldId, oldId);
        emitItem({ op: 'replace', from: oldId, to: oldId });
      } else {
        S.append(canon);
        emitItem({ op: 'append' });
      }
    } else if (n.item.kind === 'Compaction') {
      this.placeCheckpoint(b, canon, want, emitItem);
    } else {
      // cosh appends new items to its timeline.
      S.append(canon);
      emitItem({ op: 'append' });
    }
    if (!isDisplayOnly(n.item.kind) && S.isLive(canon) && !wantSet.has(canon)) this.drop(b, l, [canon], this.dropReason(c, view, canon));
    if (compactionId !== null) {
      if (b.open && b.open.id === compactionId) b.open = null;
      this.emit({ kind: 'compaction/end', id: compactionId, outcome: 'committed' }, l, branch);
    }
  }

  /**
   * A new checkpoint goes where cosh composes it: after the checkpoints in view, before the first
   * raw item of the tail (cosh: "the checkpoint is composed before the raw tail even though its
   * event was appended afterward"); with no tail, at the end. Raw items are appended, so later
   * items sort after it; items it covers or that are hidden keep their places before it, which is
   * where cosh would show them only if they came back while it is in view — something cosh's own
   * rules do not do (a new checkpoint covers the older one's ranges; hidden items are not shown
   * again). Should it happen, the comparison after every event reports it.
   */
  private placeCheckpoint(b: Branch, canon: string, want: readonly string[], emitItem: (op: EventOf<'item'>['op']) => void): void {
    const S = b.surface;
    const at = want.indexOf(canon);
    const tail = at < 0 ? undefined : want.slice(at + 1).find((x) => S.isLive(x) && this.kindOf.get(x) !== 'Compaction');
    if (tail !== undefined) {
      S.insertBefore(canon, tail);
      emitItem({ op: 'insert', before: tail });
    } else {
      S.append(canon);
      emitItem({ op: 'append' });
    }
  }

  // -------------------------------------------------------------------------------------------
  // End of file
  // -------------------------------------------------------------------------------------------

  finish(): void {
    this.flush();
    if (this.nonMonotonic) {
      const m = this.nonMonotonic;
      this.out.report('COSH_NON_MONOTONIC', 'warning', `${m.count} event${m.count === 1 ? '' : 's'} (first at line ${m.line}) carr${m.count === 1 ? 'ies' : 'y'} an event_id that does not increase; like cosh (first writer wins), they are skipped and kept as records.`, m.seqs, m.line);
    }
    if (this.badVersion) {
      const v = this.badVersion;
      this.out.report('COSH_VERSION', 'error', `${v.count} event${v.count === 1 ? '' : 's'} (first at line ${v.line}) carr${v.count === 1 ? 'ies' : 'y'} schema_version ${v.version}; cosh reads version 1 only and refuses the history. They are kept as records, not replayed.`, [], v.line);
    }
    for (const [branch, m] of this.missingBranches) {
      this.out.report('COSH_BAD_REF', 'error', `${m.count} event${m.count === 1 ? '' : 's'} (first at line ${m.line}) belong to branch ${branch}, which no genesis or fork created (MissingBranch: cosh refuses the history). Kept as records.`, [], m.line);
    }
  }
}

/** `mask_newest_tool_result`'s target: the newest visible, unmasked result that is not a mask call's own. */
function maskTarget(c: Context): number | null {
  const maskCalls = new Set(c.items.filter((it) => it.kind === 'ToolCall' && it.name === 'mask_tool_result').map((it) => it.callId));
  const cover = activeCheckpoint(c)?.covered ?? [];
  for (let i = c.items.length - 1; i >= 0; i--) {
    const it = c.items[i] as MItem;
    if (it.kind !== 'ToolResult' || hiddenWhy(c, cover, it.coshId) !== null) continue;
    if (!c.masked.has(it.coshId) && !maskCalls.has(it.callId)) return it.coshId;
  }
  return null;
}
