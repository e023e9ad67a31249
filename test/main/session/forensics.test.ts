import { describe, expect, it } from 'vitest';
import { branchSurvival } from '../../../src/main/session/forensics';
import { SessionInspector } from '../../../src/main/session/inspector';
import { loadSession } from '../../../src/main/session/load';
import { CATEGORIES } from '../../../src/shared/forensics/categories';

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
