import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { appendKey, keyBetween, VacatedKeys } from '../../../src/shared/replay/keys';

describe('surface sort keys', () => {
  it('append keys sort in numeric order across lengths', () => {
    const keys = [0, 1, 9, 10, 35, 36, 37, 1295, 1296, 46655, 46656, 2 ** 40].map(appendKey);
    expect([...keys].sort()).toEqual(keys);
  });

  it('the same gap can be split a thousand times (floats run out after about fifty)', () => {
    const lo = appendKey(3);
    let hi = appendKey(4);
    for (let i = 0; i < 1000; i++) {
      const k = keyBetween(lo, hi);
      expect(lo < k && k < hi).toBe(true);
      hi = k;
    }
  });

  it('random inserts always land strictly between their neighbours', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { maxLength: 300 }), (picks) => {
        const keys = [appendKey(0), appendKey(1)];
        for (const p of picks) {
          const i = Math.floor(p * keys.length); // insert before keys[i]
          const k = keyBetween(i > 0 ? (keys[i - 1] as string) : null, keys[i] as string);
          if (i > 0) expect(k > (keys[i - 1] as string)).toBe(true);
          expect(k < (keys[i] as string)).toBe(true);
          expect(k.endsWith('0')).toBe(false);
          keys.splice(i, 0, k);
        }
        expect([...keys].sort()).toEqual(keys);
      }),
      { numRuns: 200 },
    );
  });
});

describe('vacated keys', () => {
  it('answers for every key added, before and after the first question', () => {
    const v = new VacatedKeys();
    v.add(appendKey(1));
    v.add(appendKey(2));
    expect(v.has(appendKey(1))).toBe(true);
    expect(v.has(appendKey(3))).toBe(false);
    v.add(appendKey(3));
    expect(v.has(appendKey(3))).toBe(true);
    expect(v.has(appendKey(2))).toBe(true);
    expect(v.has(keyBetween(appendKey(1), appendKey(2)))).toBe(false);
  });
});
