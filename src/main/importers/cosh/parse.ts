import { type Obj, isObj, nat } from '../dsh/json';
import { shown } from '../shown';

/**
 * cosh's persisted shapes, read as serde writes them (DiegoZaluski/co-sh, as indexed:
 * src/tui/session_history.rs @0033d518, src/harness/context/mod.rs @175f4e8e,
 * src/harness/context/map_reduce.rs @b76b19b2, src/harness/context/split.rs @0162de05):
 *
 * - `HistoryEvent {schema_version, event_id, branch_id, delta}`; `Delta` is internally tagged by
 *   `type` (snake_case), `ContextDelta` by `field`, `MetadataDelta` by `field`, `MessageDelta` by
 *   `operation`; `Selection` is adjacently tagged (`kind` + `message_id`).
 * - `ContextItem` has no serde attribute, so it is externally tagged: `{"User":{"id":1,…}}`.
 *
 * Parsing mirrors serde's strictness where it decides whether cosh reads a line at all: a line
 * that would not deserialize is a corrupt line for cosh (skipped), and is reported here.
 */

export interface Range {
  readonly start: number;
  readonly end: number;
}

export type ItemKind = 'User' | 'Assistant' | 'ToolCall' | 'ToolResult' | 'Closure' | 'Compaction' | 'Error' | 'UserCommand';
export const ITEM_KINDS: ReadonlySet<string> = new Set<ItemKind>([
  'User',
  'Assistant',
  'ToolCall',
  'ToolResult',
  'Closure',
  'Compaction',
  'Error',
  'UserCommand',
]);

export interface CoshItem {
  readonly kind: ItemKind;
  readonly id: number;
  /** `original` (User, Assistant), `content` (ToolResult, Closure, Error, UserCommand), `summary` (Compaction), `arguments` (ToolCall). */
  readonly text: string;
  readonly callId?: string;
  readonly name?: string;
  readonly useless?: boolean;
  readonly closable?: boolean;
  readonly thinking?: readonly { readonly thinking: string }[];
  /** Compaction: exact covered ranges; empty for legacy checkpoints (coverage by `visible_from`). */
  readonly covered?: readonly Range[];
}

export type Selection =
  | { readonly kind: 'at_event' }
  | { readonly kind: 'before_message' | 'through_message'; readonly messageId: string }
  | { readonly kind: 'context_view'; readonly messageId: string; readonly groupId: number; readonly inclusive: boolean };

export interface Reference {
  readonly branch: string;
  readonly event: number;
  readonly selection: Selection;
}

export interface BranchMeta {
  readonly sessionId: string;
  readonly title: string;
  readonly createdAt: number | null;
  readonly cwd: string | null;
  readonly provider: string | null;
  readonly model: string | null;
  readonly reasoning: string | null;
}

export interface TodoItemValue {
  readonly id: string;
  readonly description: string;
  readonly status: string;
}
export interface TodoGroup {
  readonly title: string;
  readonly items: readonly TodoItemValue[];
}
/** A plan: `TodoList {groups}`; null = no plan (`None`, or a shape the lossy reader drops). */
export type TodoValue = readonly TodoGroup[] | null;

export interface Segment {
  readonly ordinal: number;
  readonly itemIds: readonly number[];
  readonly summary: string | null;
}

/** `MapReduceState` (or a legacy `SplitState`, `version: null`), reduced to what Palimpsest shows. */
export interface Staging {
  readonly version: number | null;
  readonly sourceIds: readonly number[];
  readonly fingerprint: string;
  readonly segments: readonly Segment[];
  readonly repartitions: number;
  readonly phase: string | null;
  readonly level: number;
  readonly candidate: string | null;
  readonly audits: number;
  readonly finalSummary: string | null;
}

export interface SplitValue {
  readonly buffer: string;
  readonly cursor: number | null;
  readonly window: number;
}

