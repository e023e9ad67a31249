import type { FateCounts } from '../../../shared/api/contract';
import type { Fate, ModelView } from '../../../shared/model/view';
import type { ReplayState } from '../../../shared/replay/fold';
import type { ItemRecord } from '../../../shared/replay/records';
import { fateCountsAt } from '../../../shared/replay/fate-counts';
import { fateAt } from '../../../shared/replay/view';
import { lowerBound } from '../../../shared/seq-search';
import type { SessionInspector } from '../../session/inspector';

/**
 * A model view with the indexes the session inspector's windows need: where each item sits, which
 * view positions cite each raw event, and the fates of raw items. Building one costs a pass over the
 * view (tens of ms for 100k items), so the last few are kept: a user scrolls one view at a time.
 * Fate counts come from the replay's fate count table (src/shared/replay/fate-counts.ts).
 */
export interface ViewIndex {
  readonly branch: string;
  readonly index: number;
  readonly view: ModelView;
  readonly state: ReplayState;
  /** View position of each item id. */
  readonly positionById: ReadonlyMap<string, number>;
  /** View positions whose provenance cites a seq. */
  readonly positionsBySeq: ReadonlyMap<number, readonly number[]>;
  /** Raw items written before the request, by their fate at it. */
  fateCounts(): FateCounts;
}

const KEEP = 4;
const caches = new WeakMap<SessionInspector, Map<string, ViewIndex>>();
const itemsBySeq = new WeakMap<ReplayState, Map<number, ItemRecord>>();

function build(inspector: SessionInspector, branch: string, index: number): ViewIndex | null {
  const view = inspector.view(index, branch);
  if (!view) return null;
  const state = inspector.replay(branch);
  const positionById = new Map<string, number>();
  const positionsBySeq = new Map<number, number[]>();
  view.items.forEach((it, p) => {
    positionById.set(it.id, p);
    for (const s of it.provenance) {
      const l = positionsBySeq.get(s);
      if (l) l.push(p);
      else positionsBySeq.set(s, [p]);
    }
  });
  let counts: FateCounts | null = null;
  return {
    branch,
    index,
    view,
    state,
    positionById,
    positionsBySeq,
    fateCounts() {
      counts ??= fateCountsAt(state, index);
      return counts;
    },
  };
}

/** The view at request `index` of `branch`, indexed; null when there is no such request. */
export function viewIndex(inspector: SessionInspector, branch: string, index: number): ViewIndex | null {
  let cache = caches.get(inspector);
  if (!cache) caches.set(inspector, (cache = new Map()));
  const key = `${index}\u0000${branch}`;
  const hit = cache.get(key);
  if (hit) {
    // Most recently used last.
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const built = build(inspector, branch, index);
  if (!built) return null;
  cache.set(key, built);
  while (cache.size > KEEP) cache.delete(cache.keys().next().value as string);
  return built;
}

/** The item a raw event created, if it created one (extends are not items of their own). */
export function itemAtSeq(state: ReplayState, seq: number): ItemRecord | undefined {
  let m = itemsBySeq.get(state);
  if (!m) {
    m = new Map();
    for (const rec of state.items) m.set(rec.seq, rec);
    itemsBySeq.set(state, m);
  }
  return m.get(seq);
}

/** Whether `seq` is one of the branch's events (binary search: seqs ascend). */
export function onBranch(state: ReplayState, seq: number): boolean {
  return state.seqs[lowerBound(state.seqs, seq)] === seq;
}

/**
 * The view position that shows a raw item, or stands in its place: itself when it is in the view;
 * else the checkpoint, pruned copy, marker or copy it became — followed through later compactions
 * (a checkpoint summarised again by a newer one) until one is in the view.
 */
export function targetOf(ix: ViewIndex, rec: ItemRecord, fate: Fate): number | null {
  const own = ix.positionById.get(rec.id);
  if (own !== undefined) return own;
  const reqSeq = ix.view.request.seq;
  let by: string | undefined = 'by' in fate ? fate.by : undefined;
  for (let hops = 0; by !== undefined && hops < 32; hops++) {
    const p = ix.positionById.get(by);
    if (p !== undefined) return p;
    const next = ix.state.itemById.get(by);
    const f = next ? fateAt(next, reqSeq) : null;
    by = f && 'by' in f ? f.by : undefined;
  }
  return null;
}
