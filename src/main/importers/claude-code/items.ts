import type { EventOf } from '../../../shared/model/event';
import type { Item } from '../../../shared/model/item';
import type { Branch, Placement, Skel } from './skeleton';
import { type NodeData, insertBefore, push } from './surface';

// Putting an item on a branch: its event, the importer's copy of the surface, the branch's head.

export function itemEvent(item: Item, op: EventOf<'item'>['op'], at: string | undefined): EventOf<'item'> {
  const e: EventOf<'item'> = { kind: 'item', item, op };
  if (at !== undefined) e.at = at;
  return e;
}

/** Put a new item on the importer's copy of the branch's surface. */
export function enter(b: Branch, pl: Placement, data: NodeData): void {
  if (pl.before !== undefined) {
    const n = insertBefore(b.node, pl.before, data);
    if (n) {
      b.node = n;
      return;
    }
  }
  b.node = push(b.node, data);
}

/** The record is now the head of its branch. */
export function settle(
  skel: Skel | null,
  pl: Placement,
  seq: number,
  itemId: string | undefined,
  isNew: boolean,
  msgId: string | undefined,
): void {
  const b = pl.branch;
  if (isNew && itemId !== undefined && pl.parent && pl.parent.succ === undefined) pl.parent.succ = itemId;
  if (!skel) return;
  skel.branch = b;
  skel.tailSeq = seq;
  skel.itemId = itemId;
  skel.msgId = msgId;
  skel.node = b.node;
  skel.req = b.lastReq;
  b.head = skel;
}
