import { describe, expect, it } from 'vitest';
import { preservedRefs, walkSegment } from '../../../src/main/dialects/claude-preserved';

describe('Claude Code preserved records, read the same by the importer and the fast listing', () => {
  it('reads the uuids list and a segment only when both ends are non-empty strings', () => {
    expect(preservedRefs({ preservedMessages: { uuids: ['a', 3, 'b'] }, preservedSegment: { headUuid: 'h', tailUuid: 't' } })).toEqual({
      uuids: ['a', 'b'],
      segment: { head: 'h', tail: 't' },
    });
    expect(preservedRefs({ preservedSegment: { headUuid: '', tailUuid: 't' } })).toEqual({ uuids: [], segment: undefined });
    expect(preservedRefs({ preservedMessages: 'x', preservedSegment: ['h', 't'] })).toEqual({ uuids: [], segment: undefined });
  });

  it('walks from the tail to the head, and names nothing when the walk ends or loops first', () => {
    const parent = new Map<string, string>([
      ['t', 'm'],
      ['m', 'h'],
      ['h', 'root'],
    ]);
    const up = (n: string): string | null => parent.get(n) ?? null;
    expect(walkSegment('t', (n) => n === 'h', up)).toEqual(['t', 'm', 'h']);
    expect(walkSegment('t', (n) => n === 'elsewhere', up)).toBeNull();
    const loop = new Map<string, string>([
      ['t', 'm'],
      ['m', 't'],
    ]);
    expect(
      walkSegment(
        't',
        (n) => n === 'h',
        (n) => loop.get(n) ?? null,
      ),
    ).toBeNull();
    expect(walkSegment<string>(null, () => true, up)).toBeNull();
  });
});
