import type { Block } from '../../shared/model/content';
import type { EventOf } from '../../shared/model/event';
import type { IndexedItem, Item, Role } from '../../shared/model/item';
import { ShallowEvent, type ShallowSource } from './shallow-event';

const APPEND: EventOf<'item'>['op'] = Object.freeze({ op: 'append' });

const NO_IDS: readonly string[] = Object.freeze([]);

/** One id, several, or none: one string instead of an array per tool call or result. */
export type CallIds = string | readonly string[] | null;

const idList = (ids: CallIds): readonly string[] => (ids === null ? NO_IDS : typeof ids === 'string' ? [ids] : ids);

/**
 * A plain item (no derivation, meta or origin) as a compact log hands it to replay: its id, role
 * and tool call ids, which replay and the diagnostics ask of every item, and its blocks, read from
 * the log's copy of the line each time they are asked for. Replay keeps one of these per item
 * instead of the item's blocks (docs/performance.md, "The compact log").
 *
 * Only `id` and `role` are own properties: the rest is on the prototype, so a spread of it
 * (`{ ...item }`) leaves its blocks out. Code that copies an item names `blocks` (replay's
 * `renamed`); JSON.stringify goes through toJSON.
 */
export class LogItem implements IndexedItem {
  readonly #log: ShallowSource;
  readonly #seq: number;
  readonly #calls: CallIds;
  readonly #answers: CallIds;

  constructor(
    readonly id: string,
    readonly role: Role,
    calls: CallIds,
    answers: CallIds,
    log: ShallowSource,
    seq: number,
  ) {
    this.#log = log;
    this.#seq = seq;
    this.#calls = calls;
    this.#answers = answers;
  }

  get blocks(): Block[] {
    const e = this.#log.at(this.#seq);
    if (e?.kind !== 'item') throw new Error(`The compact log has no item event at seq ${this.#seq}.`);
    return (e as EventOf<'item'>).item.blocks;
  }

  get callIds(): readonly string[] {
    return idList(this.#calls);
  }

  get answerIds(): readonly string[] {
    return idList(this.#answers);
  }

  toJSON(): Item {
    return { id: this.id, role: this.role, blocks: this.blocks };
  }
}

/** The tool call ids an item's blocks issue and answer, as LogItem keeps them. */
export function callIdsOf(blocks: readonly Block[]): { calls: CallIds; answers: CallIds } {
  let calls: CallIds = null;
  let answers: CallIds = null;
  for (const b of blocks) {
    if (b.type === 'tool_call') calls = calls === null ? b.id : [...(typeof calls === 'string' ? [calls] : calls), b.id];
    else if (b.type === 'tool_result')
      answers = answers === null ? b.callId : [...(typeof answers === 'string' ? [answers] : answers), b.callId];
  }
  return { calls, answers };
}

/**
 * A plain item event as replay reads it from a compact log (CompactLog.shallowAt): its item a
 * LogItem, its op an append.
 */
export class LogItemEvent extends ShallowEvent {
  readonly kind = 'item';
  readonly op = APPEND;

  constructor(
    readonly item: LogItem,
    seq: number,
    log: ShallowSource,
  ) {
    super(seq, log);
  }
}
