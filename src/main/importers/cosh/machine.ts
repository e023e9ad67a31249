import type { Severity } from '../../../shared/model/diagnostic';
import type { EventBody, EventOf } from '../../../shared/model/event';
import type { JsonLine } from '../../reader/types';
import { oneLine } from '../dsh/json';
import { change, genesis } from './branch-deltas';
import { type Branch, key } from './branches';
import type { Envelope, ItemKind, Reference, TodoValue } from './parse';
import { reference } from './references';
import { REPEATABLE, rank } from './saves';

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
 *
 * This file reads the events in file order, grouped into saves (./saves.ts), and hands each to
 * the handler of its delta: ./branch-deltas.ts (genesis, metadata, display messages, snapshot,
 * tombstone), ./references.ts (fork, revert, rollback), ./context-deltas.ts (one per context
 * field, with ./upsert.ts for items, ./plan.ts for the plan, ./staging.ts for MapReduce and split
 * staging). ./view.ts compares the two views and writes the difference; ./requests.ts infers the
 * requests.
 */

export interface MachineOut {
  readonly dry: boolean;
  emit(event: EventBody, from: JsonLine): number;
  report(rule: string, severity: Severity, message: string, seqs?: number[], line?: number | null): void;
  readonly nextSeq: number;
}

interface Queued {
  readonly l: JsonLine;
  readonly ev: Envelope;
}

/** Strip texts for the replay log: only structure is needed to rebuild a past state. */
function lighten(ev: Envelope): Envelope {
  const d = ev.delta;
  if (d.type !== 'context') return ev;
  const c = d.change;
  if (c.field === 'item_upsert')
    return { ...ev, delta: { type: 'context', change: { field: 'item_upsert', item: { ...c.item, text: '' } } } };
  if (c.field === 'map_segment_accepted') return { ...ev, delta: { type: 'context', change: { ...c, summary: '' } } };
  if (c.field === 'split_buffer_append') return { ...ev, delta: { type: 'context', change: { ...c, appended: '' } } };
  return ev;
}

export class CoshMachine {
  readonly branches = new Map<string, Branch>();
  readonly revertCache = new Map<string, Branch>();
  readonly lastSeq = new Map<string, number>();
  readonly eventIndex = new Map<string, number>();
  readonly history: Envelope[] = [];
  readonly todoValues = new Map<number, TodoValue>();
  readonly usedCanon = new Set<string>();
  readonly canonSeq = new Map<string, number>();
  readonly compactionOf = new Map<string, string>();
  /** Kind of every canonical item (ids are unique across branches). */
  readonly kindOf = new Map<string, ItemKind>();
  private lastEventId = 0;
  requestCount = 0;
  private batch: Queued[] = [];
  private batchRank = -1;
  pendingMasks = new Set<number>();

  // Aggregated findings.
  private nonMonotonic: { count: number; line: number; seqs: number[] } | null = null;
  private readonly missingBranches = new Map<string, { count: number; line: number }>();
  private badVersion: { count: number; line: number; version: number } | null = null;

  constructor(readonly out: MachineOut) {}

  // -------------------------------------------------------------------------------------------
  // Input: events in file order, grouped into save batches
  // -------------------------------------------------------------------------------------------

  push(l: JsonLine, ev: Envelope): void {
    const r = rank(ev);
    const last = this.batch[this.batch.length - 1];
    const continues =
      r !== null &&
      last !== undefined &&
      last.ev.branch === ev.branch &&
      ev.eventId === last.ev.eventId + 1 &&
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

  emit(event: EventBody, l: JsonLine, branch: string): number {
    event.branch = branch;
    return this.out.emit(event, l);
  }

  record(l: JsonLine, branch: string, type: string, summary?: string): number {
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
    const type =
      d.type === 'context'
        ? `context/${d.change.field}`
        : d.type === 'metadata'
          ? `metadata/${d.change.field}`
          : d.type === 'message'
            ? `message/${d.change.op}`
            : d.type;
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
        applied = genesis(this, l, ev, d.meta);
        break;
      case 'fork':
      case 'revert':
      case 'rollback':
        applied = reference(this, l, ev);
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
        change(this, b, l, ev, type);
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

  /** The state of a branch right after an older event, rebuilt by replaying the log up to it (./references.ts). */
  pastState(ref: Reference): Branch | null {
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
  // End of file
  // -------------------------------------------------------------------------------------------

  finish(): void {
    this.flush();
    if (this.nonMonotonic) {
      const m = this.nonMonotonic;
      this.out.report(
        'COSH_NON_MONOTONIC',
        'warning',
        `${m.count} event${m.count === 1 ? '' : 's'} (first at line ${m.line}) carr${m.count === 1 ? 'ies' : 'y'} an event_id that does not increase; like cosh (first writer wins), they are skipped and kept as records.`,
        m.seqs,
        m.line,
      );
    }
    if (this.badVersion) {
      const v = this.badVersion;
      this.out.report(
        'COSH_VERSION',
        'error',
        `${v.count} event${v.count === 1 ? '' : 's'} (first at line ${v.line}) carr${v.count === 1 ? 'ies' : 'y'} schema_version ${v.version}; cosh reads version 1 only and refuses the history. They are kept as records, not replayed.`,
        [],
        v.line,
      );
    }
    for (const [branch, m] of this.missingBranches) {
      this.out.report(
        'COSH_BAD_REF',
        'error',
        `${m.count} event${m.count === 1 ? '' : 's'} (first at line ${m.line}) belong to branch ${branch}, which no genesis or fork created (MissingBranch: cosh refuses the history). Kept as records.`,
        [],
        m.line,
      );
    }
  }
}