export type ContextChange =
  | { readonly field: 'message_boundary'; readonly messageId: string; readonly first: number; readonly last: number }
  | {
      readonly field: 'initialize';
      readonly nextId: number;
      readonly maxTokens: number;
      readonly split: SplitValue | null;
      readonly mapReduce: Staging | null;
      readonly visibleFrom: number | null;
      readonly hidden: readonly number[];
      readonly masked: readonly number[];
      readonly todo: TodoValue;
      readonly todoLossy: boolean;
      readonly todoAfter: number | null;
    }
  | { readonly field: 'item_upsert'; readonly item: CoshItem }
  | { readonly field: 'item_remove'; readonly itemId: number }
  | { readonly field: 'next_id' | 'max_tokens'; readonly value: number }
  | { readonly field: 'overflow_model'; readonly value: string | null }
  | { readonly field: 'last_tool_set'; readonly value: readonly string[] | null }
  | { readonly field: 'split'; readonly value: SplitValue | null }
  | { readonly field: 'map_reduce'; readonly value: Staging | null }
  | { readonly field: 'map_segment_accepted'; readonly ordinal: number; readonly summary: string }
  | { readonly field: 'split_buffer_append'; readonly appended: string; readonly cursor: number | null }
  | { readonly field: 'todo'; readonly value: TodoValue; readonly lossy: boolean; readonly after: number | null }
  | { readonly field: 'visible_from'; readonly value: number | null }
  | { readonly field: 'hidden'; readonly ids: readonly number[]; readonly on: boolean }
  | { readonly field: 'masked'; readonly ids: readonly number[]; readonly on: boolean };

export type Delta =
  | { readonly type: 'genesis'; readonly meta: BranchMeta }
  | {
      readonly type: 'metadata';
      readonly change:
        | { readonly field: 'title'; readonly title: string }
        | { readonly field: 'model'; readonly provider: string | null; readonly model: string | null; readonly reasoning: string | null };
    }
  | {
      readonly type: 'message';
      readonly change:
        | { readonly op: 'upsert'; readonly messageId: string; readonly contextItemIds: readonly number[] }
        | { readonly op: 'remove'; readonly messageId: string };
    }
  | { readonly type: 'context'; readonly change: ContextChange }
  | { readonly type: 'snapshot'; readonly name: string; readonly target: Reference }
  | { readonly type: 'revert'; readonly target: Reference; readonly label: string; readonly preview: string }
  | { readonly type: 'rollback'; readonly target: Reference; readonly label: string }
  | { readonly type: 'fork'; readonly parent: Reference; readonly meta: BranchMeta }
  | { readonly type: 'tombstone' };

export interface Envelope {
  readonly schemaVersion: number;
  readonly eventId: number;
  readonly branch: string;
  readonly delta: Delta;
}

/** Why a line is not a `HistoryEvent` cosh would read: an unknown tag (counted) or a shape problem. */
export type ParseResult =
  | { readonly ok: true; readonly event: Envelope }
  | {
      readonly ok: false;
      readonly eventId: number | null;
      readonly branch: string | null;
      readonly unknown: string | null;
      readonly problem: string;
    };

class Bad extends Error {
  constructor(
    readonly problem: string,
    readonly unknown: string | null = null,
  ) {
    super(problem);
  }
}

const fail = (problem: string): never => {
  throw new Bad(problem);
};

function u64(v: unknown, what: string): number {
  const n = nat(v);
  return n === undefined ? fail(`${what} is not an unsigned integer`) : n;
}

function optU64(v: unknown, what: string): number | null {
  return v === undefined || v === null ? null : u64(v, what);
}

function string(v: unknown, what: string): string {
  return typeof v === 'string' ? v : fail(`${what} is not a string`);
}

function optString(v: unknown, what: string): string | null {
  return v === undefined || v === null ? null : string(v, what);
}

function bool(v: unknown, what: string): boolean {
  return typeof v === 'boolean' ? v : fail(`${what} is not a boolean`);
}

function object(v: unknown, what: string): Obj {
  return isObj(v) ? v : fail(`${what} is not an object`);
}

function u64s(v: unknown, what: string): number[] {
  if (!Array.isArray(v)) return fail(`${what} is not an array`);
  return v.map((x, i) => u64(x, `${what}[${i}]`));
}

