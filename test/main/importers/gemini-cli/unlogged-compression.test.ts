import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionInspector } from '../../../../src/main/session/inspector';
import { loadSession } from '../../../../src/main/session/load';
import { geminiCompressionRule } from '../../../../src/shared/compat/gemini-compression';
import { importValues } from './helpers';

/*
 * A compression Gemini CLI before 0.44 runs without writing it to the file, named on the requests
 * it may have changed: on the real runs whose wire shows one (auto-compact of 0.22.4, 0.38.2 and
 * 0.41.2: a reply reports 600,000 prompt tokens, the next request goes out compressed), on no
 * request of a run that stays below the threshold (tools-resume), and on none of a version that
 * writes its compressions into the file (0.45.2, 0.61.0).
 */

const LOGS = 'fixtures/fidelity/logs';
const opened: SessionInspector[] = [];
afterEach(async () => {
  for (const i of opened.splice(0)) await i.session.dispose();
});

const mainLog = (run: string): string => {
  const dir = join(LOGS, run);
  return join(dir, (JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { mainLog: string }).mainLog);
};

/** Per request of the main branch: the `history` entry's sentence, or null. */
async function named(run: string): Promise<(string | null)[]> {
  const ins = new SessionInspector(await loadSession(mainLog(run)));
  opened.push(ins);
  return ins.replay(ins.defaultBranch).requests.map((r) => r.unlogged.find((u) => u.history)?.why ?? null);
}

describe('a Gemini CLI compression the file does not record', () => {
  for (const version of ['0.22.4', '0.38.2', '0.41.2'])
    it(`${version} auto-compact: every request after the reply of 600,000 prompt tokens names it`, async () => {
      const whys = await named(`gemini-cli-${version}/auto-compact`);
      // Requests 0–2 go out before the reply that crosses the threshold (request 2's); 3 is the
      // compressed one on the wire, 4 a resumed process that rebuilt the history whole.
      expect(whys.map((w) => w !== null)).toEqual([false, false, false, true, true]);
      const why = whys[3] as string;
      expect(why).toContain('reported 600,000 prompt tokens, at or over its automatic compression threshold of 524,288');
      expect(why).toContain("0.5 of gemini-2.5-flash's 1,048,576-token limit");
      expect(why).toContain('which messages were summarised and what the summary says are not in the file');
      expect(whys[4]).toBe(why);
    });

  for (const run of ['gemini-cli-0.22.4/tools-resume', 'gemini-cli-0.41.2/tools-resume'])
    it(`${run}: below the threshold nothing is named`, async () => {
      expect((await named(run)).every((w) => w === null)).toBe(true);
    });

  for (const run of ['gemini-cli-0.45.2/auto-compact', 'gemini-cli-0.61.0/auto-compact', 'gemini-cli-0.61.0/compact-empty-summary'])
    it(`${run}: a file that writes its list back records its compressions, and names none`, async () => {
      expect((await named(run)).every((w) => w === null)).toBe(true);
    });

  it("the view lists it among its unknowns, with the header's general sentence", async () => {
    const ins = new SessionInspector(await loadSession(mainLog('gemini-cli-0.22.4/auto-compact')));
    opened.push(ins);
    const unknowns = async (i: number): Promise<readonly string[]> => (await ins.fullViews([i], ins.defaultBranch))[0]?.unknowns ?? [];
    const after = await unknowns(3);
    expect(after.filter((u) => u.startsWith('messages: Gemini CLI may have compressed the history before this request'))).toHaveLength(1);
    expect(await unknowns(2)).not.toContainEqual(expect.stringContaining('may have compressed the history before this request'));
  });
});

describe('the threshold, exactly', () => {
  const chat = (prompt: number, model = 'gemini-2.5-flash'): Record<string, unknown>[] => [
    { sessionId: 's', projectHash: 'p', startTime: '2026-01-01T00:00:00.000Z', lastUpdated: '2026-01-01T00:00:00.000Z', kind: 'main' },
    { id: 'u1', timestamp: '2026-01-01T00:00:01.000Z', type: 'user', content: [{ text: 'Read the repository.' }] },
    { id: 'g1', timestamp: '2026-01-01T00:00:02.000Z', type: 'gemini', content: 'Reading.', tokens: tok(prompt), model },
    { id: 'u2', timestamp: '2026-01-01T00:00:03.000Z', type: 'user', content: [{ text: 'Go on.' }] },
    { id: 'g2', timestamp: '2026-01-01T00:00:04.000Z', type: 'gemini', content: 'Done.', tokens: tok(1_000), model },
  ];
  const tok = (input: number) => ({ input, output: 10, cached: 0, thoughts: 0, tool: 0, total: input + 10 });
  const history = (values: Record<string, unknown>[]): boolean[] =>
    importValues(values)
      .of('request')
      .map((r) => (r.unlogged ?? []).some((u) => u.history === true));

  it('names nothing one token below it and the next request at it', () => {
    expect(geminiCompressionRule('gemini-2.5-flash').threshold).toBe(524_288);
    expect(history(chat(524_287))).toEqual([false, false]);
    expect(history(chat(524_288))).toEqual([false, true]);
  });

  it("takes the model's limit, the lowest of the versions read (Gemma 4: 256,000 in 0.41.2)", () => {
    expect(history(chat(128_000, 'gemma-4-31b-it'))).toEqual([false, true]);
    expect(history(chat(127_999, 'gemma-4-31b-it'))).toEqual([false, false]);
    const why = importValues(chat(128_000, 'gemma-4-31b-it')).of('request')[1]?.unlogged?.[0]?.why;
    expect(why).toContain('256,000 in 0.41.2');
  });

  it('names nothing once the file has written its list back (0.44 on)', () => {
    const values = chat(600_000);
    const set = { $set: { messages: values.slice(1, 3) } };
    expect(history([...values.slice(0, 3), set, ...values.slice(3)])).toEqual([false, false]);
  });
});
