import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type RequestComparison, compareLog } from '../../src/main/fidelity/compare';
import { compareRecorded } from '../../src/main/fidelity/recorded';
import { type CapturedRequest, bodyJson, readCaptured } from '../../src/main/mock/record';
import { compareParts } from '../../src/main/wire/compare';
import type { Part } from '../../src/main/wire/normalize';

/*
 * The saved real Gemini CLI runs (fixtures/fidelity/logs/gemini-cli-<version>/<scenario>) compared
 * with their capture as the fidelity suite does. Before 0.44 the client compresses without writing
 * it to the file: the request after the compression went out with the context turn, the summary,
 * the acknowledgement and the kept tail, which the log cannot know, so it is unknown with the
 * reason named, never a mismatch; a real difference in the kept tail still is one.
 */

const LOGS = 'fixtures/fidelity/logs';

type GeminiBody = { contents: { role: string; parts: Record<string, unknown>[] }[] };

async function compareSaved(run: string, edit?: (c: CapturedRequest) => CapturedRequest): Promise<RequestComparison[]> {
  const dir = join(LOGS, run);
  const meta = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { mainLog: string; version: string; scenario: string };
  const captured = readCaptured(join(dir, 'captured.jsonl')).requests;
  const c = await compareLog({
    client: 'gemini-cli',
    version: meta.version,
    scenario: meta.scenario,
    covers: [],
    runProblems: [],
    mainLog: join(dir, meta.mainLog),
    captured: edit ? captured.map(edit) : captured,
  });
  expect(c.error).toBeNull();
  return [...c.requests];
}

/** The capture with wire request `seq`'s body changed by `f`. */
const plant =
  (seq: number, f: (b: GeminiBody) => void) =>
  (c: CapturedRequest): CapturedRequest => {
    const body = bodyJson(c) as GeminiBody | null;
    if (!body || c.seq !== seq) return c;
    f(body);
    const { decoded: _d, ...rest } = c;
    return { ...rest, body: JSON.stringify(body), bodyEncoding: 'utf8' };
  };

const verdicts = (rs: readonly RequestComparison[]): [number, string][] => rs.map((r) => [r.seq, r.verdict]);
const HISTORY = 'Gemini CLI may have compressed the history before this request without writing it to the file';

describe('Gemini CLI before 0.44: the request after an unlogged compression', () => {
  const runs: [string, number][] = [
    // The wire seq of the request after the compression (the summary call, and from 0.38 its
    // verification, are only on the wire).
    ['gemini-cli-0.22.4/auto-compact', 4],
    ['gemini-cli-0.38.2/auto-compact', 5],
    ['gemini-cli-0.41.2/auto-compact', 5],
  ];
  for (const [run, after] of runs)
    it(`${run}: unknown with the reason, no mismatch`, async () => {
      const rs = await compareSaved(run);
      expect(rs.filter((r) => r.verdict === 'mismatch')).toEqual([]);
      const r = rs.find((x) => x.seq === after);
      expect(r).toMatchObject({ verdict: 'unknown', messages: { status: 'unknown', index: 0 } });
      expect(r?.messages?.why).toContain(HISTORY);
      expect(r?.firstDiff).toBeNull();
      // The requests before it name nothing of it; every agent request is paired.
      for (const x of rs.filter((x) => x.seq < after && x.verdict === 'unknown')) expect(x.messages?.why ?? '').not.toContain(HISTORY);
      expect(rs.filter((x) => x.verdict === 'not-in-log').length).toBe(after - 3);
    });

  it('a changed part of the kept tail is still a mismatch at its place', async () => {
    const rs = await compareSaved(
      'gemini-cli-0.41.2/auto-compact',
      plant(5, (b) => {
        const last = b.contents.at(-1)?.parts[0] as { functionResponse: { response: Record<string, unknown> } };
        last.functionResponse.response = { output: 'planted' };
      }),
    );
    const r = rs.find((x) => x.seq === 5);
    expect(r?.verdict).toBe('mismatch');
    expect(r?.firstDiff).toContain('planted');
  });

  it('a changed prompt of the kept tail is a mismatch too', async () => {
    const rs = await compareSaved(
      'gemini-cli-0.22.4/auto-compact',
      plant(4, (b) => {
        const prompt = b.contents.find((c) => c.role === 'user' && c.parts[0]?.text === 'Now list the files in this folder.');
        (prompt?.parts[0] as { text: string }).text = 'Now delete the files in this folder.';
      }),
    );
    expect(rs.find((x) => x.seq === 4)?.verdict).toBe('mismatch');
  });

  it('the versions that write the compression into the file compare as before', async () => {
    expect(verdicts(await compareSaved('gemini-cli-0.45.2/auto-compact'))).toEqual([
      [0, 'unknown'],
      [1, 'unknown'],
      [2, 'unknown'],
      [3, 'not-in-log'],
      [4, 'not-in-log'],
      [5, 'unknown'],
      [6, 'unknown'],
    ]);
    for (const r of await compareSaved('gemini-cli-0.61.0/auto-compact')) expect(r.messages?.why ?? '').not.toContain(HISTORY);
  });
});

