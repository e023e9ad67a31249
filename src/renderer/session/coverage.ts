import type { CoverageSegment } from '../../shared/api/contract';

/**
 * The MapReduce coverage chart's geometry: the source items along the axis, each segment as bars
 * over the runs of consecutive axis positions it covers (a segment that skips items is drawn in
 * pieces, which shows the cut), lanes so that bars never hide each other, and the marks a reader
 * looks for — gaps (positions no segment covers) and overlaps (positions covered more than once),
 * plus items a segment names that are not on the axis (beyond the source range).
 */

export interface CoverageBar {
  readonly ordinal: number;
  readonly status: CoverageSegment['status'];
  readonly lane: number;
  /** First and last axis positions, inclusive. */
  readonly start: number;
  readonly end: number;
  /** Another bar of the same segment exists: the segment is not one run. */
  readonly piece: boolean;
}

export interface CoverageRun {
  readonly start: number;
  readonly end: number;
}

export interface CoverageLayout {
  readonly items: number;
  readonly bars: readonly CoverageBar[];
  readonly lanes: number;
  /** How many segments cover each axis position. */
  readonly counts: readonly number[];
  readonly gaps: readonly CoverageRun[];
  readonly overlaps: readonly (CoverageRun & { readonly ordinals: readonly number[] })[];
  readonly beyond: readonly { readonly ordinal: number; readonly items: readonly string[] }[];
}

/** Runs of consecutive positions where `test` holds. */
function runs(n: number, test: (i: number) => boolean): CoverageRun[] {
  const out: CoverageRun[] = [];
  let start = -1;
  for (let i = 0; i <= n; i++) {
    const yes = i < n && test(i);
    if (yes && start < 0) start = i;
    if (!yes && start >= 0) {
      out.push({ start, end: i - 1 });
      start = -1;
    }
  }
  return out;
}

export function coverageLayout(
  axis: readonly { readonly id: string }[],
  segments: readonly Pick<CoverageSegment, 'ordinal' | 'items' | 'status'>[],
): CoverageLayout {
  const position = new Map<string, number>();
  axis.forEach((a, i) => position.set(a.id, i));
  const n = axis.length;
  const owners: number[][] = Array.from({ length: n }, () => []);
  const pieces: { ordinal: number; status: CoverageSegment['status']; start: number; end: number; piece: boolean }[] = [];
  const beyond: { ordinal: number; items: string[] }[] = [];

  for (const s of segments) {
    const at: number[] = [];
    const outside: string[] = [];
    for (const id of s.items) {
      const p = position.get(id);
      if (p === undefined) outside.push(id);
      else at.push(p);
    }
    if (outside.length > 0) beyond.push({ ordinal: s.ordinal, items: outside });
    const mine = new Set(at);
    for (const p of mine) (owners[p] as number[]).push(s.ordinal);
    const own = runs(n, (i) => mine.has(i));
    for (const r of own) pieces.push({ ordinal: s.ordinal, status: s.status, start: r.start, end: r.end, piece: own.length > 1 });
  }

  // Greedy lanes by start position: a bar takes the first lane whose last bar ended before it.
  pieces.sort((a, b) => a.start - b.start || a.end - b.end);
  const laneEnds: number[] = [];
  const bars: CoverageBar[] = pieces.map((p) => {
    let lane = laneEnds.findIndex((end) => end < p.start);
    if (lane < 0) lane = laneEnds.push(p.end) - 1;
    else laneEnds[lane] = p.end;
    return { ...p, lane };
  });

  const counts = owners.map((o) => o.length);
  const overlaps = runs(n, (i) => (counts[i] as number) > 1).map((r) => {
    const ordinals = new Set<number>();
    for (let i = r.start; i <= r.end; i++) for (const o of owners[i] as number[]) ordinals.add(o);
    return { ...r, ordinals: [...ordinals].sort((a, b) => a - b) };
  });
  return { items: n, bars, lanes: laneEnds.length, counts, gaps: runs(n, (i) => counts[i] === 0), overlaps, beyond };
}
