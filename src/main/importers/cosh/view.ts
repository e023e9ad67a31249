import type { EventOf } from '../../../shared/model/event';
import type { Item } from '../../../shared/model/item';
import type { JsonLine } from '../../reader/types';
import type { Branch } from './branches';
import { canonicalItem, maskReference } from './items';
import type { CoshMachine } from './machine';
import type { CoshItem } from './parse';
import { request } from './requests';
import { policy } from './staging';
import { type Context, type MItem, activeCheckpoint, hiddenWhy, inRanges, isDisplayOnly, modelView } from './state';

// The view: cosh's composition vs Palimpsest's surface.

/** Why items leave the surface: a `drop`'s reason and, for a compaction, which one. */
interface DropReason {
  reason: 'hidden' | 'compaction' | 'other';
  compactionId?: string;
}

function dropReason(
  mc: CoshMachine,
  c: Context | null,
  view: ReturnType<typeof modelView>,
  canon: string,
  byCanon?: ReadonlyMap<string, MItem>,
): DropReason {
  const it = (byCanon ?? c?.byCanon)?.get(canon);
  if (!c || !it) return { reason: 'other' };
  const cover = view.checkpoint?.covered ?? [];
  const why = hiddenWhy(c, cover, it.coshId);
  if (why === 'hidden') return { reason: 'hidden' };
  if (why === 'checkpoint' && view.checkpoint) {
    const cid = mc.compactionOf.get(view.checkpoint.canon);
    return cid !== undefined ? { reason: 'compaction', compactionId: cid } : { reason: 'compaction' };
  }
  if (why === 'legacy-boundary') {
    // The legacy boundary is set to the checkpoint that folded what lies before it.
    const atBoundary = c.visibleFrom === null ? undefined : c.byId.get(c.visibleFrom);
    const cp = (atBoundary?.kind === 'Compaction' ? atBoundary : undefined) ?? activeCheckpoint(c);
    const cid = cp ? mc.compactionOf.get(cp.canon) : undefined;
    return cid !== undefined ? { reason: 'compaction', compactionId: cid } : { reason: 'compaction' };
  }
  return { reason: 'other' };
}

function drop(mc: CoshMachine, b: Branch, l: JsonLine, ids: string[], r: DropReason): void {
  if (ids.length === 0) return;
  for (const id of ids) b.surface.remove(id);
  const e: EventOf<'drop'> = { kind: 'drop', items: ids, reason: r.reason };
  if (r.compactionId !== undefined) e.compactionId = r.compactionId;
  mc.emit(e, l, b.state.name);
}

export function sync(mc: CoshMachine, b: Branch, l: JsonLine, n: { item: MItem; cosh: CoshItem; replaced: MItem | null } | null): void {
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
  let groupReason: DropReason | null = null;
  for (const id of S.order.slice()) {
    if (wantSet.has(id) || coverSet.has(id) || (id === old && !isDisplayOnly(n?.item.kind ?? 'User'))) continue;
    const r = dropReason(mc, c, view, id, byCanon);
    if (groupReason && (groupReason.reason !== r.reason || groupReason.compactionId !== r.compactionId)) {
      drop(mc, b, l, group, groupReason);
      group = [];
    }
    group.push(id);
    groupReason = r;
  }
  if (groupReason) drop(mc, b, l, group, groupReason);

  // 2. Come back.
  const restore: string[] = [];
  for (const id of want) {
    if (id === newCanon || S.isLive(id)) continue;
    if (S.canRestore(id)) {
      S.restore(id);
      restore.push(id);
    }
  }
  if (restore.length > 0) mc.emit({ kind: 'restore', items: restore }, l, branch);

  // 3. The new item (or new version).
  if (n) place(mc, b, l, n, want, wantSet, covers, view);

  // 4. Masks: the model's request, with the reference cosh renders.
  for (const id of want) {
    const on = view.masked.has(id);
    if (on === S.masked.has(id)) continue;
    S.mask(id, on);
    const it = byCanon.get(id);
    const e: EventOf<'mask'> = { kind: 'mask', items: [id], masked: on, by: 'model' };
    if (on && it) e.reference = maskReference(it.coshId, it.callId ?? '');
    mc.emit(e, l, branch);
  }

  // 5. They must now agree.
  const got = S.order;
  if (!b.divergenceReported && (got.length !== want.length || got.some((x, i) => x !== want[i]))) {
    b.divergenceReported = true;
    mc.out.report(
      'COSH_VIEW_DIVERGES',
      'warning',
      `Line ${l.line}: on branch ${branch}, the view Palimpsest rebuilds (${got.join(', ') || 'empty'}) differs from cosh's composition (${want.join(', ') || 'empty'}); views on this branch after this point may be wrong.`,
      [],
      l.line,
    );
  }
}