function ranges(v: unknown, what: string): Range[] {
  if (!Array.isArray(v)) return fail(`${what} is not an array`);
  return v.map((r, i) => {
    const o = object(r, `${what}[${i}]`);
    return { start: u64(o.start_id, `${what}[${i}].start_id`), end: u64(o.end_id, `${what}[${i}].end_id`) };
  });
}

export function parseItem(v: unknown): CoshItem {
  const o = object(v, 'item');
  const keys = Object.keys(o);
  if (keys.length !== 1) return fail(`item has ${keys.length} keys; a ContextItem is written as {"Variant":{…}}`);
  const kind = keys[0] as string;
  if (!ITEM_KINDS.has(kind)) throw new Bad(`unknown ContextItem variant "${kind}"`, `context item "${kind}"`);
  const b = object(o[kind], `item.${kind}`);
  const id = u64(b.id, `${kind}.id`);
  switch (kind as ItemKind) {
    case 'User':
      return { kind: 'User', id, text: string(b.original, 'User.original') };
    case 'Assistant':
      return { kind: 'Assistant', id, text: string(b.original, 'Assistant.original'), closable: bool(b.closable, 'Assistant.closable') };
    case 'ToolCall': {
      const thinking: { thinking: string }[] = [];
      if (b.thinking_blocks !== undefined) {
        if (!Array.isArray(b.thinking_blocks)) fail('ToolCall.thinking_blocks is not an array');
        for (const [i, t] of (b.thinking_blocks as unknown[]).entries())
          thinking.push({ thinking: string(object(t, `thinking_blocks[${i}]`).thinking, `thinking_blocks[${i}].thinking`) });
      }
      if (b.thought_signature !== undefined) string(b.thought_signature, 'ToolCall.thought_signature');
      return {
        kind: 'ToolCall',
        id,
        text: string(b.arguments, 'ToolCall.arguments'),
        callId: string(b.call_id, 'ToolCall.call_id'),
        name: string(b.name, 'ToolCall.name'),
        thinking,
      };
    }
    case 'ToolResult':
      return {
        kind: 'ToolResult',
        id,
        text: string(b.content, 'ToolResult.content'),
        callId: string(b.call_id, 'ToolResult.call_id'),
        useless: bool(b.useless, 'ToolResult.useless'),
      };
    case 'Closure':
      return { kind: 'Closure', id, text: string(b.content, 'Closure.content') };
    case 'Compaction':
      return {
        kind: 'Compaction',
        id,
        text: string(b.summary, 'Compaction.summary'),
        covered: b.covered_ranges === undefined ? [] : ranges(b.covered_ranges, 'Compaction.covered_ranges'),
      };
    case 'Error':
      return { kind: 'Error', id, text: string(b.content, 'Error.content') };
    case 'UserCommand':
      return { kind: 'UserCommand', id, text: string(b.content, 'UserCommand.content') };
  }
}

export function parseReference(v: unknown, what: string): Reference {
  const o = object(v, what);
  const sel = object(o.selection, `${what}.selection`);
  let selection: Selection;
  switch (sel.kind) {
    case 'at_event':
      selection = { kind: 'at_event' };
      break;
    case 'before_message':
    case 'through_message':
      selection = { kind: sel.kind, messageId: string(sel.message_id, `${what}.selection.message_id`) };
      break;
    case 'context_view': {
      const c = object(sel.message_id, `${what}.selection.message_id`);
      selection = {
        kind: 'context_view',
        messageId: string(c.message_id, `${what}.selection.message_id.message_id`),
        groupId: u64(c.group_id, `${what}.selection.message_id.group_id`),
        inclusive: bool(c.inclusive, `${what}.selection.message_id.inclusive`),
      };
      break;
    }
    default:
      return fail(`${what}.selection.kind ${shown(sel.kind)} is none of at_event, before_message, through_message, context_view`);
  }
  return { branch: string(o.branch_id, `${what}.branch_id`), event: u64(o.event_id, `${what}.event_id`), selection };
}

