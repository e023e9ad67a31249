/**
 * The importer's own, minimal picture of a branch's surface (the items the next request sends),
 * as a persistent linked list: each node points at the item before it, so a fork (a rewind, a
 * summarizer, a subagent) shares its parent's list for free and every record can remember the
 * surface as it was right after it. Replay rebuilds the real surface from the emitted events; this
 * copy exists only to name the items a compaction covers, a microcompact clears or an inherited
 * record goes before. It holds ids and seqs, never content.
 */

export interface SurfaceNode {
  readonly id: string;
  /** The event that created the item. */
  readonly seq: number;
  /** Tool call ids answered by the item's `tool_result` blocks. */
  readonly calls: readonly string[] | undefined;
  readonly prev: SurfaceNode | null;
}

export type NodeData = Omit<SurfaceNode, 'prev'>;

export function push(prev: SurfaceNode | null, data: NodeData): SurfaceNode {
  return { id: data.id, seq: data.seq, calls: data.calls, prev };
}

/** The surface in model order (oldest first). */
export function toArray(head: SurfaceNode | null): SurfaceNode[] {
  const out: SurfaceNode[] = [];
  for (let n = head; n; n = n.prev) out.push(n);
  return out.reverse();
}

export function fromArray(items: readonly NodeData[]): SurfaceNode | null {
  let head: SurfaceNode | null = null;
  for (const d of items) head = push(head, d);
  return head;
}

export function contains(head: SurfaceNode | null, id: string): boolean {
  for (let n = head; n; n = n.prev) if (n.id === id) return true;
  return false;
}

/** The surface with `data` put right before the live item `before`; null when `before` is not live. */
export function insertBefore(head: SurfaceNode | null, before: string, data: NodeData): SurfaceNode | null {
  const all = toArray(head);
  const at = all.findIndex((n) => n.id === before);
  if (at < 0) return null;
  return fromArray([...all.slice(0, at), data, ...all.slice(at)]);
}
