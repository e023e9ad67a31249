/*
 * Facts of Claude Code's transcripts that both the importer (src/main/importers/claude-code) and
 * the fast listing (src/main/discovery/scan-claude.ts) read: kept apart from both.
 *
 * A partial compaction keeps some records verbatim and writes them again after its boundary. The
 * boundary's `compactMetadata` names them: `preservedMessages.uuids`, and a `preservedSegment`
 * given by its head and tail uuids (the records from the tail back to the head). The re-written
 * copies are not new model calls.
 */

/** What a boundary's `compactMetadata` says is preserved, as written (uuids not yet resolved). */
export interface PreservedRefs {
  /** `preservedMessages.uuids`. */
  readonly uuids: readonly string[];
  /** `preservedSegment`'s head and tail; undefined unless both are non-empty strings. */
  readonly segment: { readonly head: string; readonly tail: string } | undefined;
}

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const nonEmpty = (x: unknown): string | undefined => (typeof x === 'string' && x !== '' ? x : undefined);

export function preservedRefs(cm: Record<string, unknown>): PreservedRefs {
  const pm = isObj(cm.preservedMessages) ? cm.preservedMessages : undefined;
  const uuids = Array.isArray(pm?.uuids) ? pm.uuids.filter((u): u is string => typeof u === 'string') : [];
  const seg = isObj(cm.preservedSegment) ? cm.preservedSegment : undefined;
  const head = nonEmpty(seg?.headUuid);
  const tail = nonEmpty(seg?.tailUuid);
  return { uuids, segment: head !== undefined && tail !== undefined ? { head, tail } : undefined };
}

/**
 * The records of a preserved segment: from `tail` (already resolved to its conversation record)
 * back through `parentOf` to the one `isHead` names, in that order; null when the walk ends or
 * loops without reaching the head (then the uuids list stands alone).
 */
export function walkSegment<N>(tail: N | null, isHead: (n: N) => boolean, parentOf: (n: N) => N | null): N[] | null {
  const walked: N[] = [];
  const seen = new Set<N>();
  let s = tail;
  while (s !== null && !seen.has(s)) {
    seen.add(s);
    walked.push(s);
    if (isHead(s)) return walked;
    s = parentOf(s);
  }
  return null;
}