describe("an unknown that stands for a history replaced ('history')", () => {
  const u = (text: string): Part => ({ role: 'user', type: 'text', text });
  const a = (text: string): Part => ({ role: 'assistant', type: 'text', text });
  const call: Part = { role: 'assistant', type: 'tool_call', id: '', name: 'ls', input: '{}' };
  const result: Part = { role: 'tool', type: 'tool_result', callId: '', content: 'empty', isError: false };
  const history: Part = { role: 'user', type: 'unknown', why: 'replaced', span: 'history' };
  const view = [history, u('one'), a('reply one'), u('two'), call, result];

  it('stands for the parts as they are', () => {
    expect(compareParts([u('one'), a('reply one'), u('two'), call, result], view)).toMatchObject({ status: 'unknown', why: 'replaced' });
  });

  it('or for any parts in place of those before a user turn', () => {
    expect(compareParts([u('summary'), a('ok'), u('two'), call, result], view).status).toBe('unknown');
    expect(compareParts([u('summary'), a('ok'), u('three')], [...view, a('reply two'), u('three')]).status).toBe('unknown');
    // A tool result is never kept without its call.
    expect(compareParts([u('summary'), a('ok'), result], view).status).toBe('mismatch');
  });

  it('not for a kept tail that differs, lacks the message being sent or has more after it', () => {
    // Reported where the closest alternative differs: the result, one part of five.
    const r = compareParts([u('summary'), a('ok'), u('two'), call, { ...result, content: 'full' }], view);
    expect(r).toMatchObject({ status: 'mismatch', index: 4, differing: 1, of: 5 });
    expect(compareParts([u('summary'), a('ok'), u('two'), call], view).status).toBe('mismatch');
    expect(compareParts([u('summary'), a('ok'), u('two'), call, result, u('more')], view).status).toBe('mismatch');
  });

  it('names the other unknowns after it', () => {
    const maybe: Part = { role: 'tool', type: 'unknown', why: 'may be cleared', maybe: result };
    const r = compareParts([u('summary'), a('ok'), u('two'), call, result], [...view.slice(0, 5), maybe]);
    expect(r).toMatchObject({ status: 'unknown', why: 'replaced; may be cleared' });
  });
});

describe('Gemini CLI compression calls in a session joined with its capture', () => {
  for (const [version, calls] of [
    ['0.22.4', [3]],
    ['0.41.2', [3, 4]],
  ] as const)
    it(`${version}: the summary (and verification) calls are summarizer calls, and nothing disagrees`, async () => {
      const dir = join(LOGS, `gemini-cli-${version}`, 'auto-compact');
      const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { mainLog: string; captures: string[] };
      const r = await compareRecorded(
        join(dir, run.mainLog),
        readCaptured(join(dir, 'captured.jsonl')).requests,
        run.captures.map((c) => join(dir, c)),
        'gemini',
      );
      expect(r.error).toBeNull();
      expect(r.findingsJoined).toEqual([]);
      expect(r.requests.filter((x) => x.purpose === 'summarizer').map((x) => x.seq)).toEqual(calls);
      expect(r.requests.every((x) => x.verdict === 'match')).toBe(true);
    });
});
