import type { SummaryRequest } from '../strategies/types';
import type { Fact } from './facts';
import type { JudgeVerdict } from './results';

/*
 * The optional LLM judge: a second opinion in its own column, never merged into the deterministic
 * scores and never ground truth (a model's verdict is evidence, not truth; cosh: a model-based
 * audit cannot guarantee recall). The judge sees the facts in words (not their matchers) and the
 * strategy's new text, and answers in JSON. The runner sends the request through a pinned model and
 * parses the answer here.
 */

export const JUDGE_INSTRUCTIONS = [
  'You check a handoff summary written for a coding agent against facts a person verified in the original session.',
  'For each fact, decide whether the summary conveys it (for STALE facts: whether the summary wrongly presents them as still current).',
  'Answer with one JSON object and nothing else: {"pass": true|false, "score": <0..1, the share of facts handled correctly>, "rationale": "<one short paragraph>"}.',
].join('\n');

const MAX_SUMMARY_CHARS = 60_000;

export function judgeRequest(facts: readonly Fact[], summary: string, instructions?: string): SummaryRequest {
  const list = facts.map((f) => `- [${f.category === 'stale' ? 'STALE' : f.category.toUpperCase()}] ${f.text}`).join('\n');
  const clipped =
    summary.length > MAX_SUMMARY_CHARS
      ? `${summary.slice(0, MAX_SUMMARY_CHARS)}\n[… ${summary.length - MAX_SUMMARY_CHARS} characters not shown]`
      : summary;
  return {
    stage: 'audit',
    label: 'judge',
    system: instructions ?? JUDGE_INSTRUCTIONS,
    maxOutput: 1_000,
    messages: [{ role: 'user', text: `Facts:\n${list}\n\nSummary:\n${clipped}` }],
  };
}

/** The verdict in a judge's answer: the first JSON object in it, checked field by field. */
export function parseJudgeVerdict(model: string, text: string | null, error: string | null = null): JudgeVerdict {
  const failed = (why: string): JudgeVerdict => ({ model, pass: null, score: null, rationale: '', error: why });
  if (error !== null) return failed(error);
  if (text === null) return failed('the judge gave no answer');
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return failed('the judge did not answer with a JSON object');
  let obj: unknown;
  try {
    obj = JSON.parse(text.slice(start, end + 1));
  } catch (err) {
    return failed(`the judge's JSON does not parse: ${(err as Error).message}`);
  }
  const rec = obj && typeof obj === 'object' ? (obj as Record<string, unknown>) : {};
  const score = typeof rec.score === 'number' && rec.score >= 0 && rec.score <= 1 ? rec.score : null;
  const pass = typeof rec.pass === 'boolean' ? rec.pass : null;
  if (pass === null && score === null) return failed('the judge\'s answer has neither "pass" (boolean) nor "score" (0..1)');
  return { model, pass, score, rationale: typeof rec.rationale === 'string' ? rec.rationale : '', error: null };
}
