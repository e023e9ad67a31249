/*
 * What Gemini CLI sends that its chat file may not hold: the context turn that opens every chat
 * (date, operating system, folder structure). Before 0.44 it is never in the file (the fidelity
 * runs of 0.22.4 to 0.41.2 send it as the first user turn, before the prompt); from 0.44 on the CLI
 * writes it into the list as a `<session_context>` message. Shared by the importer, which names it
 * in the envelope, and the wire comparison, which marks it unknown in place.
 */

/** The sentence the envelope carries (HeaderEvent.unrecorded) until a file shows the list written back. */
export const GEMINI_CONTEXT_UNRECORDED =
  'Older versions do not record the <session_context> turn (date, operating system, folder structure) that opens every chat; later ones write it into the list.';

/** Why the start of a request's first user turn is unknown. */
export const GEMINI_CONTEXT_UNKNOWN =
  'the context turn Gemini CLI sends before the first prompt (date, operating system, folder structure) is not in this file';

/**
 * The model turn recent versions (0.61, not 0.45) put after function responses left unanswered (a
 * turn that failed after its tools ran) when the next prompt comes (`closeUnansweredToolResponseTurn`
 * in geminiChat.ts); it is not written to the file.
 */
export const GEMINI_INTERRUPTED_PLACEHOLDER = '[The previous response was interrupted before it completed.]';

export const GEMINI_INTERRUPTED_UNKNOWN =
  'Gemini CLI from some version after 0.45 sends a placeholder model turn after unanswered function responses; the file does not say whether this one did';
