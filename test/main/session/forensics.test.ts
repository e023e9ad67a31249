import { describe, expect, it } from 'vitest';
import { branchSurvival } from '../../../src/main/session/forensics';
import { SessionInspector } from '../../../src/main/session/inspector';
import { loadSession } from '../../../src/main/session/load';
import { CATEGORIES } from '../../../src/shared/forensics/categories';
import { Facts } from '../../../src/shared/diagnostics/facts';
import type { Block } from '../../../src/shared/model/content';

/* Compaction forensics on real logs: a Claude Code auto-compaction and a session without one. */

async function measure(path: string) {
  const s = await loadSession(path);
  try {
    return await branchSurvival(new SessionInspector(s));
  } finally {
    await s.dispose();
  }
}

describe('branchSurvival', () => {
  it('measures the real Claude Code auto-compaction on whole texts', async () => {
    const [c, ...rest] = await measure('fixtures/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl');
    expect(rest).toEqual([]);
    expect(c?.id).toBe('dd3cc2e6-a191-4331-a0f0-2473e6d7692d');
    expect(c?.replaced).toBe(132);
    expect(c?.opaque).toBe(false);
    expect(Object.keys(c?.survival ?? {})).toEqual([...CATEGORIES]);
    // The summary keeps most file paths (many as a shorter path) and few of the commands run.
    expect(c?.survival.paths.rate).toBeGreaterThan(0.5);
    expect(c?.survival.commands.rate).toBeLessThan(0.5);
    for (const l of c?.lost ?? []) expect(l.seq).toBeLessThan(c?.commitSeq ?? 0);
  });
  it('has nothing to measure on a session without a compaction', async () => {
    expect(await measure('fixtures/claude-code/short.jsonl')).toEqual([]);
  });
});

describe('Facts.withTexts', () => {
  it('shares the compactions and reads the whole texts it is given', async () => {
    const s = await loadSession('fixtures/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl');
    try {
      const inspector = new SessionInspector(s);
      const state = inspector.replay(inspector.defaultBranch);
      const shallow = new Facts(s.events, state, new Map(), null);
      const [c] = shallow.compactions;
      const rec = c?.shadowed[0];
      if (!c || !rec) throw new Error('the fixture has a compaction that replaced items');
      const whole: Block[] = [{ type: 'text', text: 'the whole text' }];
      const full = shallow.withTexts(new Map([[rec.seq, whole]]));
      expect(full.compactions).toBe(shallow.compactions);
      expect(full.blocksOf(rec).slice(0, 1)).toEqual(whole);
      expect(shallow.blocksOf(rec)).not.toContainEqual(whole[0]);
      // Built on its own, the same facts: the compactions read no text.
      expect(new Facts(s.events, state, new Map([[rec.seq, whole]]), null).compactions).toEqual(shallow.compactions);
    } finally {
      await s.dispose();
    }
  });
});