function parseMeta(v: unknown): BranchMeta {
  const o = object(v, 'metadata');
  return {
    sessionId: string(o.session_id, 'metadata.session_id'),
    title: string(o.title, 'metadata.title'),
    createdAt: optU64(o.created_at, 'metadata.created_at'),
    cwd: optString(o.cwd, 'metadata.cwd'),
    provider: optString(o.provider, 'metadata.provider'),
    model: optString(o.model, 'metadata.model'),
    reasoning: optString(o.reasoning, 'metadata.reasoning'),
  };
}

/** `deserialize_todo_lossy`: a plan of an incompatible shape is no plan, never an error. */
export function parseTodo(v: unknown): { value: TodoValue; lossy: boolean } {
  if (v === undefined || v === null) return { value: null, lossy: false };
  try {
    const o = object(v, 'todo');
    if (!Array.isArray(o.groups)) fail('todo.groups is not an array');
    const groups = (o.groups as unknown[]).map((g, gi): TodoGroup => {
      const go = object(g, `groups[${gi}]`);
      if (!Array.isArray(go.items)) fail(`groups[${gi}].items is not an array`);
      return {
        title: string(go.title, `groups[${gi}].title`),
        items: (go.items as unknown[]).map((it, ii): TodoItemValue => {
          const io = object(it, `groups[${gi}].items[${ii}]`);
          return {
            id: string(io.id, 'item.id'),
            description: string(io.description, 'item.description'),
            status: string(io.status, 'item.status'),
          };
        }),
      };
    });
    return { value: groups, lossy: false };
  } catch (err) {
    if (err instanceof Bad) return { value: null, lossy: true };
    throw err;
  }
}

function fingerprintOf(v: unknown): string {
  if (!Array.isArray(v) || v.length === 0) return '';
  const parts: string[] = [];
  for (const pair of v) {
    if (
      Array.isArray(pair) &&
      pair.length === 2 &&
      nat(pair[0]) !== undefined &&
      (typeof pair[1] === 'number' || typeof pair[1] === 'string')
    )
      parts.push(`${String(pair[0])}=${String(pair[1])}`);
  }
  return parts.length === 0 ? '' : `xxh64:${parts.join(',')}`;
}

/** Item ids of a segment: whole-item ids (version 3), else those of its byte slices, else its ranges against the source. */
function segmentItems(o: Obj, source: readonly number[], what: string): number[] {
  if (o.item_ids !== undefined) return u64s(o.item_ids, `${what}.item_ids`);
  const out: number[] = [];
  if (Array.isArray(o.slices) && o.slices.length > 0) {
    for (const [i, s] of (o.slices as unknown[]).entries()) {
      const id = u64(object(s, `${what}.slices[${i}]`).item_id, `${what}.slices[${i}].item_id`);
      if (!out.includes(id)) out.push(id);
    }
    return out;
  }
  if (o.covered_ranges !== undefined) {
    const rs = ranges(o.covered_ranges, `${what}.covered_ranges`);
    for (const id of source) if (rs.some((r) => r.start <= id && id <= r.end)) out.push(id);
  }
  return out;
}

export function parseStaging(v: unknown): Staging | null {
  if (v === undefined || v === null) return null;
  const o = object(v, 'map_reduce');
  const version = o.version === undefined ? 1 : u64(o.version, 'map_reduce.version');
  u64(o.window, 'map_reduce.window');
  const sourceIds = u64s(o.source_item_ids, 'map_reduce.source_item_ids');
  if (!Array.isArray(o.segments)) fail('map_reduce.segments is not an array');
  const segments = (o.segments as unknown[]).map((s, i): Segment => {
    const so = object(s, `segments[${i}]`);
    return {
      ordinal: u64(so.ordinal, `segments[${i}].ordinal`),
      itemIds: segmentItems(so, sourceIds, `segments[${i}]`),
      summary: optString(so.summary, `segments[${i}].summary`),
    };
  });
  return {
    version,
    sourceIds,
    segments,
    fingerprint: fingerprintOf(o.source_fingerprints),
    repartitions: nat(o.repartitions) ?? 0,
    phase: typeof o.phase === 'string' ? o.phase : null,
    level: nat(o.level) ?? 0,
    candidate: typeof o.candidate === 'string' ? o.candidate : null,
    audits: Array.isArray(o.audits) ? o.audits.length : 0,
    finalSummary: typeof o.final_summary === 'string' ? o.final_summary : null,
  };
}

