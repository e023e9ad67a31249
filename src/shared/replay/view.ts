import type { Block } from '../model/content';
import { reportedContextTokens } from '../model/event';
import { itemKind } from '../model/item';
import type { Fate, ModelView, RequestInfo, ViewItem } from '../model/view';
import type { ReplayState } from './fold';
import { parallelCallsAtRisk } from './parallel-calls';
import type { ItemRecord, RequestRecord, Unlogged } from './records';
import type { SurfaceState } from './surface';

export function requestInfo(r: RequestRecord): RequestInfo {
  return {
    index: r.index,
    id: r.id,
    seq: r.seq,
    purpose: r.purpose,
    compactionId: r.compactionId,
    route: r.route,
    responseSeq: r.responseSeq,
    finish: r.finish,
    usage: r.usage,
    reportedInputTokens: reportedContextTokens(r.usage ?? undefined),
    error: r.error,
  };
}

/** Extensions of an item logged before event `seq`. */
export function extensionsBefore(rec: ItemRecord, seq: number): ItemRecord['extensions'] {
  return rec.extensions.filter((x) => x.seq < seq);
}

function maskReferenceBefore(rec: ItemRecord, seq: number): readonly Block[] | null {
  let ref: readonly Block[] | null = null;
  for (const m of rec.maskReferences) if (m.seq < seq) ref = m.reference;
  return ref;
}

/** What building views keeps per replay, made on the first view asked of it. */
interface ViewCache {
  /**
   * Views of items that look the same at every request (no extension, not masked), built once, by
   * item index. An array, not a map keyed by record: stepping through every view of a long session
   * looks up some hundred million of them (docs/performance.md, "Replay and views").
   */
  readonly stable: (ViewItem | undefined)[];
  /**
   * A surface cursor: views asked in order (stepping through requests, a pass over every view)
   * apply the operations since the last view instead of copying a snapshot each time; a view asked
   * out of order starts from a snapshot, as random access does. Its state is read, never kept.
   */
  readonly surface: (beforeSeq: number) => SurfaceState;
}

const viewCaches = new WeakMap<ReplayState, ViewCache>();

function viewCacheOf(state: ReplayState): ViewCache {
  let cache = viewCaches.get(state);
  if (!cache)
    viewCaches.set(state, (cache = { stable: new Array<ViewItem | undefined>(state.items.length), surface: state.surface.cursor() }));
  return cache;
}

/** The item as the model saw it at the request made at event `seq`. */
function viewItem(rec: ItemRecord, masked: boolean, seq: number, stableViews: (ViewItem | undefined)[]): ViewItem {
  const ext = rec.extensions.length === 0 ? rec.extensions : extensionsBefore(rec, seq);
  const stable = ext.length === 0 && !masked;
  if (stable) {
    const cached = stableViews[rec.index];
    if (cached) return cached;
  }
  const blocks = ext.length === 0 ? rec.item.blocks : [...rec.item.blocks, ...ext.flatMap((x) => x.blocks)];
  const provenance = [...new Set<number>([rec.seq, ...ext.map((x) => x.seq), ...rec.sources])].sort((a, b) => a - b);
  const view: ViewItem = {
    id: rec.id,
    seq: rec.seq,
    role: rec.item.role,
    kind: itemKind(ext.length === 0 ? rec.item : { ...rec.item, blocks }),
    blocks: masked ? maskReferenceBefore(rec, seq) : blocks,
    rendition: masked ? 'masked' : 'verbatim',
    meta: rec.item.meta ?? false,
    derivation: rec.item.derivation ?? null,
    provenance,
  };
  if (stable) stableViews[rec.index] = view;
  return view;
}

/** The items on the surface just before event `seq`, in model order, and which of them are masked. */
export function surfaceBefore(state: ReplayState, seq: number): { items: ItemRecord[]; masked: Set<number> } {
  const s = state.surface.at(seq);
  return { items: s.ids.map((i) => state.items[i] as ItemRecord), masked: s.masked };
}

/**
 * The model view at request `index`: the envelope in force, and the items the model saw, each with
 * provenance. A summarizer call that sent its own input (not the surface) shows that input.
 */
