import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { innermostBracket, type Bracket } from '../../../src/shared/diagnostics/brackets';

/** The definition: of the brackets containing seq, the latest start; on a tie, the first listed. */
function byScan(brackets: readonly Bracket[], seq: number): string | null {
  let best: Bracket | null = null;
  for (const b of brackets) if (b.from <= seq && seq <= b.to && (!best || b.from > best.from)) best = b;
  return best?.id ?? null;
}

const bracket = fc.record({
  from: fc.integer({ min: 0, max: 60 }),
  len: fc.oneof(fc.integer({ min: 0, max: 25 }), fc.constant(Number.POSITIVE_INFINITY)),
});

describe('innermost compaction bracket', () => {
  it('answers what a scan of every bracket answers: nested, overlapping, open-ended, equal starts', () => {
    fc.assert(
      fc.property(fc.array(bracket, { maxLength: 12 }), (raw) => {
        const brackets = raw.map((r, i) => ({ id: `c${i}`, from: r.from, to: r.from + r.len }));
        const at = innermostBracket(brackets);
        for (let seq = -1; seq <= 90; seq++) expect(at(seq)).toBe(byScan(brackets, seq));
      }),
      { numRuns: 400 },
    );
  });

  it('of two brackets that start together, names the first listed', () => {
    const at = innermostBracket([
      { id: 'a', from: 5, to: 9 },
      { id: 'b', from: 5, to: 20 },
    ]);
    expect(at(7)).toBe('a');
    expect(at(15)).toBe('b');
    expect(at(21)).toBeNull();
  });
});
