import type { FateName } from '../model/view';
import type { ReplayState } from './fold';

/** The fates in the order of a row of the table. */
export const FATE_NAMES: readonly FateName[] = ['verbatim', 'masked', 'pruned', 'summarised', 'dropped', 'reinjected'];
const FATE_INDEX = new Map<FateName, number>(FATE_NAMES.map((f, i) => [f, i]));
const WIDTH = FATE_NAMES.length;

/**
 * How many raw items have each fate at every request of a replay: row `index` (FATE_NAMES order)
 * counts what `fatesAt(state, index)` lists. Built in one sweep over every fate change, sorted by
 * seq: the inspector shows these counts at each step, and counting the fates of every raw item per
 * request took 77 ms a step (median) on a session of 500,000 items (the history of
 * docs/performance.md).
 */
export function fateCountTable(state: ReplayState): Int32Array {
  const requests = state.requests;
  const out = new Int32Array(requests.length * WIDTH);
  // Every change (item, fate) bucketed by its seq, in item then change order: for one item and one
  // seq the later change wins, as in fateAt.
  let maxSeq = -1;
  let changes = 0;
  for (const rec of state.items) {
    for (const f of rec.fates) if (f.seq > maxSeq) maxSeq = f.seq;
    changes += rec.fates.length;
  }
  const starts = new Int32Array(maxSeq + 2);
  for (const rec of state.items) for (const f of rec.fates) starts[f.seq + 1] = (starts[f.seq + 1] as number) + 1;
  for (let s = 1; s < starts.length; s++) starts[s] = (starts[s] as number) + (starts[s - 1] as number);
  const item = new Int32Array(changes);
  const fate = new Int8Array(changes);
  const fill = starts.slice(0, maxSeq + 1);
  for (const rec of state.items) {
    for (const f of rec.fates) {
      const at = fill[f.seq] as number;
      fill[f.seq] = at + 1;
      item[at] = rec.index;
      fate[at] = FATE_INDEX.get(f.fate.fate) as number;
    }
  }

  const current = new Int8Array(state.items.length).fill(-1);
  const counts = new Int32Array(WIDTH);
  let next = 0;
  // Requests ascend by seq (fold order), so the changes are applied once each.
  requests.forEach((r, index) => {
    // Changes made before the request (fateAt: seq < the request's seq).
    const end = r.seq <= maxSeq ? (starts[r.seq] as number) : changes;
    for (; next < end; next++) {
      const i = item[next] as number;
      const was = current[i] as number;
      if (was >= 0) counts[was] = (counts[was] as number) - 1;
      const now = fate[next] as number;
      counts[now] = (counts[now] as number) + 1;
      current[i] = now;
    }
    out.set(counts, index * WIDTH);
  });
  return out;
}

const tables = new WeakMap<ReplayState, Int32Array>();

/** The fate counts at request `index` (each fate once), from the replay's table built on first use. */
export function fateCountsAt(state: ReplayState, index: number): Record<FateName, number> {
  let t = tables.get(state);
  if (!t) tables.set(state, (t = fateCountTable(state)));
  const out = {} as Record<FateName, number>;
  FATE_NAMES.forEach((f, k) => {
    out[f] = t[index * WIDTH + k] ?? 0;
  });
  return out;
}
