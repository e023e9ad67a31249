/*
 * What Claude Code adds to the messages it sends and a log without `api-request` records leaves
 * out: read by the importer (src/main/importers/claude-code), which names it on the envelope.
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
export const UNRECORDED_CONTEXT = 'Claude Code adds a <system-reminder> context block (the date, CLAUDE.md) to the first prompt and renders attachments (agent and skill listings, reminders) by its own rules; this log records neither, so the user messages and the attachment items shown are the log\'s, not exactly what was sent';
