import type { EventOf } from '../../../shared/model/event';
import type { Derivation, Item, Role } from '../../../shared/model/item';
import type { JsonLine } from '../../reader/types';
import type { MappedItem } from './blocks';
import { closeCall } from './calls';
import { type Obj, nat } from './json';
import type { CodexState } from './state';

/**
 * The live history: the item ids Codex would send next, in order, with what rollbacks and
 * compactions need to know of each item (its user text, whether it is injected context, its
 * content fingerprint).
 */

/** Surface ops without fields, shared by every item that uses them (events are never mutated). */
export const APPEND: EventOf<'item'>['op'] = Object.freeze({ op: 'append' });
export const LOG: EventOf<'item'>['op'] = Object.freeze({ op: 'log' });

export interface ItemInfo {
  readonly id: string;
  readonly seq: number;
  readonly role: Role;
  /** The text of a user turn (not context, not a summary), for rollbacks and legacy compactions. */
  readonly userText: string | undefined;
  /** Shown as `meta`: context the harness injected. */
  readonly context: boolean;
  /** The mapped item, kept only for initial-context messages (a legacy compaction copies them). */
  readonly mapped: MappedItem | undefined;
  /**
   * Where the text of a user turn or an initial-context message can be re-read (a legacy
   * compaction's copies of it are emitted from there); no value kept.
   */
  readonly at: JsonLine | undefined;
}

export interface PlaceOpts {
  op: EventOf<'item'>['op'];
  derivation?: Derivation;
  sources?: number[];
  origin?: string;
  meta?: boolean;
  from?: JsonLine;
}

/** The value of a line kept only for its place in the file. */
const NO_VALUE: Record<string, unknown> = Object.freeze({});

/** Emit an item event and track it in the live history. */
export function place(s: CodexState, id: string, m: MappedItem, opts: PlaceOpts): ItemInfo | undefined {
  const item: Item = { id, role: m.role, blocks: m.blocks };
  const context = opts.meta ?? (m.contextual || (s.contextBlock && m.role === 'user'));
  if (context) item.meta = true;
  const origin = opts.origin ?? (context && m.origin === undefined ? 'context' : m.origin);
  if (origin !== undefined) item.origin = origin;
  if (opts.derivation) item.derivation = opts.derivation;
  const event: EventOf<'item'> = { kind: 'item', item, op: opts.op };
  if (opts.sources) event.sources = opts.sources;
  const seq = s.emit(event, opts.from);
  if (opts.op.op !== 'log') {
    s.live.push(id);
    s.liveSeqs.push(seq);
    s.lastPlaced = m.type;
  }
  s.turn.item();
  // A legacy compaction's rebuilt copy of a user message has no fingerprint but is a user turn
  // all the same: the next legacy compaction keeps it again, a rollback counts it.
  if (m.key === undefined && m.userText === undefined && !s.contextBlock) return undefined;
  const userText = context ? undefined : m.userText;
  const from = opts.from ?? s.cur;
  const info: ItemInfo = {
    id,
    seq,
    role: m.role,
    userText,
    context,
    mapped: s.contextBlock ? m : undefined,
    at:
      userText !== undefined || s.contextBlock ? { value: NO_VALUE, line: from.line, offset: from.offset, length: from.length } : undefined,
  };
  s.infos.set(id, info);
  if (m.key !== undefined) {
    const ids = s.byKey.get(m.key);
    if (ids) ids.push(id);
    else s.byKey.set(m.key, [id]);
  }
  return info;
}

/** The original a replacement entry copies: same content, on the old surface if possible, newest first. */
export function match(s: CodexState, key: string | undefined, oldSet: ReadonlySet<string>, used: ReadonlySet<string>): ItemInfo | null {
  if (key === undefined) return null;
  const ids = s.byKey.get(key);
  if (!ids) return null;
  let fallback: string | undefined;
  for (let i = ids.length - 1; i >= 0; i--) {
    const id = ids[i] as string;
    if (used.has(id)) continue;
    if (oldSet.has(id)) return s.infos.get(id) ?? null;
    fallback ??= id;
  }
  return fallback !== undefined ? (s.infos.get(fallback) ?? null) : null;
}

/**
 * `thread_rolled_back {num_turns}`: Codex drops the last `num_turns` user turns from the history
 * (`drop_last_n_user_turns`): everything from the n-th last user message on; items before the
 * first user message stay.
 */
export function rollback(s: CodexState, p: Obj): void {
  closeCall(s);
  const n = nat(p.num_turns);
  const positions: number[] = [];
  s.live.forEach((id, i) => {
    if (s.infos.get(id)?.userText !== undefined) positions.push(i);
  });
  const firstUser = positions[0];
  if (n === undefined || n === 0 || firstUser === undefined) {
    s.record('event_msg/thread_rolled_back', n === undefined ? 'malformed: no "num_turns"' : `rolled back ${n} turns: nothing to drop`);
    return;
  }
  const cut = n >= positions.length ? firstUser : (positions[positions.length - n] as number);
  const removed = s.live.slice(cut);
  s.live = s.live.slice(0, cut);
  s.liveSeqs = s.liveSeqs.slice(0, cut);
  s.record('event_msg/thread_rolled_back', `rolled back ${n} user turn${n === 1 ? '' : 's'}: ${removed.length} items leave the history`);
  if (removed.length > 0) s.emit({ kind: 'drop', items: removed, reason: 'other' });
}
