import { describe, expect, it } from 'vitest';
import { isModelCall } from '../../../src/main/dialects/claude-model-call';

describe('which Claude Code assistant records are model calls', () => {
  it('counts a plain reply and an API error, not a synthetic record nor a preserved copy', () => {
    expect(isModelCall(false, false, false)).toBe(true);
    expect(isModelCall(true, false, false)).toBe(false);
    expect(isModelCall(false, false, true)).toBe(false);
    expect(isModelCall(true, true, false)).toBe(true);
    expect(isModelCall(true, true, true)).toBe(true);
  });
});
