import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonPieces } from '../../../src/main/cli/json-pieces';

const whole = (v: unknown): string => [...jsonPieces(v)].join('\n');

describe('JSON in pieces', () => {
  it('is JSON.stringify(value, null, 2) for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => whole(v) === JSON.stringify(v, null, 2)),
      { numRuns: 500 },
    );
  });

  it('is the same text for a listing with long arrays, written in groups of lines', () => {
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue({ maxDepth: 2 }), { minLength: 1_001, maxLength: 2_600 }),
        fc.jsonValue({ maxDepth: 2 }),
        (requests, other) => {
          const listing = {
            palimpsest: 1,
            path: 'a "b"\n.jsonl',
            requests,
            other,
            empty: [],
            skipped: undefined,
            last: requests.slice(0, 3),
          };
          const pieces = [...jsonPieces(listing)];
          expect(pieces.join('\n')).toBe(JSON.stringify(listing, null, 2));
          // The long array never became one string: its pieces hold at most a group of elements.
          expect(pieces.length).toBeGreaterThan(requests.length / 1_000);
        },
      ),
      { numRuns: 20 },
    );
  });

  it('writes null for undefined elements and drops undefined members, as JSON.stringify does', () => {
    const listing = { a: undefined, rows: Array.from({ length: 1_500 }, (_, i) => (i % 2 ? undefined : { i })), z: [] };
    expect(whole(listing)).toBe(JSON.stringify(listing, null, 2));
    expect(whole({})).toBe('{}');
    expect(whole({ a: undefined })).toBe('{}');
  });
});