export function parseSplit(v: unknown): SplitValue | null {
  if (v === undefined || v === null) return null;
  const o = object(v, 'split');
  u64(o.buffer_tokens, 'split.buffer_tokens');
  string(o.continuity, 'split.continuity');
  return { buffer: string(o.buffer, 'split.buffer'), cursor: optU64(o.cursor, 'split.cursor'), window: u64(o.window, 'split.window') };
}

function parseContext(c: Obj): ContextChange {
  switch (c.field) {
    case 'message_boundary': {
      const b = object(c.boundary, 'boundary');
      return {
        field: 'message_boundary',
        messageId: string(c.message_id, 'message_id'),
        first: u64(b.first_group, 'boundary.first_group'),
        last: u64(b.last_group, 'boundary.last_group'),
      };
    }
    case 'initialize': {
      const todo = parseTodo(c.todo);
      return {
        field: 'initialize',
        nextId: u64(c.next_id, 'next_id'),
        maxTokens: u64(c.max_tokens, 'max_tokens'),
        split: parseSplit(c.split),
        mapReduce: parseStaging(c.map_reduce),
        visibleFrom: optU64(c.visible_from, 'visible_from'),
        hidden: u64s(c.hidden, 'hidden'),
        masked: c.masked === undefined ? [] : u64s(c.masked, 'masked'),
        todo: todo.value,
        todoLossy: todo.lossy,
        todoAfter: optU64(c.todo_after_item_id, 'todo_after_item_id'),
      };
    }
    case 'item_upsert':
      return { field: 'item_upsert', item: parseItem(c.item) };
    case 'item_remove':
      return { field: 'item_remove', itemId: u64(c.item_id, 'item_id') };
    case 'next_id':
    case 'max_tokens':
      return { field: c.field, value: u64(c.value, 'value') };
    case 'overflow_model':
      return { field: 'overflow_model', value: optString(c.value, 'value') };
    case 'last_tool_set': {
      if (c.value === undefined || c.value === null) return { field: 'last_tool_set', value: null };
      if (!Array.isArray(c.value)) return fail('value is not an array');
      return { field: 'last_tool_set', value: (c.value as unknown[]).map((x, i) => string(x, `value[${i}]`)) };
    }
    case 'split':
      return { field: 'split', value: parseSplit(c.value) };
    case 'map_reduce':
      return { field: 'map_reduce', value: parseStaging(c.value) };
    case 'map_segment_accepted':
      return { field: 'map_segment_accepted', ordinal: u64(c.ordinal, 'ordinal'), summary: string(c.summary, 'summary') };
    case 'split_buffer_append':
      u64(c.buffer_tokens, 'buffer_tokens');
      string(c.continuity, 'continuity');
      return { field: 'split_buffer_append', appended: string(c.appended, 'appended'), cursor: optU64(c.cursor, 'cursor') };
    case 'todo': {
      const todo = parseTodo(c.value);
      return { field: 'todo', value: todo.value, lossy: todo.lossy, after: optU64(c.after_item_id, 'after_item_id') };
    }
    case 'visible_from':
      return { field: 'visible_from', value: optU64(c.value, 'value') };
    case 'hidden':
      return { field: 'hidden', ids: u64s(c.item_ids, 'item_ids'), on: bool(c.hidden, 'hidden') };
    case 'masked':
      return { field: 'masked', ids: u64s(c.item_ids, 'item_ids'), on: bool(c.masked, 'masked') };
    default:
      throw new Bad(`unknown context field ${shown(c.field)}`, typeof c.field === 'string' ? `context field "${c.field}"` : null);
  }
}

