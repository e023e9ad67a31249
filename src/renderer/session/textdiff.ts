import { diffLines, diffWords } from 'diff';

/**
 * A text diff of two summaries (or a summary and its correction), by word; by line when the word
 * diff would take too long (summaries of runaway sessions can be long). Pure, for the panel and its test.
 */

export interface DiffPart {
  readonly text: string;
  readonly kind: 'same' | 'added' | 'removed';
}

export interface TextDiff {
  readonly parts: readonly DiffPart[];
  readonly by: 'word' | 'line';
  /** Characters added and removed. */
  readonly added: number;
  readonly removed: number;
}

export function textDiff(before: string, after: string, timeoutMs = 1500): TextDiff {
  const words = diffWords(before, after, { timeout: timeoutMs });
  const changes = words ?? diffLines(before, after);
  let added = 0;
  let removed = 0;
  const parts = changes.map((c): DiffPart => {
    const kind = c.added ? 'added' : c.removed ? 'removed' : 'same';
    if (kind === 'added') added += c.value.length;
    if (kind === 'removed') removed += c.value.length;
    return { text: c.value, kind };
  });
  return { parts, by: words ? 'word' : 'line', added, removed };
}
