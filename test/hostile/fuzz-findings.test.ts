import { describe, expect, it } from 'vitest';
import { parseEvent } from '../../src/main/importers/cosh/parse';

/** A value nested `depth` deep, built as text: JSON.parse takes it, a recursive walk does not. */
const deep = (depth: number): unknown => JSON.parse('['.repeat(depth) + ']'.repeat(depth));

describe('cosh: an event naming its kind with a deeply nested value', () => {
  // Found by the fuzz run: the message about an unknown kind quoted the value with JSON.stringify,
  // which overflowed the stack on 10,000 nested arrays and crashed every command on the file.
  const cases: [string, Record<string, unknown>][] = [
    ['a context field', { type: 'context', change: { field: deep(100_000) } }],
    ['a metadata field', { type: 'metadata', change: { field: deep(100_000) } }],
    ['a message operation', { type: 'message', change: { operation: deep(100_000) } }],
    ['a delta type', { type: deep(100_000) }],
    ['a reference selection kind', { type: 'snapshot', name: 'n', target: { selection: { kind: deep(100_000) } } }],
  ];
  for (const [what, delta] of cases) {
    it(`is a bad event, not a stack overflow: ${what}`, () => {
      const r = parseEvent({ schema_version: 1, event_id: 7, branch_id: 'main', delta });
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.problem).toMatch(/an array/);
        expect(r.problem.length).toBeLessThan(200);
      }
    });
  }

  it('still quotes a string it does not know', () => {
    const r = parseEvent({ schema_version: 1, event_id: 7, branch_id: 'main', delta: { type: 'context', change: { field: 'nope' } } });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.problem).toBe('unknown context field "nope"');
      expect(r.unknown).toBe('context field "nope"');
    }
  });
});
