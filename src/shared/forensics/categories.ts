/*
 * The anchors a continuation needs, by category: what the agent must still know after a summary
 * replaced the items it was said in. Names are the JSON keys of `palimpsest forensics --json` and
 * of `inspect --json`'s survival rates.
 */

export const CATEGORIES = ['paths', 'commands', 'identifiers', 'urls', 'errors', 'numbers', 'constraints', 'tasks', 'decisions'] as const;
export type Category = (typeof CATEGORIES)[number];

/** One anchor: its text as said, and the seq of the item it was said in (the first, when said again). */
export interface Anchor {
  readonly category: Category;
  readonly text: string;
  readonly seq: number;
}

/** Whether an anchor is in what the agent sees after the compaction, and how. */
export type Match = 'verbatim' | 'normalised' | 'lost';
