/*
 * What Claude Code adds to the messages it sends and a log without `api-request` records leaves
 * out: read by the importer (src/main/importers/claude-code), which names it on the envelope, and
 * by the wire comparison (src/main/wire), which marks the place it takes in a request as unknown.
 *
 * On the wire (2.1.97 and 2.1.197 against the mock) the first user message of every request opens
 * with `<system-reminder>` text blocks: the context block ("As you answer the user's questions, you
 * can use the following context: # currentDate …", CLAUDE.md) and, in 2.1.97, the skills listing.
 * After a compaction they open the summary message, the first one left. In 2.1.197 the agent-types
 * and skills listings the log records as attachments travel instead as a `system` message of their
 * own after the prompt. 2.0.77 and 2.1.9 sent neither in these runs. No log of these versions holds
 * the text sent, nor whether a block was sent at all: both are unknown, never guessed.
 */

/** The sentence the envelope carries (HeaderEvent.unrecorded) while it holds. */
export const UNRECORDED_CONTEXT =
  "Claude Code adds a <system-reminder> context block (the date, CLAUDE.md) to the first prompt and renders attachments (agent and skill listings, reminders) by its own rules; this log records neither, so the user messages and the attachment items shown are the log's, not exactly what was sent";

/** Why the start of a request's first user message is unknown. */
export const CONTEXT_BLOCK_UNKNOWN =
  'the context block Claude Code prepends to the first user message (date, CLAUDE.md, …) is not in the log';

/** Why an attachment item's text on the wire is unknown; null when the item is not an attachment. */
export function attachmentUnknown(origin: string | undefined): string | null {
  if (origin === undefined || !origin.startsWith('attachment:')) return null;
  return `${origin}: Claude Code sends it rendered by its own rules, not in the log`;
}
