import { describe, expect, it } from 'vitest';
import { grouped } from '../../src/shared/grouped';

describe('grouped', () => {
  it('writes what toLocaleString en-US writes, integers and fractions', () => {
    const values = [
      0,
      -0,
      1,
      12,
      999,
      1000,
      1234,
      -1234,
      999_999,
      1_000_000,
      123_456_789,
      2 ** 53,
      1e20,
      0.5,
      1.25,
      3.14159,
      -2.0004,
      1234.5678,
      0.0004,
      NaN,
      Infinity,
      -Infinity,
    ];
    let seed = 7;
    for (let i = 0; i < 2000; i++) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      values.push((seed / 2 ** 31 - 0.3) * 10 ** (i % 12));
    }
    for (const v of values) {
      for (const digits of [0, 1, 3]) {
        expect(grouped(v, digits), `${v} with ${digits} digits`).toBe(v.toLocaleString('en-US', { maximumFractionDigits: digits }));
      }
      expect(grouped(v), String(v)).toBe(v.toLocaleString('en-US'));
    }
  });
});
