import { describe, expect, it } from 'vitest';
import { judgeRequest, parseJudgeVerdict } from '../../../src/shared/eval/judge';
import { facts } from './helpers';

describe('judge', () => {
  it('shows the judge the facts in words, never their matchers', () => {
    const fs = facts([
      { id: 'c1', category: 'constraint', text: 'Never touch billing.', match: { regex: 'secret-matcher' }, confirmed: true },
      { id: 's1', category: 'stale', text: 'The cache is in /tmp.', match: 'x', confirmed: true },
    ]);
    const req = judgeRequest(fs, 'Summary text.');
    const text = req.messages[0]?.text ?? '';
    expect(text).toContain('- [CONSTRAINT] Never touch billing.');
    expect(text).toContain('- [STALE] The cache is in /tmp.');
    expect(text).not.toContain('secret-matcher');
    expect(req.stage).toBe('audit');
  });

  it('parses a verdict, and turns anything else into a failed verdict rather than a throw', () => {
    expect(parseJudgeVerdict('m', 'Sure! {"pass": false, "score": 0.5, "rationale": "lost a rule"} done')).toEqual({
      model: 'm',
      pass: false,
      score: 0.5,
      rationale: 'lost a rule',
      error: null,
    });
    expect(parseJudgeVerdict('m', 'no json').error).toMatch(/did not answer with a JSON object/);
    expect(parseJudgeVerdict('m', '{"pass": "yes"}').error).toMatch(/neither "pass"/);
    expect(parseJudgeVerdict('m', '{bad json}').error).toMatch(/does not parse/);
    expect(parseJudgeVerdict('m', null, 'timeout').error).toBe('timeout');
  });
});
