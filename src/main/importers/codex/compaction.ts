import { utf8Bytes } from './json';
import { APPROX_BYTES_PER_TOKEN, COMPACT_USER_MESSAGE_MAX_TOKENS, SUMMARY_PREFIX, SUMMARY_PREFIX_HEAD } from './known';

/**
 * Codex's rule for rebuilding the history after a `compacted` record that has no
 * `replacement_history` (rollouts written before Codex logged it): `build_compacted_history` in
 * `codex-rs/core/src/compact.rs`:
 *
 *   initial context
 *   + the user messages of the history, newest first while they fit in
 *     COMPACT_USER_MESSAGE_MAX_TOKENS (20,000) tokens — the first one that does not fit is cut to
 *     the tokens left and ends the walk — then back in chronological order
 *   + one user message `SUMMARY_PREFIX + "\n" + summary`.
 *
 * That history is the next compaction's input: its user messages (`collect_user_messages`) are
 * the copies this one kept and those sent since, never a summary (`is_summary_message`), so a
 * second compaction keeps the first one's copies again, under the same budget, and drops its
 * summary. Codex 0.59.0 sends exactly that after compacting twice (seen against the mock).
 *
 * Tokens are Codex's own `approx_token_count`: UTF-8 bytes / 4, rounded up. That is an estimate
 * (no tokenizer); the importer says so in a diagnostic whenever it applies this rule.
 */

export function approxTokens(text: string): number {
  return Math.ceil(utf8Bytes(text) / APPROX_BYTES_PER_TOKEN);
}

export interface Retained {
  /** Index of the message in the input list. */
  readonly index: number;
  /**
   * The message was cut to the remaining budget. Codex keeps its head and tail around a marker
   * (`truncate_text`), but where it cuts and the marker's wording vary by version and the log
   * records neither: the cut text is not rebuilt here.
   */
  readonly truncated: boolean;
}

/** The user messages a legacy compaction keeps, in chronological order. */
export function selectUserMessages(texts: readonly string[], maxTokens = COMPACT_USER_MESSAGE_MAX_TOKENS): Retained[] {
  const picked: Retained[] = [];
  let remaining = maxTokens;
  for (let i = texts.length - 1; i >= 0 && remaining > 0; i--) {
    const tokens = approxTokens(texts[i] as string);
    if (tokens <= remaining) {
      picked.push({ index: i, truncated: false });
      remaining -= tokens;
    } else {
      picked.push({ index: i, truncated: true });
      break;
    }
  }
  return picked.reverse();
}

/** The text of the summary user message: the logged message, prefixed unless it already is. */
export function summaryText(message: string): string {
  return message.startsWith(SUMMARY_PREFIX_HEAD) ? message : `${SUMMARY_PREFIX}\n${message}`;
}

/**
 * A line of `session_meta.base_instructions.text` that Codex 0.169 and 0.171 do not send: in every
 * request they sent the mock (fixtures/fidelity/logs), the first developer message is the logged
 * text with exactly this line (and its newline) removed; 0.118 sends the logged text whole.
 * Observed, not read from Codex's source: a configuration that keeps it shows as a mismatch, never
 * as a false match.
 */
export const UNSENT_CHECKLIST_LINE =
  '- If you create a checklist or task list, you update item statuses incrementally as each item is completed rather than marking every item done only at the end.\n';

/** The first minor line seen leaving UNSENT_CHECKLIST_LINE out (0.x). */
const CHECKLIST_UNSENT_FROM_MINOR = 169;

/**
 * The system prompt Codex sends, from a session_meta payload: `base_instructions.text` (from
 * 0.169: less the unsent line), or undefined — not recorded. Older rollouts have `instructions`
 * instead, but that is not the system prompt: it is the user's instructions (AGENTS.md), which
 * Codex 0.57–0.77 sent as a user message the rollout logs itself, while the system prompt on the
 * wire was Codex's built-in one, which no rollout of theirs records.
 */
export function sentInstructions(p: Record<string, unknown>): string | undefined {
  const v = typeof p.cli_version === 'string' ? /^(\d+)\.(\d+)\./.exec(p.cli_version) : null;
  const unsentLine = v !== null && (Number(v[1]) > 0 || Number(v[2]) >= CHECKLIST_UNSENT_FROM_MINOR);
  const bi = p.base_instructions;
  const base = typeof bi === 'object' && bi !== null && !Array.isArray(bi) ? (bi as Record<string, unknown>).text : undefined;
  if (typeof base === 'string') return unsentLine ? base.replace(UNSENT_CHECKLIST_LINE, '') : base;
  return undefined;
}
