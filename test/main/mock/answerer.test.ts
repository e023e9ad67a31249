import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { type MockProvider, type ReplyInput, type RequestDigest } from '../../../src/main/mock';
import { HANDOFF_SECTIONS } from '../../../src/main/mock/extract';
import { MOCK_SUMMARY_LABEL, extractiveAnswerer, extractiveSummary } from '../../../src/main/mock/extractive';
import { startMock } from './helpers';

/* The programmatic answerer, and the extractive mock summary re-runs answer with. */

/** A summary request as src/shared/strategies renders one: the history as `[#i role]` items. */
const HISTORY = [
  '[#0 user]',
  'Please fix the failing test in src/main/reader.ts; do not change the public API.',
  '',
  '[#1 assistant]',
  '[tool call Bash id=c1] {"command":"npm test"}',
  '',
  '[#2 tool]',
  '[tool result id=c1 error] FAIL test/reader.test.ts > parses frames',
  "TypeError: Cannot read properties of undefined (reading 'seq')",
  '    at readFrame (src/main/reader.ts:42:7)',
  '',
  '[#3 assistant]',
  'I decided to guard readFrame because the header can be empty. 12 tests pass now.',
  'The old parseHeader approach is no longer used.',
  '',
  '[#4 user]',
  'Now update docs/format.md with the new rule.',
].join('\n');

const SYSTEM = 'You write a handoff summary of the conversation you are given.';
const JSON_SYSTEM =
  'Answer with JSON only, exactly this shape: {"session_intent": "…", "files_touched": ["…"], "decisions": ["…"], "pending_questions": ["…"], "next_steps": ["…"]}';

const anthropic = (m: MockProvider) => new Anthropic({ apiKey: 'k', baseURL: m.url, maxRetries: 0 });
const ask = async (m: MockProvider, system: string, maxTokens = 4000) =>
  anthropic(m).messages.create({ model: 'claude-test', max_tokens: maxTokens, system, messages: [{ role: 'user', content: HISTORY }] });
const textOf = (msg: Anthropic.Message): string => msg.content.map((b) => (b.type === 'text' ? b.text : '')).join('');

/** The bullet lines under a `## heading` of a handoff. */
function section(text: string, heading: string): string[] {
  const body = text.split(`## ${heading}\n`)[1]?.split('\n## ')[0] ?? '';
  return body
    .split('\n')
    .filter((l) => l.startsWith('- '))
    .map((l) => l.slice(2));
}

describe('mock provider: the programmatic answerer', () => {
  it('is consulted before the script; null falls through; it sees the digest, the protocol and the body', async () => {
    const seen: { digest: RequestDigest; protocol: string; body: unknown }[] = [];
    const m = await startMock(
      { steps: [{ label: 'scripted', times: 0, reply: { content: [{ type: 'text', text: 'from the script' }] } }] },
      {
        answer: (digest, req) => (
          seen.push({ digest, ...req }),
          digest.lastUser.includes('mine') ? { content: [{ type: 'text', text: 'from code' }] } : null
        ),
      },
    );
    const c = anthropic(m);
    const a = await c.messages.create({ model: 'claude-test', max_tokens: 10, messages: [{ role: 'user', content: 'this one is mine' }] });
    const b = await c.messages.create({ model: 'claude-test', max_tokens: 10, messages: [{ role: 'user', content: 'not this' }] });
    expect([textOf(a), textOf(b)]).toEqual(['from code', 'from the script']);
    expect(m.requests.map((r) => r.answer.label)).toEqual(['answerer', 'scripted']);
    expect(seen[0]).toMatchObject({
      protocol: 'anthropic-messages',
      digest: { lastUser: 'this one is mine' },
      body: { model: 'claude-test', max_tokens: 10 },
    });
  });

  it('may answer with a fault; a throw or an invalid answer is a recorded 500, and the server keeps serving', async () => {
    let n = 0;
    const m = await startMock(
      { fallback: { content: [{ type: 'text', text: 'fine' }] } },
      {
        answer: () => {
          n++;
          if (n === 1) return { kind: 'rate_limit', retryAfter: 9 };
          if (n === 2) throw new Error('answerer bug');
          // Not a valid block type: what an answerer written against a stale schema might return.
          if (n === 3) return { content: [{ type: 'bogus', text: 'x' }] } as unknown as ReplyInput;
          return null;
        },
      },
    );
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push(
        (await fetch(`${m.url}/v1/messages`, { method: 'POST', body: JSON.stringify({ model: 'm', max_tokens: 5, messages: [] }) })).status,
      );
    expect(statuses).toEqual([429, 500, 500, 200]);
    expect(m.requests.map((r) => r.answer.kind)).toEqual(['fault:rate_limit', 'answerer_error', 'answerer_error', 'reply']);
  });
});

