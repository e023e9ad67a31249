import { describe, expect, it } from 'vitest';
import { isLive } from '../../../src/renderer/library/format';

describe('isLive', () => {
  const now = Date.parse('2026-01-01T12:00:00Z');
  it('marks a session written to in the last few minutes', () => {
    expect(isLive('2026-01-01T11:59:00Z', now)).toBe(true);
    expect(isLive(new Date(now - 5 * 60_000 - 1).toISOString(), now)).toBe(false);
  });
  it('marks nothing for a date it cannot read, or one far in the future', () => {
    expect(isLive('not a date', now)).toBe(false);
    expect(isLive('2026-01-02T12:00:00Z', now)).toBe(false);
  });
});