function place(
  mc: CoshMachine,
  b: Branch,
  l: JsonLine,
  n: { item: MItem; cosh: CoshItem; replaced: MItem | null },
  want: string[],
  wantSet: Set<string>,
  covers: string[],
  view: ReturnType<typeof modelView>,
): void {
  const S = b.surface;
  const branch = b.state.name;
  const canon = n.item.canon;
  const item: Item = canonicalItem(n.cosh, canon);
  const c = b.state.context;

  if (!n.replaced) request(mc, b, l, n.item.kind);

  let sources: number[] | undefined;
  let compactionId: string | null = null;
  if (n.item.kind === 'Compaction') {
    const covered = n.item.covered ?? [];
    const source = c ? c.items.filter((it) => it !== n.item && inRanges(covered, it.coshId)).map((it) => it.canon) : [];
    const open = b.open;
    compactionId = open ? open.id : `cmp-${canon}`;
    const startSeq = open
      ? open.startSeq
      : mc.emit(
          {
            kind: 'compaction/start',
            id: compactionId,
            trigger: 'unknown',
            strategy: covered.length > 0 ? 'checkpoint' : 'legacy (visible_from)',
            policy: policy(b),
            source,
          },
          l,
          branch,
        );
    const summarySeq = mc.emit(
      { kind: 'compaction/summary', id: compactionId, summary: [{ type: 'text', text: n.cosh.text }], source },
      l,
      branch,
    );
    item.derivation = { kind: 'checkpoint', compactionId, covers, part: 'summary' };
    sources = [startSeq, summarySeq, ...covers.map((x) => mc.canonSeq.get(x)).filter((x): x is number => x !== undefined)].filter(
      (x) => x >= 0,
    );
    mc.compactionOf.set(canon, compactionId);
  }

  const emitItem = (op: EventOf<'item'>['op']): void => {
    const e: EventOf<'item'> = { kind: 'item', item, op };
    if (sources && sources.length > 0) e.sources = sources;
    const seq = mc.emit(e, l, branch);
    if (seq >= 0) mc.canonSeq.set(canon, seq);
    // A checkpoint takes the items it covers off the surface as it enters (fold.ts).
    if (item.derivation?.kind === 'checkpoint' && S.isLive(canon)) for (const x of item.derivation.covers) if (x !== canon) S.remove(x);
  };

  mc.kindOf.set(canon, n.item.kind);
  if (isDisplayOnly(n.item.kind)) {
    emitItem({ op: 'log' });
  } else if (n.replaced) {
    // A new version takes the old one's place (and so its sort key).
    const oldId = n.replaced.canon;
    if (!S.isLive(oldId) && S.canRestore(oldId)) {
      S.restore(oldId);
      mc.emit({ kind: 'restore', items: [oldId] }, l, branch);
    }
    if (S.isLive(oldId)) {
      S.replace(canon, oldId, oldId);
      emitItem({ op: 'replace', from: oldId, to: oldId });
    } else {
      S.append(canon);
      emitItem({ op: 'append' });
    }
  } else if (n.item.kind === 'Compaction') {
    placeCheckpoint(mc, b, canon, want, emitItem);
  } else {
    // cosh appends new items to its timeline.
    S.append(canon);
    emitItem({ op: 'append' });
  }
  if (!isDisplayOnly(n.item.kind) && S.isLive(canon) && !wantSet.has(canon)) drop(mc, b, l, [canon], dropReason(mc, c, view, canon));
  if (compactionId !== null) {
    if (b.open && b.open.id === compactionId) b.open = null;
    mc.emit({ kind: 'compaction/end', id: compactionId, outcome: 'committed' }, l, branch);
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
function placeCheckpoint(
  mc: CoshMachine,
  b: Branch,
  canon: string,
  want: readonly string[],
  emitItem: (op: EventOf<'item'>['op']) => void,
): void {
  const S = b.surface;
  const at = want.indexOf(canon);
  const tail = at < 0 ? undefined : want.slice(at + 1).find((x) => S.isLive(x) && mc.kindOf.get(x) !== 'Compaction');
  if (tail !== undefined) {
    S.insertBefore(canon, tail);
    emitItem({ op: 'insert', before: tail });
  } else {
    S.append(canon);
    emitItem({ op: 'append' });
  }
}