export function modelView(state: ReplayState, index: number): ModelView | null {
  const r = state.requests[index];
  if (!r) return null;
  const unknowns: string[] = [];
  const env = r.envelope;
  if (env.system === undefined) unknowns.push('system prompt: no header event precedes this request');
  else if (env.system === null) unknowns.push('system prompt: the log does not record it');
  if (env.tools === undefined) unknowns.push('tool schemas: no header event precedes this request');
  else if (env.tools === null) unknowns.push('tool schemas: the log does not record them');
  for (const u of env.unrecorded) unknowns.push(`messages: ${u}`);

  const cache = viewCacheOf(state);
  let items: ViewItem[];
  if (r.input) {
    items = [];
    for (const id of r.input.items) {
      const rec = state.itemById.get(id);
      if (rec) items.push(viewItem(rec, false, r.seq, cache.stable));
      else unknowns.push(`input item ${id}: not in the log`);
    }
    if (r.input.instruction === null || r.input.instruction === undefined)
      unknowns.push('summarizer instruction: the log does not record it');
  } else {
    // Straight from the surface's ids: no list of records in between (one array less per view).
    const s = cache.surface(r.seq);
    items = new Array<ViewItem>(s.ids.length);
    for (let i = 0; i < s.ids.length; i++) {
      const rec = state.items[s.ids[i] as number] as ItemRecord;
      const item = viewItem(rec, s.masked.has(rec.index), r.seq, cache.stable);
      if (item.rendition === 'masked' && item.blocks === null)
        unknowns.push(`masked item ${rec.id}: the text of its reference is not recorded`);
      items[i] = item;
    }
  }
  if (env.reloadMayDrop) {
    // Named only where it bites: the calls a reload may have left out are in this request's items.
    const calls = parallelCallsAtRisk(items);
    if (calls.size > 0) unknowns.push(`messages: ${env.reloadMayDrop} (calls: ${[...calls].join(', ')})`);
  }
  for (const u of r.input ? [] : r.unlogged) {
    const named = unloggedWhere(u, items);
    if (named !== null) unknowns.push(`messages: ${u.why}${named}`);
  }
  const headerSeqs = [env.systemSeq, env.toolsSeq, ...env.routeSeqs].filter((s): s is number => s !== null);
  return {
    request: requestInfo(r),
    system: env.system ?? null,
    headerSeqs: [...new Set(headerSeqs)].sort((a, b) => a - b),
    tools: env.tools ?? null,
    items,
    todo: r.todo && !r.input ? { todos: r.todo.todos, after: r.todo.after, seq: r.todo.seq } : null,
    unknowns,
  };
}

/**
 * Where an unlogged change of the harness (RequestEvent.unlogged) lands in a view's items, for its
 * sentence: the calls whose results are in the view, or the item the added text travels with; null
 * when none of them is in the view (nothing to name).
 */
function unloggedWhere(u: Unlogged, items: readonly ViewItem[]): string | null {
  if (u.calls) {
    const wanted = new Set(u.calls);
    const found = items.flatMap((it) =>
      (it.blocks ?? []).flatMap((b) => (b.type === 'tool_result' && wanted.has(b.callId) ? [b.callId] : [])),
    );
    return found.length > 0 ? ` (calls: ${[...new Set(found)].join(', ')})` : null;
  }
  if (u.item !== undefined)
    return items.some((it) => it.id === u.item)
      ? u.onward
        ? ` (in user messages from the one of item ${u.item} on)`
        : ` (in the user message of item ${u.item})`
      : null;
  return '';
}

/** The fate of an item at the request made at event `seq`, or null if the item did not exist yet. */
export function fateAt(rec: ItemRecord, seq: number): Fate | null {
  let fate: Fate | null = null;
  for (const f of rec.fates) {
    if (f.seq >= seq) break;
    fate = f.fate;
  }
  return fate;
}

export interface RawItemFate {
  readonly id: string;
  readonly seq: number;
  readonly fate: Fate;
}

/** Fates of raw items [from, from+count) (in creation order) at request `index`. Items created after it are left out. */
export function fatesAt(state: ReplayState, index: number, from = 0, count = Number.POSITIVE_INFINITY): RawItemFate[] {
  const r = state.requests[index];
  if (!r) return [];
  const out: RawItemFate[] = [];
  const end = Math.min(state.items.length, from + count);
  for (let i = from; i < end; i++) {
    const rec = state.items[i] as ItemRecord;
    if (rec.seq >= r.seq) break;
    const fate = fateAt(rec, r.seq);
    if (fate) out.push({ id: rec.id, seq: rec.seq, fate });
  }
  return out;
}
