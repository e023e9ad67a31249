import { describe, expect, it } from 'vitest';
import { STRATEGIES, strategyById } from '../../../src/shared/strategies';
import { charCounter } from './common/char-counter';
import { strategySource, type SourceItem, type SourceView } from '../../../src/shared/strategies/types';
import { candidateDiagnostics } from '../../../src/shared/rerun/as-log';
import { FakeSummarizer } from './fake-summarizer';

// One conversation large enough that every strategy has something to do on a 4k window.
function longSource(): SourceView {
  const items: SourceItem[] = [
    {
      id: 'u0',
      role: 'user',
      blocks: [{ type: 'text', text: 'Refactor src/server/router.ts. Never change the public API of createRouter.' }],
      seq: 0,
    },
  ];
  for (let i = 1; i <= 12; i++) {
    items.push({
      id: `a${i}`,
      role: 'assistant',
      blocks: [{ type: 'tool_call', id: `c${i}`, name: 'read_file', input: JSON.stringify({ path: `src/server/file${i}.ts` }) }],
      seq: i * 3 - 2,
    });
    items.push({
      id: `t${i}`,
      role: 'tool',
      blocks: [
        {
          type: 'tool_result',
          callId: `c${i}`,
          content: [{ type: 'text', text: `export function handler${i}() { return ${i * 1000}; }\n`.repeat(20) }],
        },
      ],
      seq: i * 3 - 1,
    });
    items.push({
      id: `m${i}`,
      role: 'assistant',
      blocks: [{ type: 'text', text: `File ${i} read; handler${i} returns ${i * 1000}.` }],
      seq: i * 3,
    });
  }
  items.push({ id: 'u1', role: 'user', blocks: [{ type: 'text', text: 'Continue.' }], seq: 40 });
  return {
    system: [{ type: 'text', text: 'You are a coding agent.' }],
    tools: null,
    items,
    route: { model: 'm', window: 6_000 },
    reportedInputTokens: null,
  };
}

const JSON_SUMMARY = JSON.stringify({
  session_intent: 'refactor router',
  files_touched: ['src/server/router.ts'],
  decisions: ['keep createRouter API'],
  pending_questions: [],
  next_steps: ['continue'],
});

describe('the strategy registry', () => {
  it('lists each strategy of a compaction system and the baselines once', () => {
    expect(STRATEGIES.map((s) => s.id)).toEqual([
      'one-shot',
      'layered',
      'dsh-basic',
      'preemptive',
      'truncate',
      'clear-tools',
      'extractive',
    ]);
    expect(strategyById('layered')?.source).toBe('001');
    expect(strategyById('nope')).toBeNull();
  });

  it('names the compaction system each strategy follows, in words', () => {
    expect(STRATEGIES.map((s) => [s.id, strategySource(s.source)])).toEqual([
      ['one-shot', 'Rind'],
      ['layered', 'cosh'],
      ['dsh-basic', 'DeepSeek Harness'],
      ['preemptive', 'Conversation Compaction'],
      ['truncate', 'baseline'],
      ['clear-tools', 'baseline'],
      ['extractive', 'baseline'],
    ]);
    // A number no table knows is shown as it is, not guessed.
    expect(strategySource('003')).toBe('003');
  });

  it.each(STRATEGIES.map((s) => s.id))('%s produces a candidate the diagnostics catalog accepts without errors', async (id) => {
    const s = strategyById(id);
    if (!s) throw new Error(id);
    const source = longSource();
    const summarizer = new FakeSummarizer(
      [
        (req) => ({
          text:
            req.system?.includes('JSON') || req.messages.some((m) => m.text.includes('session_intent'))
              ? JSON_SUMMARY
              : req.stage === 'audit'
                ? 'PASS'
                : '## Objective\nRefactor src/server/router.ts.\n## Constraints\nNever change createRouter.',
        }),
      ],
      100_000,
    );
    const r = await s.run({
      source,
      budget: { window: 6_000, maxOutput: null },
      count: charCounter,
      summarizer: s.needsModel ? summarizer : null,
      signal: new AbortController().signal,
      options: id === 'dsh-basic' || id === 'preemptive' ? { force: true } : {},
    });
    expect(r.strategy).toBe(id);
    expect(r.outcome === 'committed' || r.outcome === 'fallback', `${id}: ${r.error ?? ''}`).toBe(true);
    expect(r.tokens.after).not.toBeNull();
    expect(r.tokens.after as number).toBeLessThan(r.tokens.before);
    const errors = candidateDiagnostics(source, r, 6_000, charCounter).filter((d) => d.severity === 'error');
    expect(errors.map((d) => `${d.rule}: ${d.message}`)).toEqual([]);
  });
});