function parseDelta(d: Obj): Delta {
  switch (d.type) {
    case 'genesis':
      return { type: 'genesis', meta: parseMeta(d.metadata) };
    case 'metadata': {
      const c = object(d.change, 'change');
      if (c.field === 'title') {
        bool(c.title_generated, 'change.title_generated');
        return { type: 'metadata', change: { field: 'title', title: string(c.title, 'change.title') } };
      }
      if (c.field === 'model')
        return {
          type: 'metadata',
          change: {
            field: 'model',
            provider: optString(c.provider, 'change.provider'),
            model: optString(c.model, 'change.model'),
            reasoning: optString(c.reasoning, 'change.reasoning'),
          },
        };
      throw new Bad(`unknown metadata field ${shown(c.field)}`, typeof c.field === 'string' ? `metadata field "${c.field}"` : null);
    }
    case 'message': {
      const c = object(d.change, 'change');
      if (c.operation === 'upsert') {
        const m = object(c.message, 'change.message');
        return {
          type: 'message',
          change: {
            op: 'upsert',
            messageId: string(m.id, 'change.message.id'),
            contextItemIds: c.context_item_ids === undefined ? [] : u64s(c.context_item_ids, 'change.context_item_ids'),
          },
        };
      }
      if (c.operation === 'remove')
        return { type: 'message', change: { op: 'remove', messageId: string(c.message_id, 'change.message_id') } };
      throw new Bad(
        `unknown message operation ${shown(c.operation)}`,
        typeof c.operation === 'string' ? `message operation "${c.operation}"` : null,
      );
    }
    case 'context':
      return { type: 'context', change: parseContext(object(d.change, 'change')) };
    case 'snapshot':
      return { type: 'snapshot', name: string(d.name, 'name'), target: parseReference(d.target, 'target') };
    case 'revert':
      return {
        type: 'revert',
        target: parseReference(d.target, 'target'),
        label: string(d.undo_label, 'undo_label'),
        preview: optString(d.prompt_preview, 'prompt_preview') ?? '',
      };
    case 'rollback':
      return { type: 'rollback', target: parseReference(d.target, 'target'), label: string(d.undo_label, 'undo_label') };
    case 'fork':
      return { type: 'fork', parent: parseReference(d.parent, 'parent'), meta: parseMeta(d.metadata) };
    case 'tombstone':
      return { type: 'tombstone' };
    default:
      throw new Bad(`unknown delta type ${shown(d.type)}`, typeof d.type === 'string' ? `delta "${d.type}"` : null);
  }
}

export function parseEvent(v: Obj): ParseResult {
  const eventId = nat(v.event_id) ?? null;
  const branch = typeof v.branch_id === 'string' ? v.branch_id : null;
  try {
    const schemaVersion = u64(v.schema_version, 'schema_version');
    if (eventId === null) fail('event_id is not an unsigned integer');
    if (branch === null) fail('branch_id is not a string');
    const delta = parseDelta(object(v.delta, 'delta'));
    return { ok: true, event: { schemaVersion, eventId: eventId as number, branch: branch as string, delta } };
  } catch (err) {
    if (err instanceof Bad) return { ok: false, eventId, branch, unknown: err.unknown, problem: err.problem };
    throw err;
  }
}

/** Lines cosh skips on purpose: derived snapshot pages and commits (session_snapshots). */
export function isDerivedSnapshot(v: Obj): string | null {
  for (const k of ['view_page', 'view_commit', 'view_head']) if (k in v) return k;
  return null;
}

/** Lines of the pre-event format (a header, then `{"Message":…}` / `{"Item":…}` records). */
export function legacyKind(v: Obj): string | null {
  if ('Message' in v && Object.keys(v).length === 1) return 'Message';
  if ('Item' in v && Object.keys(v).length === 1) return 'Item';
  if (typeof v.title === 'string' && typeof v.title_generated === 'boolean' && 'created_at' in v && !('delta' in v)) return 'header';
  return null;
}
