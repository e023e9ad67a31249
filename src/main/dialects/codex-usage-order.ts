/*
 * Facts of Codex's rollout dialects that both the importer (src/main/importers/codex) and the
 * fast listing (src/main/discovery/scan-codex.ts) read: kept apart from both.
 *
 * Where a rollout writes a model call's usage. Codex up to the 0.6x line recorded each sampling
 * round's items in one batch after the round (its output items and the tool outputs they led to),
 * after the `token_count` of the call: usage first. Later versions record output items as they
 * complete and the usage after them. Seen in real rollouts: 0.34, 0.40–0.42, 0.57, 0.58 and 0.63
 * write usage first; 0.104 and the versions the fidelity suite runs against the mock write it
 * after. For a version between the two, or none, the rollout itself says: in the first model call,
 * output items before its usage report, or the report first.
 */

export type UsageOrder = 'before-output' | 'after-output';

/** The newest minor line seen writing usage before output, and the oldest seen writing it after (0.x). */
export const USAGE_BEFORE_OUTPUT_UNTIL_MINOR = 63;
export const USAGE_AFTER_OUTPUT_FROM_MINOR = 104;

/** The order a version is known to write, or null: read it from the rollout. */
export function knownUsageOrder(version: string | undefined): UsageOrder | null {
  const m = version === undefined ? null : /^(\d+)\.(\d+)\./.exec(version);
  if (!m) return null;
  const major = Number(m[1]);
  const minor = Number(m[2]);
  if (major > 0 || minor >= USAGE_AFTER_OUTPUT_FROM_MINOR) return 'after-output';
  if (minor <= USAGE_BEFORE_OUTPUT_UNTIL_MINOR) return 'before-output';
  return null;
}

/** Commentary Codex logs between a usage report written first and the output items it belongs to. */
export const BETWEEN_USAGE_AND_OUTPUT: ReadonlySet<string> = new Set(['agent_reasoning', 'agent_reasoning_raw_content', 'agent_reasoning_section_break', 'agent_message', 'token_count']);

/**
 * Whether a record leaves a usage report written before its call's output items waiting for them:
 * an output item (it opens the call), an item never sent (a ghost snapshot), commentary. An input
 * (a user message, a tool output) or a turn boundary says the call's output is not in the log.
 * `ptype` is the payload's type, `role` a message's role.
 */
export function awaitsOutput(recordType: string, ptype: string | undefined, role: string | undefined): boolean {
  if (ptype === undefined) return false;
  if (recordType === 'event_msg') return BETWEEN_USAGE_AND_OUTPUT.has(ptype);
  if (recordType !== 'response_item') return false;
  if (ptype === 'message') return role === 'assistant';
  return !ptype.endsWith('_output');
}
