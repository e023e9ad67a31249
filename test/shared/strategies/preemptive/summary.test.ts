import { describe, expect, it } from 'vitest';
import { pyDumps } from '../../../../src/shared/strategies/preemptive/pyjson';
import { checkSummary, stripFence, summaryPrompt } from '../../../../src/shared/strategies/preemptive/summary';

const full = {
  session_intent: 'fix the build',
  files_touched: ['src/app.ts'],
  decisions: [],
  pending_questions: [],
  next_steps: ['run tests'],
};

describe("preemptive: summary validation (the Conversation Compaction article's _run_summarizer)", () => {
  it('accepts an object with the five required keys, fenced or not', () => {
    expect(checkSummary(JSON.stringify(full), 30)).toEqual({ ok: true, value: full });
    expect(checkSummary('```json\n' + JSON.stringify(full) + '\n```', 30)).toEqual({ ok: true, value: full });
    expect(stripFence('  ```json\n{"a": 1}\n```  ')).toBe('{"a": 1}');
  });

  it('rejects malformed JSON, a non-object, and missing keys', () => {
    expect(checkSummary('{"session_intent": ', 5)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^malformed JSON from the summarizer: /),
    });
    expect(checkSummary('[1, 2]', 5)).toEqual({ ok: false, error: 'the summarizer answer is not a JSON object' });
    expect(checkSummary('{"session_intent": "x", "decisions": []}', 5)).toEqual({
      ok: false,
      error: 'summarizer missing keys: files_touched, pending_questions, next_steps',
    });
  });

  it('rejects empty decisions and files_touched only after more than 20 messages', () => {
    const empty = JSON.stringify({ ...full, files_touched: [], decisions: [] });
    expect(checkSummary(empty, 20).ok).toBe(true);
    expect(checkSummary(empty, 21)).toEqual({
      ok: false,
      error: 'summarizer returned empty load-bearing fields (no decisions and no files_touched after 21 messages)',
    });
    expect(checkSummary(JSON.stringify({ ...full, files_touched: [], decisions: ['use zod'] }), 50).ok).toBe(true);
  });

  it('fills the reference prompt with the messages', () => {
    const p = summaryPrompt('[#0 user]\nhi');
    expect(
      p.startsWith('You are compacting an agent conversation. Read the messages and emit a JSON object with these keys exactly.'),
    ).toBe(true);
    expect(p).toContain(
      '{"session_intent": "", "files_touched": [], "decisions": [], "pending_questions": [], "next_steps": []}\n\nMESSAGES:\n[#0 user]\nhi\n\nRespond with the JSON object only.\n',
    );
  });
});

describe('preemptive: Python json.dumps bytes', () => {
  it('uses ", " / ": " separators without indent and escapes non-ASCII (ensure_ascii)', () => {
    expect(pyDumps({ a: [1, 'é😀'], b: {}, c: null, d: true })).toBe('{"a": [1, "\\u00e9\\ud83d\\ude00"], "b": {}, "c": null, "d": true}');
  });

  it('indents like json.dumps(indent=2)', () => {
    expect(pyDumps({ a: ['x', 'y'], b: [] }, 2)).toBe('{\n  "a": [\n    "x",\n    "y"\n  ],\n  "b": []\n}');
  });
});
