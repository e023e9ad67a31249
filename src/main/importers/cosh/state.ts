import type { ItemKind, Range, Selection, SplitValue, Staging, TodoValue } from './parse';

/**
 * A mirror of cosh's per-branch projection (`BranchProjection` + `ContextManagerState`), reduced
 * to what decides the model view: item identity, kind, call ids and checkpoint ranges, the
 * visibility markers (`visible_from`, `hidden`, checkpoint coverage), the masked set, the plan
 * and its bindings, and the display messages' item associations (for reference selections).
 * Replay rules are those of session_history.rs; the view is `ContextManager::build_messages`.
 */

export interface MItem {
  readonly coshId: number;
  readonly kind: ItemKind;
  readonly callId?: string;
  readonly name?: string;
  readonly covered?: readonly Range[];
  /** The canonical item that stands for this version of the cosh item. */
  readonly canon: string;
}

export interface Context {
  items: MItem[];
  /** `items` by cosh id and by canonical id (kept in step with `items`). */
  byId: Map<number, MItem>;
  byCanon: Map<string, MItem>;
  visibleFrom: number | null;
  hidden: Set<number>;
  masked: Set<number>;
  todo: TodoValue;
  mapReduce: Staging | null;
  split: SplitValue | null;
  splitAppends: number;
  maxTokens: number;
}

export interface BranchState {
  name: string;
  head: number;
  deleted: boolean;
  messages: string[];
  ctxIds: Map<string, number[]>;
  boundaries: Map<string, { first: number; last: number }>;
  context: Context | null;
  /** `(after_item_id, plan event id)`: the plan bindings that survive selections. */
  todoPoints: [number, number][];
}

export function newBranch(name: string, head: number): BranchState {
  return { name, head, deleted: false, messages: [], ctxIds: new Map(), boundaries: new Map(), context: null, todoPoints: [] };
}

export function newContext(): Context {
  return {
    items: [],
    byId: new Map(),
    byCanon: new Map(),
    visibleFrom: null,
    hidden: new Set(),
    masked: new Set(),
    todo: null,
    mapReduce: null,
    split: null,
    splitAppends: 0,
    maxTokens: 100_000,
  };
}

export function cloneContext(c: Context): Context {
  return {
    ...c,
    items: c.items.slice(),
    byId: new Map(c.byId),
    byCanon: new Map(c.byCanon),
    hidden: new Set(c.hidden),
    masked: new Set(c.masked),
  };
}

export function cloneBranch(b: BranchState): BranchState {
  return {
    ...b,
    messages: b.messages.slice(),
    ctxIds: new Map([...b.ctxIds].map(([k, v]) => [k, v.slice()])),
    boundaries: new Map(b.boundaries),
    context: b.context ? cloneContext(b.context) : null,
    todoPoints: b.todoPoints.map((p) => [p[0], p[1]]),
  };
}

// ---------------------------------------------------------------------------------------------
// Visibility and the model view (mod.rs @175f4e8e)
// ---------------------------------------------------------------------------------------------

const DISPLAY_ONLY: ReadonlySet<ItemKind> = new Set<ItemKind>(['Error', 'UserCommand']);

export function isDisplayOnly(kind: ItemKind): boolean {
  return DISPLAY_ONLY.has(kind);
}

/** `rebuild_checkpoint_coverage`: the ranges of the newest checkpoint at or after `visible_from` that is not hidden. */
export function activeCheckpoint(c: Context): MItem | null {
  const vf = c.visibleFrom ?? 0;
  for (let i = c.items.length - 1; i >= 0; i--) {
    const it = c.items[i] as MItem;
    if (it.kind === 'Compaction' && it.coshId >= vf && !c.hidden.has(it.coshId)) return it;
  }
  return null;
}

/**
 * The least and greatest of ids a log lists, by a loop: Math.min(...ids) passes each as an
 * argument and overflows the stack past about a hundred thousand.
 */
export function least(ids: Iterable<number>): number {
  let m = Infinity;
  for (const id of ids) if (id < m) m = id;
  return m;
}

export function greatest(ids: Iterable<number>): number {
  let m = -Infinity;
  for (const id of ids) if (id > m) m = id;
  return m;
}

export function inRanges(ranges: readonly Range[], id: number): boolean {
  for (const r of ranges) if (r.start <= id && id <= r.end) return true;
  return false;
}

export type HiddenWhy = 'legacy-boundary' | 'hidden' | 'checkpoint' | null;

/** `is_hidden`, with the reason. */
export function hiddenWhy(c: Context, cover: readonly Range[], id: number): HiddenWhy {
  if (id < (c.visibleFrom ?? 0)) return 'legacy-boundary';
  if (c.hidden.has(id)) return 'hidden';
  if (inRanges(cover, id)) return 'checkpoint';
  return null;
}

export interface View {
  /** Items the model sees, in `build_messages` order. */
  readonly items: readonly MItem[];
  /** Canonical ids rendered as cosh's masked-result reference. */
  readonly masked: ReadonlySet<string>;
  readonly checkpoint: MItem | null;
}

/**
 * `build_messages` without the per-request tail blocks: visible items (display-only ones never),
 * checkpoints first in timeline order, then the raw items, leading tool results skipped; masked
 * results as a reference.
 */