describe('mock provider: the extractive summary', () => {
  it('is labelled, has every handoff section in order, and carries lines taken from the request', async () => {
    const m = await startMock({}, { answer: extractiveAnswerer() });
    const msg = await ask(m, SYSTEM);
    const text = textOf(msg);
    expect(msg.stop_reason).toBe('end_turn');
    expect(text.startsWith(MOCK_SUMMARY_LABEL)).toBe(true);
    const headings = [...text.matchAll(/^## (.+)$/gm)].map((x) => x[1]);
    expect(headings).toEqual([...HANDOFF_SECTIONS]);
    expect(section(text, 'Objective')).toEqual(['Please fix the failing test in src/main/reader.ts; do not change the public API.']);
    expect(section(text, 'Constraints')).toContain('Please fix the failing test in src/main/reader.ts; do not change the public API.');
    expect(section(text, 'Blocked work')).toContain("TypeError: Cannot read properties of undefined (reading 'seq')");
    expect(section(text, 'Invalidations')).toEqual(['The old parseHeader approach is no longer used.']);
    expect(section(text, 'Decisions and evidence')).toEqual([
      'I decided to guard readFrame because the header can be empty. 12 tests pass now.',
    ]);
    expect(section(text, 'Next action')).toEqual(['Now update docs/format.md with the new rule.']);
    expect(section(text, 'Files')).toEqual(['src/main/reader.ts', 'test/reader.test.ts', 'docs/format.md']);
    expect(section(text, 'Code anchors')).toEqual(expect.arrayContaining(['src/main/reader.ts:42', 'readFrame', 'parseHeader']));
    expect(section(text, 'Code anchors')[0]).toBe('src/main/reader.ts:42');
    // Every bullet is a line of the request (or a placeholder saying nothing was found).
    const bullets = HANDOFF_SECTIONS.flatMap((h) => section(text, h)).filter((b) => !b.startsWith('('));
    for (const b of bullets) expect(HISTORY).toContain(b);
  });

  it('is deterministic, and the same conversation gets the same summary on every protocol', async () => {
    const m = await startMock({}, { answer: extractiveAnswerer() });
    const viaAnthropic = [textOf(await ask(m, SYSTEM)), textOf(await ask(m, SYSTEM))];
    const chat = await new OpenAI({ apiKey: 'k', baseURL: `${m.url}/v1`, maxRetries: 0 }).chat.completions.create({
      model: 'gpt-test',
      max_tokens: 4000,
      messages: [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: HISTORY },
      ],
    });
    const gem = await new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: m.url } }).models.generateContent({
      model: 'gemini-test',
      contents: HISTORY,
      config: { systemInstruction: SYSTEM, maxOutputTokens: 4000 },
    });
    expect(viaAnthropic[1]).toBe(viaAnthropic[0]);
    expect(chat.choices[0]?.message.content).toBe(viaAnthropic[0]);
    expect(gem.text).toBe(viaAnthropic[0]);
  });

  it('answers a request for a JSON object with exactly its keys, the label inside the first value', async () => {
    const m = await startMock({}, { answer: extractiveAnswerer() });
    const parsed = JSON.parse(textOf(await ask(m, JSON_SYSTEM))) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(['session_intent', 'files_touched', 'decisions', 'pending_questions', 'next_steps']);
    expect(parsed.session_intent).toBe(
      `${MOCK_SUMMARY_LABEL} Please fix the failing test in src/main/reader.ts; do not change the public API.`,
    );
    expect(parsed.files_touched).toEqual(['src/main/reader.ts', 'test/reader.test.ts', 'docs/format.md']);
    expect(parsed.decisions).toEqual(['I decided to guard readFrame because the header can be empty. 12 tests pass now.']);
    expect(parsed.pending_questions).toEqual([]);
    const next = parsed.next_steps as string[];
    expect(next[0]).toBe('Now update docs/format.md with the new rule.');
    expect(new Set(next).size).toBe(next.length);
  });

  it("answers the preemptive compactor's prompt (template first, then the history) with its keys, not a JSON object quoted in the history", async () => {
    // The shape of src/shared/strategies/preemptive/summary.ts: no system prompt; one user message.
    const head =
      'You are compacting an agent conversation. Read the messages and emit a JSON object with these keys exactly. Never paraphrase file paths, error codes, function names, or version numbers — copy them verbatim.\n\n{"session_intent": "", "files_touched": [], "decisions": [], "pending_questions": [], "next_steps": []}\n\nMESSAGES:\n';
    const decoy = '\n\n[#5 assistant]\nThe package JSON is {"name": "palimpsest", "version": "0.1.0"}.';
    const m = await startMock({}, { answer: extractiveAnswerer() });
    const msg = await anthropic(m).messages.create({
      model: 'claude-test',
      max_tokens: 4000,
      messages: [{ role: 'user', content: `${head}${HISTORY}${decoy}\n\nRespond with the JSON object only.\n` }],
    });
    const parsed = JSON.parse(textOf(msg)) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(['session_intent', 'files_touched', 'decisions', 'pending_questions', 'next_steps']);
    // The objective is the history's first user item, not the compactor's instructions.
    expect(parsed.session_intent).toBe(
      `${MOCK_SUMMARY_LABEL} Please fix the failing test in src/main/reader.ts; do not change the public API.`,
    );
  });

  it('fits the output ceiling by dropping lines; below the bare skeleton it is cut and finishes with length', async () => {
    const m = await startMock({}, { answer: extractiveAnswerer() });
    const full = textOf(await ask(m, SYSTEM));
    const fittedMsg = await ask(m, SYSTEM, 200);
    const fitted = textOf(fittedMsg);
    expect(fittedMsg.stop_reason).toBe('end_turn');
    expect(fitted.length).toBeLessThanOrEqual(200 * 4);
    expect(fitted.length).toBeLessThan(full.length);
    expect([...fitted.matchAll(/^## (.+)$/gm)].map((x) => x[1])).toEqual([...HANDOFF_SECTIONS]);
    expect(fittedMsg.usage.output_tokens).toBeLessThanOrEqual(200);
    const cut = await ask(m, SYSTEM, 20);
    expect(cut.stop_reason).toBe('max_tokens');
    expect(textOf(cut)).toBe(full.slice(0, 80));
  });

  it('`when` limits it to the requests it matches; the others go to the script', async () => {
    const m = await startMock(
      { fallback: { content: [{ type: 'text', text: 'scripted' }] } },
      { answer: extractiveAnswerer({ when: { systemContains: 'handoff' } }) },
    );
    expect(textOf(await ask(m, SYSTEM))).toContain(MOCK_SUMMARY_LABEL);
    expect(textOf(await ask(m, 'Just chat.'))).toBe('scripted');
  });

  it('says so when a section has nothing to show, and never invents lines for an empty request', () => {
    const empty: RequestDigest = {
      protocol: 'x',
      model: null,
      stream: false,
      system: '',
      text: '',
      firstUser: '',
      lastUser: '',
      hasTools: false,
      maxOutput: null,
      raw: '',
    };
    const r = extractiveSummary(empty);
    const text = r.content[0]?.type === 'text' ? r.content[0].text : '';
    for (const h of HANDOFF_SECTIONS) expect(section(text, h)).toEqual(['(none found in the request)']);
    expect(r.stop).toBe('end');
  });
});
