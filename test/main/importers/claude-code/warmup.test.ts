import { describe, expect, it } from 'vitest';
import { loadSession } from '../../../../src/main/session/load';

/*
 * Claude Code 2.0.x warms the prompt cache of each subagent type with a "Warmup" prompt that no
 * Task call starts, written as top-level agent-*.jsonl files beside the session (a real 2.0.71
 * session of the corpus, whose only agent files are two warmups): side calls by design, read as
 * branches of the session, and no finding.
 */

const SESSION = 'fixtures/corpus/claude-code/hillviewcap-personal-ai-infrastructure/d3d4e0f8-bcb2-4597-8d7e-3fbcb2d9402b.jsonl';

describe('Claude Code 2.0.x warmup agent files', () => {
  it('are read with their session as branches of their own, with no CC_SUBAGENT_UNLINKED', async () => {
    const session = await loadSession(SESSION);
    try {
      expect(session.files.map((f) => f.path.split('/').pop())).toEqual([
        'd3d4e0f8-bcb2-4597-8d7e-3fbcb2d9402b.jsonl',
        'agent-a35030a.jsonl',
        'agent-a4e1900.jsonl',
      ]);
      expect(session.diagnostics.filter((d) => d.rule === 'CC_SUBAGENT_UNLINKED')).toEqual([]);
    } finally {
      await session.dispose();
    }
  });
});
