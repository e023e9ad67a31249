import { afterEach, describe, expect, it } from 'vitest';
import { SessionInspector } from '../../../../src/main/session/inspector';
import { loadSession } from '../../../../src/main/session/load';

/*
 * TRIGGER_MISSED on the real runs that went past Gemini CLI's trigger: before 0.44 the file
 * records no compression at all (the wire of 0.41.2's auto-compact shows one that succeeded), so
 * the finding must not read the missing one as a failure; from 0.44 a committed one is in the file
 * (0.61.0's compact-empty-summary: the compressions failed).
 */

const LOGS = 'fixtures/fidelity/logs';
const opened: SessionInspector[] = [];
afterEach(async () => {
  for (const i of opened.splice(0)) await i.session.dispose();
});

async function triggerMissed(path: string): Promise<string[]> {
  const i = new SessionInspector(await loadSession(path));
  opened.push(i);
  await i.loadRuleTexts();
  return i
    .diagnostics()
    .filter((d) => d.rule === 'TRIGGER_MISSED')
    .map((d) => d.message);
}

describe('TRIGGER_MISSED on Gemini CLI runs', () => {
  it('says a compression may have run unseen where the version writes none (0.41.2)', async () => {
    const [m, ...rest] = await triggerMissed(
      `${LOGS}/gemini-cli-0.41.2/auto-compact/tmp/work/chats/session-2026-12-02T21-27-978a856e.jsonl`,
    );
    expect(rest).toEqual([]);
    expect(m).toContain(
      'Gemini CLI before 0.44 writes no compression into the file, whether it succeeds or fails, so one may have run here unseen, or failed',
    );
    expect(m).not.toContain('does not log a failed automatic compaction');
  });

  it('says a failure may be unseen where the version writes the ones that commit (0.61.0)', async () => {
    const [m] = await triggerMissed(
      `${LOGS}/gemini-cli-0.61.0/compact-empty-summary/tmp/work/chats/session-2026-12-02T21-24-07179651.jsonl`,
    );
    expect(m).toContain('This client does not log a failed automatic compaction, so one may have failed here unseen');
  });
});
