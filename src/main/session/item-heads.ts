import type { EventOf } from '../../shared/model/event';
import type { Role } from '../../shared/model/item';
import { callIdsOf, LogItem, type CallIds } from './log-item';
import { SeqIndex } from './seq-index';
import type { ShallowSource } from './shallow-event';

const ROLES: readonly Role[] = ['system', 'user', 'assistant', 'tool'];
const ROLE_CODE: ReadonlyMap<string, number> = new Map(ROLES.map((r, i) => [r, i]));

/** Item heads as another thread hands them over (plain data, structured-clonable). */
export interface ItemHeadsPart {
  /** Per seq of the part: its head, or -1. */
  readonly index: Int32Array;
  readonly ids: readonly string[];
  readonly roles: readonly number[];
  readonly calls: readonly CallIds[];
  readonly answers: readonly CallIds[];
}

/**
 * The heads of the plain item events a compact log keeps as bytes: appended (no replace, insert,
 * extend or log op), no sources, and an item of only id, role and blocks. Replay builds the item it
 * keeps from these (a LogItem) without reading the line; any other item event is read whole.
 * Parallel arrays by head, and per seq the head's index: no object per item.
 */
export class ItemHeads {
  private readonly index = new SeqIndex();
  private readonly ids: string[] = [];
  private readonly roles: number[] = [];
  private readonly calls: CallIds[] = [];
  private readonly answers: CallIds[] = [];

  /** Notes the item event at seq when it is plain; says whether it was. */
  note(seq: number, e: EventOf<'item'>): boolean {
    const item = e.item;
    const role = ROLE_CODE.get(item.role);
    if (e.op.op !== 'append' || e.sources !== undefined || role === undefined) return false;
    for (const k in item) if (k !== 'id' && k !== 'role' && k !== 'blocks') return false;
    const { calls, answers } = callIdsOf(item.blocks);
    this.index.set(seq, this.ids.length);
    this.ids.push(item.id);
    this.roles.push(role);
    this.calls.push(calls);
    this.answers.push(answers);
    return true;
  }

  /** The item of the event at seq as replay keeps it, or null when it has no head (not plain, or not an item). */
  item(seq: number, log: ShallowSource): LogItem | null {
    const h = this.index.get(seq);
    if (h < 0) return null;
    return new LogItem(
      this.ids[h] as string,
      ROLES[this.roles[h] as number] as Role,
      this.calls[h] as CallIds,
      this.answers[h] as CallIds,
      log,
      seq,
    );
  }

  /** Drops the spare room of the seq index once the log is complete. */
  trim(length: number): void {
    this.index.trim(length);
  }

  /** The heads of seqs [0, length), to hand to another thread. */
  export(length: number): ItemHeadsPart {
    return { index: this.index.export(length), ids: this.ids, roles: this.roles, calls: this.calls, answers: this.answers };
  }

  /** Takes another log's heads: its seq s becomes `seqBase + s`. */
  adopt(part: ItemHeadsPart, seqBase: number): void {
    this.index.adopt(part.index, seqBase, this.ids.length);
    for (let h = 0; h < part.ids.length; h++) {
      this.ids.push(part.ids[h] as string);
      this.roles.push(part.roles[h] as number);
      this.calls.push(part.calls[h] as CallIds);
      this.answers.push(part.answers[h] as CallIds);
    }
  }
}
