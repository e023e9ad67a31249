import { compareVersions } from '../../shared/compat/newest';

/*
 * How Claude Code joins consecutive user records into one user message on the wire, read by the
 * wire comparison (src/main/wire) where the log holds the records one by one.
 *
 * From 2.1.97 the client appends a newline to the last text block of the message it is building
 * when the next record starts with a text block (its bundled cli.js: the merge of consecutive user
 * messages adds `text + "\n"` at that seam; on the wire, after `/compact`, the caveat, command and
 * stdout lines each end with "\n" before the next one). 2.0.77 and 2.1.9 concatenate the blocks as
 * they are (their cli.js has no such step; on the wire the same lines end without it). Both move
 * tool results to the front of the merged message. Read in the published packages' cli.js only (no
 * run on the wire): 2.1.39 and 2.1.70 have no such step, 2.1.85 has it. Which release between 2.1.70
 * and 2.1.85 started adding the newline is not known: for those versions the joined texts are
 * unknown, never guessed.
 */

export type UserSeam = { readonly kind: 'newline' } | { readonly kind: 'none' } | { readonly kind: 'unknown'; readonly why: string };

/** The newest version read joining without the newline, and the oldest read adding it. */
const LAST_WITHOUT = '2.1.70';
const FIRST_WITH = '2.1.85';

/** How the Claude Code `version` that wrote a request's line joins consecutive user records. */
export function userSeam(version: string | undefined): UserSeam {
  const unknown = (v: string): UserSeam => ({
    kind: 'unknown',
    why: `whether Claude Code ${v} adds a newline where it joins consecutive user records into one message is not known`,
  });
  if (version === undefined) return unknown('(version not recorded)');
  const upTo = compareVersions(version, LAST_WITHOUT);
  const from = compareVersions(version, FIRST_WITH);
  if (upTo === null || from === null) return unknown(version);
  if (upTo <= 0) return { kind: 'none' };
  if (from >= 0) return { kind: 'newline' };
  return unknown(version);
}
