import { describe, expect, it } from 'vitest';
import { RUNS, importFixture } from './helpers';

/*
 * The chats the real Gemini CLI wrote against the mock provider, whose every request the fidelity
 * suite compared with the wire (docs/gemini-cli.md, "Verified on the wire"). What is asserted here
 * is what that wire showed.
 */

const results = (r: ReturnType<typeof importFixture>, i: number): number =>
  r
    .view(i)
    .items.flatMap((x) => x.blocks ?? [])
    .filter((b) => b.type === 'tool_result').length;

describe('Gemini CLI 0.61.0, three turns with two resumes', () => {
  const r = importFixture(RUNS.resume);

  it('sends a result recorded both in toolCalls and as a user message once', () => {
    expect(r.state.requests).toHaveLength(5);
    // Request 1 (the first turn's answer) carries the one result the wire carried.
    expect(results(r, 1)).toBe(1);
  });

  it('keeps each copy of the responses a resume writes back under the same id, as the wire sends them', () => {
    // The function responses each request of fixtures/fidelity/logs/gemini-cli-0.61.0/tools-resume
    // carried: after the first resume the first call's response goes out twice, after the second
    // three times.
    expect([1, 2, 3, 4].map((i) => results(r, i))).toEqual([1, 2, 4, 6]);
    expect(r.diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);
  });

  it('reads the opening context turn the list writes back', () => {
    const first = r.view(0).items[0]?.blocks?.[0];
    expect(first?.type === 'text' && first.text.startsWith('<session_context>')).toBe(true);
  });
});

describe('Gemini CLI 0.61.0, an automatic compression', () => {
  const r = importFixture(RUNS.compress);

  it('is one committed compaction from the reported prompt, summary and acknowledgement in the kept history', () => {
    const start = r.of('compaction/start');
    expect(start).toHaveLength(1);
    expect(start[0]?.preTokens).toBe(600_000);
    expect(r.of('compaction/end')[0]?.outcome).toBe('committed');
    const after = r.view(3).items;
    expect(after.some((x) => x.derivation?.kind === 'checkpoint')).toBe(true);
    expect(after.some((x) => x.blocks?.some((b) => b.type === 'text' && b.text === 'Got it. Thanks for the additional context!'))).toBe(
      true,
    );
  });
});

describe('Gemini CLI 0.61.0, a compression whose summary stays empty', () => {
  it('leaves no compaction: the file shows nothing of the failed attempt', () => {
    const r = importFixture(RUNS.emptySummary);
    expect(r.of('compaction/start')).toEqual([]);
    // The second turn failed after its tool call: four agent calls in the file.
    expect(r.state.requests).toHaveLength(4);
  });
});

describe('Gemini CLI before the list is written back', () => {
  it.each([RUNS.json, RUNS.jsonl])('%s names the compressions it could not record', (rel) => {
    const r = importFixture(rel);
    expect(r.state.requests).toHaveLength(5);
    expect(r.view(4).unknowns.some((u) => u.includes('before 0.44 compressed the history'))).toBe(true);
  });
});
