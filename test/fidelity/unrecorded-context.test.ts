import { describe, expect, it } from 'vitest';
import { CONTEXT_BLOCK_UNKNOWN } from '../../src/main/dialects/claude-unrecorded';
import type { RequestComparison } from '../../src/main/fidelity/compare';
import { compareSaved, plant } from './saved-claude';

/*
 * Claude Code before its api-request records (2.1.97 and 2.1.197 of the fixtures) sends a context
 * block at the start of the first user message and renders the agent and skills listings by its
 * own rules; the log holds neither. The comparison of the saved real runs names both as unknown at
 * their place and compares every other part in place, so a planted difference is still a mismatch.
 */

const compare = compareSaved;

const verdicts = (rs: readonly RequestComparison[]): [number, string][] => rs.map((r) => [r.seq, r.verdict]);

describe('Claude Code 2.1.197: the context block and the listings are unknown in place', () => {
  it('tools-resume: every request is unknown, naming the context block and the attachments', async () => {
    const rs = await compare('2.1.197', 'tools-resume');
    expect(verdicts(rs)).toEqual([
      [1, 'unknown'],
      [2, 'unknown'],
      [4, 'unknown'],
      [5, 'unknown'],
      [7, 'unknown'],
    ]);
    for (const r of rs) {
      expect(r.messages).toMatchObject({ status: 'unknown', index: 0 });
      expect(r.messages?.why).toContain(CONTEXT_BLOCK_UNKNOWN);
      expect(r.messages?.why).toContain('attachment:agent_listing_delta');
      expect(r.messages?.why).toContain('attachment:skill_listing');
      expect(r.firstDiff).toBeNull();
    }
  });

  it('auto-compact and the turns before a compaction: unknown, not a mismatch', async () => {
    // The summarizer call (4) is only on the wire; the turn after the compaction (5) is unknown too.
    expect(verdicts(await compare('2.1.197', 'auto-compact'))).toEqual([
      [1, 'unknown'],
      [2, 'unknown'],
      [4, 'not-in-log'],
      [5, 'unknown'],
    ]);
    expect(verdicts(await compare('2.1.197', 'manual-compact')).slice(0, 2)).toEqual([
      [1, 'unknown'],
      [2, 'unknown'],
    ]);
  });

  it('a changed prompt is still a mismatch', async () => {
    const rs = await compare(
      '2.1.197',
      'tools-resume',
      plant(1, (b) => {
        const first = b.messages[0]?.content as { text: string }[];
        const prompt = first[1] as { text: string };
        prompt.text = 'Print a farewell with the shell.';
      }),
    );
    expect(rs[0]).toMatchObject({ seq: 1, verdict: 'mismatch', messages: { status: 'mismatch', index: 0 } });
    expect(verdicts(rs).slice(1)).toEqual([
      [2, 'unknown'],
      [4, 'unknown'],
      [5, 'unknown'],
      [7, 'unknown'],
    ]);
  });

  it('a changed part after the unknown ones is a mismatch at its own place', async () => {
    const rs = await compare(
      '2.1.197',
      'tools-resume',
      plant(2, (b) => {
        const result = (b.messages.at(-1)?.content as { content: unknown }[])[0] as { content: unknown };
        result.content = 'hello-from-elsewhere';
      }),
    );
    const r = rs[1];
    expect(r).toMatchObject({ seq: 2, verdict: 'mismatch', messages: { status: 'mismatch', index: 4, differing: 1, of: 5 } });
    expect(r?.firstDiff).toContain('hello-from-elsewhere');
  });
});

describe('Claude Code 2.1.97: the reminders before the prompt are unknown', () => {
  it('tools-resume: every request is unknown', async () => {
    const rs = await compare('2.1.97', 'tools-resume');
    expect(verdicts(rs)).toEqual([
      [1, 'unknown'],
      [2, 'unknown'],
      [4, 'unknown'],
      [5, 'unknown'],
      [7, 'unknown'],
    ]);
    for (const r of rs) expect(r.messages?.why).toContain('attachment:skill_listing');
  });

  it('a changed later prompt is still a mismatch', async () => {
    const rs = await compare(
      '2.1.97',
      'tools-resume',
      plant(7, (b) => {
        b.messages[b.messages.length - 1] = { role: 'user', content: 'Thanks, that is plenty.' };
      }),
    );
    expect(rs.find((r) => r.seq === 7)).toMatchObject({ verdict: 'mismatch', messages: { status: 'mismatch' } });
  });
});

describe('Claude Code 2.1.332 (api-request records): nothing is unknown', () => {
  it('tools-resume: every request matches', async () => {
    expect(verdicts(await compare('2.1.332', 'tools-resume')).map(([, v]) => v)).toEqual(['match', 'match', 'match', 'match', 'match']);
  });
});
