import type { Block, LeafBlock } from '../../../shared/model/content';
import type { Derivation } from '../../../shared/model/item';
import { codePoints } from './json';

/**
 * Tool-result pruning (DSH `ctx.toolResultPruner`): the replacing result keeps a head of the text,
 * one fixed marker, and a tail, all counted in Unicode code points across the result's text
 * blocks in order (non-text blocks are kept and count zero).
 */

/** PRUNE_MARKER of compaction-tool-result-pruner/src/config.ts @ b150a551. */
export const PRUNE_MARKER = '\n\n[... tool result middle pruned ...]\n\n';

/** Text leaves of a tool result's blocks, in order. */
function texts(blocks: readonly Block[]): string[] {
  const out: string[] = [];
  const leaf = (b: LeafBlock | Block): void => {
    if (b.type === 'text') out.push(b.text);
    else if (b.type === 'tool_result') b.content.forEach(leaf);
  };
  blocks.forEach(leaf);
  return out;
}

/** Code points of the text a tool result carries (what the pruner measures). */
export function resultCodePoints(blocks: readonly Block[]): number {
  return texts(blocks).reduce((n, t) => n + codePoints(t), 0);
}

export interface PrunedShape {
  readonly derivation: Extract<Derivation, { kind: 'pruned' }>;
  /** Set when head/tail could not be read from the marker, or the original size is unknown. */
  readonly note?: string;
}

/**
 * The pruned derivation of a replacing result: `head` = code points before the marker, `tail` =
 * code points after it, `omitted` = the original's code points minus both.
 */
export function prunedDerivation(of: string, originalCodePoints: number | undefined, replacement: readonly Block[]): PrunedShape {
  const parts = texts(replacement);
  let head = 0;
  let tail = 0;
  let found = false;
  for (const t of parts) {
    if (found) {
      tail += codePoints(t);
      continue;
    }
    const at = t.indexOf(PRUNE_MARKER);
    if (at < 0) {
      head += codePoints(t);
      continue;
    }
    found = true;
    head += codePoints(t.slice(0, at));
    tail += codePoints(t.slice(at + PRUNE_MARKER.length));
  }
  let note: string | undefined;
  if (!found) {
    // No marker (a different pruner, or a changed marker text): the split between head and tail
    // cannot be read, so everything kept counts as head and the tail as 0.
    note = 'the pruning marker was not found in the replacement; all kept text is counted as head';
  }
  let omitted = 0;
  if (originalCodePoints === undefined) {
    note = note ?? 'the original result is not in this file; the omitted size is unknown and given as 0';
  } else {
    omitted = Math.max(0, originalCodePoints - head - tail);
  }
  const derivation = { kind: 'pruned' as const, of, head, tail, omitted, unit: 'codepoints' as const };
  return note === undefined ? { derivation } : { derivation, note };
}
