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
