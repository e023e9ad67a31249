import type { EventOf } from '../../../shared/model/event';
import type { Item } from '../../../shared/model/item';
import { preservedRefs, walkSegment } from '../../dialects/claude-preserved';
import { flush } from './assistant';
import { register, rememberMissing, resolve } from './dag';
import type { ClaudeFile } from './file';
import { itemEvent } from './items';
import { type Obj, id, nat, obj, str } from './json';
import { place, recordBranch } from './placement';
import type { Branch, Compaction, Parent, Skel } from './skeleton';
import { type NodeData, fromArray, toArray } from './surface';

/*
 * compact_boundary and the isCompactSummary line after it (see ./importer.ts, COMPACTION): the
 * compaction's start at the boundary, the summary as the checkpoint placed before the preserved
 * messages, or a drop when no summary follows.
 */

export function boundary(f: ClaudeFile, v: Obj): void {
  const skel = register(f, v);
  if (skel === 'duplicate') {
    f.emit(recordBranch(f, v), {
      kind: 'record',
      type: 'system/compact_boundary',
      summary: 'duplicate uuid: the first record with it stands',
    });
    return;
  }
  const logical = id(v.logicalParentUuid);
  let p: Parent = { state: 'missing', uuid: '' };
  if (logical !== undefined) {
    p = resolve(f, logical);
    if (p.state === 'missing') rememberMissing(f, logical, skel, true);
  }
  // Never part of a response: a logical parent that is not a branch head means a compaction after a rewind.
  const pl = place(f, p, v.isSidechain === true, true, undefined);
  const b = pl.branch;
  flush(f, b);
  if (b.compaction) noSummary(f, b);
  const cm = obj(v.compactMetadata) ?? {};
  const compactionId = id(v.uuid) ?? `compaction-${f.info.index}-${f.cur.line}`;
  const preserved = preservedUuids(f, cm);
  const keepIds = new Set<string>();
  for (const u of preserved) {
    const item = f.s.uuids.get(u)?.itemId;
    if (item !== undefined) keepIds.add(item);
  }
  const surface = toArray(b.node);
  const covers = surface.filter((n) => !keepIds.has(n.id));
  const keep = surface.filter((n) => keepIds.has(n.id));
  const trigger = cm.trigger === 'auto' || cm.trigger === 'manual' ? cm.trigger : 'unknown';
  const start: EventOf<'compaction/start'> = { kind: 'compaction/start', id: compactionId, trigger, source: covers.map((n) => n.id) };
  const pre = nat(cm.preTokens);
  if (pre !== undefined) start.preTokens = pre;
  const at = str(v.timestamp);
  if (at !== undefined) start.at = at;
  const startSeq = f.emit(b, start);
  const c: Compaction = {
    id: compactionId,
    branch: b,
    startSeq,
    order: skel ? skel.order : f.s.order++,
    node: b.node,
    covers,
    keep,
    postTokens: nat(cm.postTokens),
    linked: false,
  };
  b.compaction = c;
  b.preserved = preserved.size > 0 ? preserved : null;
  f.s.compactions.push(c);
  if (skel) {
    skel.branch = b;
    skel.tailSeq = startSeq;
    skel.node = b.node;
    skel.req = b.lastReq;
    b.head = skel;
  }
  b.turnMsg = undefined;
  f.current = b;
  if (!f.subagent && v.isSidechain !== true) f.s.leaf = b;
}

/** `preservedMessages.uuids` ∪ the records from `preservedSegment.tailUuid` back to its head. */
function preservedUuids(f: ClaudeFile, cm: Obj): Set<string> {
  const refs = preservedRefs(cm);
  const out = new Set<string>(refs.uuids);
  const seg = refs.segment;
  if (seg) {
    // Walk from the tail back to the head through conversation records (the walk the fast listing shares).
    const walked = walkSegment<Skel>(
      f.s.uuids.get(seg.tail)?.anchor ?? null,
      (s) => s.uuid === seg.head,
      (s) => s.parent?.anchor ?? null,
    );
    if (walked) for (const s of walked) out.add(s.uuid);
  }
  return out;
}

/** The isCompactSummary line: the checkpoint, placed before the preserved messages. */
export function commit(f: ClaudeFile, b: Branch, item: Item, at: string | undefined): number {
  const c = b.compaction as Compaction;
  b.compaction = null;
  item.derivation = { kind: 'checkpoint', compactionId: c.id, covers: c.covers.map((n) => n.id), part: 'summary' };
  const live = toArray(b.node);
  const coverIds = new Set(c.covers.map((n) => n.id));
  const firstKept = c.keep.find((k) => live.some((n) => n.id === k.id));
  const ev = itemEvent(item, firstKept ? { op: 'insert', before: firstKept.id } : { op: 'append' }, at);
  ev.sources = [c.startSeq, ...c.covers.map((n) => n.seq)];
  const seq = f.emit(b, ev);
  const rest = live.filter((n) => !coverIds.has(n.id));
  const at0 = firstKept ? rest.findIndex((n) => n.id === firstKept.id) : rest.length;
  const summary: NodeData = { id: item.id, seq, calls: undefined };
  b.node = fromArray([...rest.slice(0, at0), summary, ...rest.slice(at0)]);
  const end: EventOf<'compaction/end'> = { kind: 'compaction/end', id: c.id, outcome: 'committed' };
  if (c.postTokens !== undefined) end.postTokens = c.postTokens;
  return f.emit(b, end);
}

/** A boundary with no summary line after it: the view restarted without a summary. */
export function noSummary(f: ClaudeFile, b: Branch): void {
  const c = b.compaction as Compaction;
  b.compaction = null;
  f.report(
    'CC_COMPACT_NO_SUMMARY',
    'warning',
    `Compaction ${c.id}: no isCompactSummary line follows its boundary on branch ${b.name}; the covered messages are dropped without a summary.`,
  );
  const ids = new Set(c.covers.map((n) => n.id));
  const live = toArray(b.node)
    .filter((n) => ids.has(n.id))
    .map((n) => n.id);
  if (live.length > 0) f.emit(b, { kind: 'drop', items: live, reason: 'compaction', compactionId: c.id });
  b.node = fromArray(toArray(b.node).filter((n) => !ids.has(n.id)));
  f.emit(b, {
    kind: 'compaction/end',
    id: c.id,
    outcome: 'fallback',
    fallback: { kind: 'other', marker: false },
    error: { message: 'no isCompactSummary line follows the compact_boundary' },
  });
}
