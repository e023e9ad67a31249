/*
 * The Conversation Compaction article's summary contract: the SUMMARY_PROMPT and the checks of
 * _run_summarizer(), which raise (here: return a reason) on malformed JSON, missing required keys,
 * or empty load-bearing fields after more than 20 messages ("a summary with no decisions and no
 * files touched after a 50-turn coding session is almost certainly a silent failure").
 */

import type { Result } from '../../result';

export const REQUIRED_KEYS = ['session_intent', 'files_touched', 'decisions', 'pending_questions', 'next_steps'] as const;

/** Above this many summarised messages, empty decisions and files_touched is a failure. */
export const LOAD_BEARING_MIN_MESSAGES = 20;

export const SUMMARY_BLOCK_HEADER = 'PRIOR SESSION SUMMARY (immutable until next compaction):';
export const TRUNCATION_MARKER = '[earlier history truncated; compactor unavailable]';

const PROMPT_HEAD = `You are compacting an agent conversation. Read the messages and emit a JSON object with these keys exactly. Never paraphrase file paths, error codes, function names, or version numbers — copy them verbatim.

{"session_intent": "", "files_touched": [], "decisions": [], "pending_questions": [], "next_steps": []}

MESSAGES:
`;

/**
 * The reference fills the template with str.format(), which would raise KeyError on the literal
 * JSON braces above; the evident intent is a plain substitution, done here.
 */
export const summaryPrompt = (messages: string): string => `${PROMPT_HEAD}${messages}\n\nRespond with the JSON object only.\n`;

export type SummaryJson = Readonly<Record<string, unknown>>;
export type Checked = Result<SummaryJson>;

/** Python truthiness, as `not x` reads it in the reference check. */
function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return true;
}

const lstrip = (s: string, chars: string): string => {
  let i = 0;
  while (i < s.length && chars.includes(s.charAt(i))) i++;
  return s.slice(i);
};
const rstrip = (s: string, chars: string): string => {
  let i = s.length;
  while (i > 0 && chars.includes(s.charAt(i - 1))) i--;
  return s.slice(0, i);
};

/** The reference's fence handling: text.split("```", 2)[1].lstrip("json\n").rstrip("`\n"). */
export function stripFence(raw: string): string {
  const text = raw.trim();
  if (!text.startsWith('```')) return text;
  return rstrip(lstrip(text.split('```')[1] ?? '', 'json\n'), '`\n');
}

/** Parse and validate a summarizer answer for `messageCount` summarised messages. */
export function checkSummary(raw: string, messageCount: number): Checked {
  let obj: unknown;
  try {
    obj = JSON.parse(stripFence(raw));
  } catch (e) {
    return { ok: false, error: `malformed JSON from the summarizer: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj))
    return { ok: false, error: 'the summarizer answer is not a JSON object' };
  const summary = obj as SummaryJson;
  const missing = REQUIRED_KEYS.filter((k) => !(k in summary));
  if (missing.length > 0) return { ok: false, error: `summarizer missing keys: ${missing.join(', ')}` };
  if (!(truthy(summary.decisions) || truthy(summary.files_touched)) && messageCount > LOAD_BEARING_MIN_MESSAGES) {
    return {
      ok: false,
      error: `summarizer returned empty load-bearing fields (no decisions and no files_touched after ${messageCount} messages)`,
    };
  }
  return { ok: true, value: summary };
}
