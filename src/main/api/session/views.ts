import type { AlignRow, FateCounts, FateListRow, FateName } from '../../../shared/api/contract';
import type { Block } from '../../../shared/model/content';
import { itemKind } from '../../../shared/model/item';
import { extensionsBefore, fateAt, fatesAt, type RawItemFate } from '../../../shared/replay/view';
import { fateJson, requestJson, viewJson } from '../../present/json';
import type { SessionInspector } from '../../session/inspector';
import { ApiFailure } from '../sessions';
import { charsOf, elidedOf, hydrated, longText, preview } from './text';
import { itemAtSeq, onBranch, targetOf, viewIndex, type ViewIndex } from './view-index';

/** The session inspector's windows of one model view and of its raw history (docs/session-view.md). */

export function indexOrFail(inspector: SessionInspector, branch: string, index: number): ViewIndex {
  const ix = viewIndex(inspector, branch, index);
  if (!ix) {
    const n = inspector.replay(branch).requests.length;
    throw new ApiFailure('NO_REQUEST', `No request ${index} on branch ${branch}: it has ${n} request${n === 1 ? '' : 's'}.`);
  }
  return ix;
}

/** Raw items written before the request: each has exactly one fate at it. */
function rawItems(counts: FateCounts): number {
  return Object.values(counts).reduce((n, c) => n + c, 0);
}

export function viewHead(ix: ViewIndex) {
  const v = ix.view;
  const fates = ix.fateCounts();
  return {
    branch: ix.branch,
    request: requestJson(v.request),
    system: v.system,
    systemChars: charsOf(v.system),
    tools: v.tools,
    headerSeqs: v.headerSeqs,
    todo: v.todo,
    unknowns: v.unknowns,
    items: v.items.length,
    rawItems: rawItems(fates),
    fates,
  };
}

export function viewWindow(ix: ViewIndex, from: number, count: number) {
  const items = ix.view.items;
  const rows = viewJson('', ix.branch, { ...ix.view, items: items.slice(from, from + count) }, []).items;
  return {
    total: items.length,
    from,
    items: rows.map((item, i) => ({
      position: from + i,
      item,
      chars: charsOf(item.blocks),
      elided: elidedOf(item.blocks),
    })),
  };
}

/** One view item, every elided text re-read: the original's blocks (and extensions), or for a masked item its reference. */
export async function itemText(
  inspector: SessionInspector,
  ix: ViewIndex,
  itemId: string,
): Promise<{ itemId: string; blocks: Block[] | null; chars: number }> {
  const p = ix.positionById.get(itemId);
  const it = p === undefined ? undefined : ix.view.items[p];
  const rec = ix.state.itemById.get(itemId);
  if (!it || !rec) throw new ApiFailure('BAD_INPUT', `Item "${itemId}" is not in the view at request ${ix.index}.`);
  const session = inspector.session;
  const reqSeq = ix.view.request.seq;
  let blocks: Block[] | null;
  if (it.rendition === 'masked') {
    let maskSeq: number | null = null;
    for (const m of rec.maskReferences) if (m.seq < reqSeq) maskSeq = m.seq;
    if (maskSeq === null || it.blocks === null) blocks = null;
    else {
      const e = await hydrated(session, maskSeq);
      blocks = e.kind === 'mask' && e.reference ? [...e.reference] : [...it.blocks];
    }
  } else if (ix.view.request.purpose !== 'agent' || it.blocks === null) {
    blocks = it.blocks ? [...it.blocks] : null;
  } else {
    blocks = [];
    for (const seq of [rec.seq, ...extensionsBefore(rec, reqSeq).map((x) => x.seq)]) {
      const e = await hydrated(session, seq);
      if (e.kind === 'item') blocks.push(...e.item.blocks);
    }
  }
  return { itemId, blocks, chars: charsOf(blocks) };
}

export async function eventText(inspector: SessionInspector, seq: number) {
  const session = inspector.session;
  if (seq >= session.events.length) throw new ApiFailure('BAD_INPUT', `No event ${seq}: the session has ${session.events.length}.`);
  const e = await hydrated(session, seq);
  const loc = session.loc(seq);
  if (!loc) throw new Error(`event ${seq} has no source location`);
  return {
    seq,
    kind: e.kind,
    file: session.files[loc.file]?.path ?? '?',
    line: loc.line,
    text: longText(JSON.stringify(e, null, 2)),
  };
}

export function alignment(inspector: SessionInspector, ix: ViewIndex, from: number, count: number) {
  const total = inspector.session.events.length;
  const reqSeq = ix.view.request.seq;
  const rows: AlignRow[] = [];
  for (let seq = from; seq < Math.min(total, from + count); seq++) {
    const rec = itemAtSeq(ix.state, seq);
    const later = seq >= reqSeq;
    const fate = rec && !later ? fateAt(rec, reqSeq) : null;
    const positions = [...(ix.positionsBySeq.get(seq) ?? [])];
    let target: number | null = null;
    if (rec && fate) target = targetOf(ix, rec, fate);
    else if (positions.length > 0) target = positions[0] as number;
    rows.push({
      seq,
      onBranch: onBranch(ix.state, seq),
      item: rec?.id ?? null,
      fate: rec && fate ? fateJson({ id: rec.id, seq: rec.seq, fate }) : null,
      later,
      positions,
      target,
    });
  }
  return { index: ix.index, requestSeq: reqSeq, total, from, rows };
}

/**
 * A window of the raw items with a fate (or one fate) at the request. Totals come from the fate
 * count table; only the window's items are looked at, not every raw item of a long session.
 */
function fateWindow(ix: ViewIndex, fate: FateName | undefined, from: number, count: number): { total: number; rows: RawItemFate[] } {
  const counts = ix.fateCounts();
  if (fate === undefined) {
    // Every raw item written before the request has a fate at it: positions are creation order.
    return { total: rawItems(counts), rows: fatesAt(ix.state, ix.index, from, count) };
  }
  const rows: RawItemFate[] = [];
  const reqSeq = ix.view.request.seq;
  let skipped = 0;
  for (const rec of ix.state.items) {
    if (rec.seq >= reqSeq || rows.length >= count) break;
    const f = fateAt(rec, reqSeq);
    if (f?.fate !== fate) continue;
    if (skipped < from) skipped++;
    else rows.push({ id: rec.id, seq: rec.seq, fate: f });
  }
  return { total: counts[fate], rows };
}

export function fateList(ix: ViewIndex, fate: FateName | undefined, from: number, count: number) {
  const { total, rows: window } = fateWindow(ix, fate, from, count);
  const rows: FateListRow[] = window.map((f) => {
    const rec = ix.state.itemById.get(f.id);
    const blocks = rec?.item.blocks ?? null;
    return {
      fate: fateJson(f),
      kind: rec ? itemKind(rec.item) : 'user',
      role: rec?.item.role ?? 'user',
      preview: preview(blocks),
      chars: charsOf(blocks),
    };
  });
  return { total, counts: ix.fateCounts(), from, rows };
}
