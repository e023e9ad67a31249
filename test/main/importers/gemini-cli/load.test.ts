import { describe, expect, it } from 'vitest';
import { loadSession } from '../../../../src/main/session/load';

describe('loading a legacy Gemini CLI session (a pretty-printed .json)', () => {
  it('loads a legacy Gemini CLI session, and re-reads its long texts from the one record', async () => {
    const s = await loadSession('fixtures/gemini-cli/session-2025-12-30T06-53-7bc58f7d.json');
    try {
      expect(s.format).toBe('gemini-cli');
      expect(s.files[0]?.stats).toMatchObject({ records: 1, skipped: 0 });
      expect(s.diagnostics).toEqual([]);
      const seqs = Array.from({ length: s.events.length }, (_, i) => i);
      const whole = await s.hydrateMany(seqs);
      expect(whole.filter((e) => e.kind === 'item')).toHaveLength(44);
    } finally {
      await s.dispose();
    }
  });
});
