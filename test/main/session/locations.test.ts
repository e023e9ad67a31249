import { describe, expect, it } from 'vitest';
import { EventLocations } from '../../../src/main/session/locations';

describe('EventLocations', () => {
  it('keeps every location through growth and trim, and answers null outside the log', () => {
    const locs = new EventLocations();
    const n = 5_000; // past several doublings of the initial 1,024
    for (let i = 0; i < n; i++) expect(locs.push(i % 3, i + 1, i * 1_000_003, i * 7)).toBe(i);
    locs.trim();
    expect(locs.size).toBe(n);
    for (const i of [0, 1_023, 1_024, 2_047, 4_999]) {
      expect(locs.of(i)).toEqual({ file: i % 3, line: i + 1, offset: i * 1_000_003, length: i * 7 });
    }
    for (const bad of [-1, n, 1.5, Number.NaN]) expect(locs.of(bad)).toBeNull();
  });

  it('holds offsets and line numbers past 2^32 exactly', () => {
    const locs = new EventLocations();
    const offset = 2 ** 40 + 12_345;
    locs.push(0, 5_000_000_000, offset, 600_000_000);
    expect(locs.of(0)).toEqual({ file: 0, line: 5_000_000_000, offset, length: 600_000_000 });
  });
});
