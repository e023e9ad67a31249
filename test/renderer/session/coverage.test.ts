import { describe, expect, it } from 'vitest';
import { coverageLayout } from '../../../src/renderer/session/coverage';

const axis = ['u1', 'a1', 't1', 'a2', 't2', 'a3', 't3', 'a4'].map((id) => ({ id }));
const seg = (ordinal: number, items: string[], status: 'accepted' | 'rejected' | 'failed' | 'pending' = 'accepted') => ({
  ordinal,
  items,
  status,
});

describe('MapReduce coverage layout', () => {
  it('segments that cover the source exactly once: no gap, no overlap, one lane', () => {
    const c = coverageLayout(axis, [seg(0, ['u1', 'a1', 't1']), seg(1, ['a2', 't2', 'a3']), seg(2, ['t3', 'a4'])]);
    expect(c.gaps).toEqual([]);
    expect(c.overlaps).toEqual([]);
    expect(c.lanes).toBe(1);
    expect(c.bars.map((b) => [b.ordinal, b.start, b.end])).toEqual([
      [0, 0, 2],
      [1, 3, 5],
      [2, 6, 7],
    ]);
    expect(c.counts).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
  });

  it('marks the uncovered runs as gaps', () => {
    const c = coverageLayout(axis, [seg(0, ['u1', 'a1']), seg(1, ['t2', 'a3']), seg(2, ['a4'])]);
    expect(c.gaps).toEqual([
      { start: 2, end: 3 },
      { start: 6, end: 6 },
    ]);
    expect(c.overlaps).toEqual([]);
  });

  it('marks positions covered twice as overlaps, naming the segments, and puts the bars on separate lanes', () => {
    const c = coverageLayout(axis, [seg(0, ['u1', 'a1', 't1', 'a2']), seg(1, ['t1', 'a2', 't2']), seg(2, ['a3', 't3', 'a4'])]);
    expect(c.overlaps).toEqual([{ start: 2, end: 3, ordinals: [0, 1] }]);
    expect(c.gaps).toEqual([]);
    const lane = new Map(c.bars.map((b) => [b.ordinal, b.lane]));
    expect(lane.get(0)).not.toBe(lane.get(1));
    expect(lane.get(2)).toBe(0);
    expect(c.lanes).toBe(2);
  });

  it('draws a segment that skips items in pieces, and reports items beyond the source', () => {
    const c = coverageLayout(axis, [seg(0, ['u1', 't1', 'zz9'], 'failed'), seg(1, ['a1', 'a2', 't2', 'a3', 't3', 'a4'], 'pending')]);
    const pieces = c.bars.filter((b) => b.ordinal === 0);
    expect(pieces.map((b) => [b.start, b.end, b.piece, b.status])).toEqual([
      [0, 0, true, 'failed'],
      [2, 2, true, 'failed'],
    ]);
    expect(c.beyond).toEqual([{ ordinal: 0, items: ['zz9'] }]);
    expect(c.gaps).toEqual([]);
  });

  it('an empty segmentation leaves the whole axis as one gap', () => {
    expect(coverageLayout(axis, []).gaps).toEqual([{ start: 0, end: 7 }]);
  });
});