export function modelView(c: Context | null): View {
  if (!c) return { items: [], masked: new Set(), checkpoint: null };
  const checkpoint = activeCheckpoint(c);
  const cover = checkpoint?.covered ?? [];
  const checkpoints: MItem[] = [];
  const raw: MItem[] = [];
  for (const it of c.items) {
    if (isDisplayOnly(it.kind) || hiddenWhy(c, cover, it.coshId) !== null) continue;
    (it.kind === 'Compaction' ? checkpoints : raw).push(it);
  }
  const ordered = [...checkpoints, ...raw];
  let skip = 0;
  while (skip < ordered.length && (ordered[skip] as MItem).kind === 'ToolResult') skip++;
  const items = ordered.slice(skip);
  const masked = new Set<string>();
  for (const it of items) if (it.kind === 'ToolResult' && c.masked.has(it.coshId)) masked.add(it.canon);
  return { items, masked, checkpoint };
}

// ---------------------------------------------------------------------------------------------
// Replay rules (session_history.rs)
// ---------------------------------------------------------------------------------------------

/** Replace the items (after a filter), keeping the index in step. */
export function setItems(c: Context, items: MItem[]): void {
  c.items = items;
  c.byId = new Map(items.map((it) => [it.coshId, it]));
  c.byCanon = new Map(items.map((it) => [it.canon, it]));
}

/** `repair_context_visibility`. */
export function repair(c: Context): void {
  if (c.visibleFrom !== null && !c.byId.has(c.visibleFrom)) c.visibleFrom = null;
  const live = new Set(c.items.map((it) => it.coshId));
  if (c.mapReduce && c.mapReduce.sourceIds.some((id) => !live.has(id))) c.mapReduce = null;
  const results = new Set(c.items.filter((it) => it.kind === 'ToolResult').map((it) => it.coshId));
  for (const id of [...c.hidden]) if (!live.has(id)) c.hidden.delete(id);
  for (const id of [...c.masked]) if (!results.has(id)) c.masked.delete(id);
}

/** `context_groups`: each item's semantic group (a result belongs to its call). */
export function contextGroups(items: readonly MItem[]): Map<number, number> {
  const calls = new Map<string, number>();
  for (const it of items) if (it.kind === 'ToolCall' && it.callId !== undefined) calls.set(it.callId, it.coshId);
  const out = new Map<number, number>();
  for (const it of items)
    out.set(it.coshId, it.kind === 'ToolResult' && it.callId !== undefined ? (calls.get(it.callId) ?? it.coshId) : it.coshId);
  return out;
}

export type SelectionError = { readonly kind: 'missing-message' | 'missing-boundary'; readonly messageId: string };

/** `BranchProjection::apply_selection`: materialize the selected prefix. Returns an error or null. */
export function applySelection(b: BranchState, selection: Selection): SelectionError | null {
  if (selection.kind === 'at_event') return null;
  const index = b.messages.indexOf(selection.messageId);
  if (index < 0) return { kind: 'missing-message', messageId: selection.messageId };
  if (selection.kind === 'context_view') {
    const { groupId, inclusive } = selection;
    const keep = (id: number): boolean => id < groupId || (inclusive && id === groupId);
    const c = b.context;
    if (c) {
      const groups = contextGroups(c.items);
      if (![...groups.values()].includes(groupId)) return { kind: 'missing-boundary', messageId: selection.messageId };
      setItems(
        c,
        c.items.filter((it) => keep(groups.get(it.coshId) ?? it.coshId)),
      );
      const live = new Set(c.items.map((it) => it.coshId));
      b.todoPoints = b.todoPoints.filter(([id]) => id === 0 || live.has(id));
      c.split = null;
      c.splitAppends = 0;
      if (c.mapReduce && c.mapReduce.sourceIds.some((id) => !live.has(id))) c.mapReduce = null;
      repair(c);
    }
    b.messages = b.messages.slice(0, index + (inclusive ? 1 : 0));
    const kept = new Set(b.messages);
    for (const id of [...b.ctxIds.keys()]) if (!kept.has(id)) b.ctxIds.delete(id);
    for (const id of [...b.boundaries.keys()]) if (!kept.has(id)) b.boundaries.delete(id);
    return null;
  }
  const keepThrough = selection.kind === 'through_message';
  const split = index + (keepThrough ? 1 : 0);
  const idsOf = (ms: readonly string[]): Set<number> => new Set(ms.flatMap((m) => b.ctxIds.get(m) ?? []));
  const keptIds = idsOf(b.messages.slice(0, split));
  const removedIds = idsOf(b.messages.slice(split));
  const lastKept = keptIds.size === 0 ? 0 : greatest(keptIds);
  b.todoPoints = b.todoPoints.filter(([after]) => after <= lastKept);
  b.messages = b.messages.slice(0, split);
  const kept = new Set(b.messages);
  for (const id of [...b.ctxIds.keys()]) if (!kept.has(id)) b.ctxIds.delete(id);
  const c = b.context;
  if (c) {
    setItems(c, keepThrough ? c.items.filter((it) => keptIds.has(it.coshId)) : c.items.filter((it) => !removedIds.has(it.coshId)));
    repair(c);
  }
  return null;
}
