import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bodyJson, readCaptured } from '../../src/main/mock/record';
import { SessionInspector } from '../../src/main/session/inspector';
import { loadSession } from '../../src/main/session/load';

/*
 * The findings of the auto-compact runs (fixtures/fidelity/logs), checked against what the client
 * sent. The scenario asks a follow-up question in the turn that compacts, after a reply that
 * reported a usage over the limit; the mock's scripted summary is longer than that short
 * conversation. Before 2.1.197 the question goes into the summarizer call and is not sent again
 * after the summary (PENDING_USER_SUMMARISED is true); 2.1.197 and 2.1.332 keep it after the
 * summary. Where the log has no size for the summary, it is counted in characters against what it
 * replaced: 2.0.77 and 2.1.9's are not smaller (SUMMARY_NOT_SMALLER is true). 2.1.197 writes the
 * question's record twice with one uuid, the second adding only \`slug\` (CC_DUPLICATE_UUID is true;
 * the first stands, and the question is sent once).
 */

const LOGS = 'fixtures/fidelity/logs';
const QUESTION = 'A follow-up question';

async function findings(version: string): Promise<{ rules: string[]; afterCompact: string }> {
  const dir = join(LOGS, `claude-code-${version}`, 'auto-compact');
  const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { mainLog: string };
  const after = readCaptured(join(dir, 'captured.jsonl')).requests.find((c) => c.answer.label === 'after-compact');
  const ins = new SessionInspector(await loadSession(join(dir, run.mainLog)));
  try {
    await ins.loadRuleTexts();
    const rules = ins
      .diagnostics()
      .filter((d) => d.severity !== 'info')
      .map((d) => d.rule);
    return { rules, afterCompact: after ? JSON.stringify(bodyJson(after)) : '' };
  } finally {
    await ins.session.dispose();
  }
}

describe('auto-compact findings on the real runs', () => {
  for (const version of ['2.0.77', '2.1.9', '2.1.97'])
    it(`${version}: the pending question was summarised, and the wire agrees`, async () => {
      const { rules, afterCompact } = await findings(version);
      expect(rules).toContain('PENDING_USER_SUMMARISED');
      expect(afterCompact).not.toContain(QUESTION);
    });

  for (const version of ['2.1.197', '2.1.332'])
    it(`${version}: the question stays after the summary, and nothing says otherwise`, async () => {
      const { rules, afterCompact } = await findings(version);
      expect(rules).not.toContain('PENDING_USER_SUMMARISED');
      expect(afterCompact).toContain(QUESTION);
    });

  it('2.0.77 and 2.1.9: the summary counted is not smaller than what it replaced', async () => {
    for (const version of ['2.0.77', '2.1.9']) expect((await findings(version)).rules).toContain('SUMMARY_NOT_SMALLER');
  });

  it('2.1.197: the question record is written twice with one uuid', async () => {
    const dir = join(LOGS, 'claude-code-2.1.197', 'auto-compact');
    const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { mainLog: string };
    const records = readFileSync(join(dir, run.mainLog), 'utf8')
      .split('\n')
      .filter((l) => l.includes(QUESTION) && l.includes('"type":"user"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records).toHaveLength(2);
    const [first, second] = records as [Record<string, unknown>, Record<string, unknown>];
    const { slug: _slug, ...rest } = second;
    expect(rest).toEqual(first);
    const { rules, afterCompact } = await findings('2.1.197');
    expect(rules).toContain('CC_DUPLICATE_UUID');
    expect(afterCompact.split(QUESTION)).toHaveLength(2);
  });
});
