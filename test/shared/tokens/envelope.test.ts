import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_PAIRS, fitEnvelope, pointsPerStretch, unloggedPart } from '../../../src/shared/tokens/envelope';

describe('unlogged envelope fit', () => {
  it('measures E and k from reported vs counted, robust to outliers', () => {
    const points = Array.from({ length: 60 }, (_, i) => {
      const counted = 1_000 + i * 2_000;
      // every tenth request carries an unlogged 5,000-token reminder
      return { counted, reported: 25_000 + Math.round(1.2 * counted) + (i % 10 === 3 ? 5_000 : 0), stretch: 0 };
    });
    const fit = fitEnvelope(points);
    expect(fit).not.toBeNull();
    expect(fit?.method).toBe('theil-sen');
    expect(fit?.ratio).toBeCloseTo(1.2, 2);
    expect(fit?.envelope).toBeGreaterThan(24_800);
    expect(fit?.envelope).toBeLessThan(25_200);
    if (fit) expect(unloggedPart(fit, 10_000, 37_000)).toBe(25_000);
  });

  it('gives each stretch between compactions its own E', () => {
    const pts = [
      ...[1, 2, 3, 4, 5].map((i) => ({ counted: i * 10_000, reported: 20_000 + i * 10_000, stretch: 0 })),
      ...[1, 2, 3, 4, 5].map((i) => ({ counted: i * 10_000, reported: 30_000 + i * 10_000, stretch: 1 })),
    ];
    const fit = fitEnvelope(pts);
    expect(fit?.ratio).toBeCloseTo(1, 5);
    expect(fit?.stretches).toEqual([
      { stretch: 0, requests: 5, envelope: 20_000 },
      { stretch: 1, requests: 5, envelope: 30_000 },
    ]);
    expect(fit?.envelope).toBe(20_000);
  });

  it('samples fewer points per stretch when a session has many stretches, so the pairs stay within budget', () => {
    const pairs = (sizes: number[], k: number) => sizes.reduce((n, size) => n + (Math.min(size, k) * (Math.min(size, k) - 1)) / 2, 0);
    expect(pointsPerStretch([60, 5])).toBe(200);
    const many = Array.from({ length: 600 }, () => 300);
    const k = pointsPerStretch(many);
    expect(pairs(many, k)).toBeLessThanOrEqual(MAX_PAIRS);
    expect(pairs(many, k + 1)).toBeGreaterThan(MAX_PAIRS);
    expect(pointsPerStretch(Array.from({ length: 1e6 }, () => 300))).toBe(2);
    // The sample still measures k and every stretch's E.
    const pts = many.flatMap((size, stretch) =>
      Array.from({ length: size }, (_, i) => {
        const counted = 1_000 + i * 500;
        return { counted, reported: 20_000 + stretch * 10 + Math.round(1.2 * counted), stretch };
      }),
    );
    const fit = fitEnvelope(pts);
    expect(fit?.ratio).toBeCloseTo(1.2, 3);
    expect(fit?.stretches.length).toBe(600);
    expect(fit?.stretches[599]?.envelope).toBeCloseTo(25_990, -1);
  });

  it('falls back to the plain difference with one request, and never fails (property)', () => {
    expect(fitEnvelope([{ counted: 40, reported: 26_450, stretch: 0 }])).toMatchObject({
      envelope: 26_410,
      ratio: 1,
      method: 'difference',
    });
    expect(fitEnvelope([])).toBeNull();
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            counted: fc.integer({ min: 0, max: 1e6 }),
            reported: fc.integer({ min: 0, max: 1e6 }),
            stretch: fc.integer({ min: 0, max: 3 }),
          }),
          { maxLength: 40 },
        ),
        (pts) => {
          const fit = fitEnvelope(pts);
          if (!fit) return pts.every((p) => p.counted === 0 || p.reported === 0);
          return Number.isFinite(fit.envelope) && fit.ratio >= 0.5 && fit.ratio <= 2;
        },
      ),
    );
  });
});
