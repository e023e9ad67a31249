import { ImageBlock, OpaqueBlock, ReasoningBlock, TextBlock, ToolCallBlock, ToolResultBlock } from '../../shared/model/content';
import {
  BudgetPolicy,
  CompactionEndEvent,
  CompactionStartEvent,
  CompactionSummaryErrorEvent,
  CompactionSummaryEvent,
  Finish,
  ItemEvent,
  MaskEvent,
  RecordEvent,
  RequestEvent,
  ResponseEvent,
  Route,
  SurfaceOp,
  Todo,
  TodoEvent,
  Usage,
  type EventBody,
  type EventOf,
} from '../../shared/model/event';
import { Derivation, Item } from '../../shared/model/item';
import { isObj, type Obj } from './json';
import { accepts, inner, member, type Shaped } from './palimpsest-keys';

// ---------------------------------------------------------------------------------------------
// Fast path. zod copies every object it parses; for the four kinds that make up nearly all of a
// long session (item, request, response, record) a hand-written check accepts the common shapes
// and hands the parsed line on as it is (with the schema's defaults added). The rarer kinds a
// session repeats (masks, todos, the compaction bracket, checkpoint items, summarizer requests)
// have a declarative check of the same kind below: they carry long id lists and blocks, and cost
// zod 5–40 µs each, about a twentieth of a load (npm run bench -- --cpu-prof). Anything a check
// does not recognise exactly (an extra key, a value of the wrong type, a kind without a check)
// goes to zod, so the result is always what `CanonicalEvent.parse` would give (tested for
// equality).
// ---------------------------------------------------------------------------------------------

const isCount = (x: unknown): boolean => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
const isPositive = (x: unknown): boolean => typeof x === 'number' && Number.isSafeInteger(x) && x > 0;
const optString = (x: unknown): boolean => x === undefined || typeof x === 'string';
const optCount = (x: unknown): boolean => x === undefined || isCount(x);
const optBool = (x: unknown): boolean => x === undefined || typeof x === 'boolean';

/** The common fields: seq, branch, at. */
function baseOk(v: Obj): boolean {
  return (
    optCount(v.seq) &&
    optString(v.branch) &&
    (v.at === undefined || typeof v.at === 'string' || (typeof v.at === 'number' && Number.isFinite(v.at)))
  );
}

function leafOk(b: unknown): boolean {
  if (!isObj(b)) return false;
  switch (b.type) {
    case 'text':
      if (!onlyKeys(b, FAST_KEYS.text)) return false;
      return typeof b.text === 'string' && optCount(b.elided);
    case 'reasoning':
      if (!onlyKeys(b, FAST_KEYS.reasoning)) return false;
      return typeof b.text === 'string' && optCount(b.elided) && optBool(b.redacted);
    case 'image':
      if (!onlyKeys(b, FAST_KEYS.image)) return false;
      return optString(b.mediaType) && optCount(b.bytes);
    case 'opaque':
      if (!onlyKeys(b, FAST_KEYS.opaque)) return false;
      return typeof b.label === 'string' && optCount(b.chars);
    default:
      return false;
  }
}

function blockOk(b: unknown): boolean {
  if (!isObj(b)) return false;
  if (b.type === 'tool_call') {
    if (!onlyKeys(b, FAST_KEYS.toolCall)) return false;
    return typeof b.id === 'string' && typeof b.name === 'string' && typeof b.input === 'string' && optCount(b.elided);
  }
  if (b.type === 'tool_result') {
    if (!onlyKeys(b, FAST_KEYS.toolResult)) return false;
    if (typeof b.callId !== 'string' || !optBool(b.isError) || !Array.isArray(b.content)) return false;
    for (const c of b.content) if (!leafOk(c)) return false;
    return true;
  }
  return leafOk(b);
}

function blocksOk(x: unknown): boolean {
  if (!Array.isArray(x)) return false;
  for (const b of x) if (!blockOk(b)) return false;
  return true;
}

// The keys each check accepts: the fields it tests that the schema declares (palimpsest-keys.ts).
const BASE_KEYS = ['kind', 'seq', 'branch', 'at'];
const FAST_KEYS = {
  text: accepts('text block', TextBlock, ['type', 'text', 'elided']),
  reasoning: accepts('reasoning block', ReasoningBlock, ['type', 'text', 'elided', 'redacted']),
  image: accepts('image block', ImageBlock, ['type', 'mediaType', 'bytes']),
  opaque: accepts('opaque block', OpaqueBlock, ['type', 'label', 'chars']),
  toolCall: accepts('tool_call block', ToolCallBlock, ['type', 'id', 'name', 'input', 'elided']),
  toolResult: accepts('tool_result block', ToolResultBlock, ['type', 'callId', 'content', 'isError']),
  appendOp: accepts('append op', member(SurfaceOp, 'op', 'append'), ['op']),
  extendOp: accepts('extend op', member(SurfaceOp, 'op', 'extend'), ['op']),
  logOp: accepts('log op', member(SurfaceOp, 'op', 'log'), ['op']),
  replaceOp: accepts('replace op', member(SurfaceOp, 'op', 'replace'), ['op', 'from', 'to']),
  insertOp: accepts('insert op', member(SurfaceOp, 'op', 'insert'), ['op', 'before']),
  itemEvent: accepts('item event', ItemEvent, [...BASE_KEYS, 'item', 'op', 'sources']),
  item: accepts('item', Item, ['id', 'role', 'blocks', 'meta', 'origin', 'derivation']),
  route: accepts('route', Route, ['provider', 'model', 'window', 'maxOutput', 'reasoning']),
  requestEvent: accepts('request event', RequestEvent, [...BASE_KEYS, 'id', 'purpose', 'compactionId', 'route', 'input', 'unlogged']),
  requestInput: accepts('request input', inner(RequestEvent.shape.input), ['items', 'instruction']),
  requestUnlogged: accepts('request unlogged change', inner(RequestEvent.shape.unlogged), ['why', 'calls', 'item', 'onward', 'history']),
  responseEvent: accepts('response event', ResponseEvent, [...BASE_KEYS, 'request', 'finish', 'usage', 'error']),
  finish: accepts('finish', Finish, ['raw', 'reason']),
  usage: accepts('usage', Usage, ['input', 'output', 'cacheRead', 'cacheWrite', 'cacheWrite1h', 'reasoning', 'context']),
  error: accepts('response error', inner(ResponseEvent.shape.error), ['code', 'message']),
  recordEvent: accepts('record event', RecordEvent, [...BASE_KEYS, 'type', 'summary']),
};

const isItemId = (x: unknown): boolean => typeof x === 'string' && x !== '';

function itemIdsOk(x: unknown): boolean {
  if (!Array.isArray(x)) return false;
  for (const id of x) if (!isItemId(id)) return false;
  return true;
}

function onlyKeys(o: Obj, keys: ReadonlySet<string>): boolean {
  for (const k in o) if (!keys.has(k)) return false;
  return true;
}

const ROLES: ReadonlySet<unknown> = new Set(['system', 'user', 'assistant', 'tool']);
const FINISH_REASONS: ReadonlySet<unknown> = new Set(['stop', 'tool_calls', 'length', 'refusal', 'pause', 'error', 'cancelled', 'unknown']);
const PURPOSES: ReadonlySet<unknown> = new Set(['agent', 'compaction', 'map', 'reduce', 'audit', 'correction', 'reread', 'other']);

/**
 * The surface ops without fields, shared: one object fewer per kept item event (the codex importer
 * shares its `append` the same way). Frozen, because every item of a session holds one.
 */
const APPEND: EventOf<'item'>['op'] = Object.freeze({ op: 'append' });
const EXTEND: EventOf<'item'>['op'] = Object.freeze({ op: 'extend' });
const LOG: EventOf<'item'>['op'] = Object.freeze({ op: 'log' });

/** The op as zod gives it (absent: the schema's default), or null when it is not a valid op. */
function surfaceOp(op: unknown): EventOf<'item'>['op'] | null {
  if (op === undefined) return APPEND;
  if (!isObj(op)) return null;
  switch (op.op) {
    case 'append':
      return onlyKeys(op, FAST_KEYS.appendOp) ? APPEND : null;
    case 'extend':
      return onlyKeys(op, FAST_KEYS.extendOp) ? EXTEND : null;
    case 'log':
      return onlyKeys(op, FAST_KEYS.logOp) ? LOG : null;
    case 'replace':
      return onlyKeys(op, FAST_KEYS.replaceOp) && isItemId(op.from) && isItemId(op.to) ? (op as EventOf<'item'>['op']) : null;
    case 'insert':
      return onlyKeys(op, FAST_KEYS.insertOp) && isItemId(op.before) ? (op as EventOf<'item'>['op']) : null;
    default:
      return null;
  }
}

function itemOk(v: Obj): boolean {
  if (!onlyKeys(v, FAST_KEYS.itemEvent)) return false;
  if (!baseOk(v) || surfaceOp(v.op) === null) return false;
  if (v.sources !== undefined) {
    if (!Array.isArray(v.sources)) return false;
    for (const s of v.sources) if (!isCount(s)) return false;
  }
  const it = v.item;
  if (!isObj(it)) return false;
  if (!onlyKeys(it, FAST_KEYS.item)) return false;
  if (typeof it.id !== 'string' || it.id === '' || !ROLES.has(it.role) || !optBool(it.meta) || !optString(it.origin)) return false;
  if (it.derivation !== undefined && derivation(it.derivation) === null) return false;
  return blocksOk(it.blocks);
}

/** The item as zod gives it: the same object, or a copy when its derivation takes a default. */
function itemOf(it: Obj): unknown {
  if (it.derivation === undefined) return it;
  const d = derivation(it.derivation);
  if (d === it.derivation) return it;
  const out: Obj = {};
  for (const k in it) out[k] = k === 'derivation' ? d : it[k];
  return out;
}

function routeOk(r: unknown): boolean {
  if (r === undefined) return true;
  if (!isObj(r)) return false;
  if (!onlyKeys(r, FAST_KEYS.route)) return false;
  return (
    optString(r.provider) &&
    optString(r.model) &&
    optString(r.reasoning) &&
    (r.window === undefined || isPositive(r.window)) &&
    (r.maxOutput === undefined || isPositive(r.maxOutput))
  );
}

function requestOk(v: Obj): boolean {
  if (!onlyKeys(v, FAST_KEYS.requestEvent)) return false;
  return (
    baseOk(v) &&
    typeof v.id === 'string' &&
    (v.purpose === undefined || PURPOSES.has(v.purpose)) &&
    optString(v.compactionId) &&
    routeOk(v.route) &&
    (v.input === undefined || summarizerInputOk(v.input)) &&
    (v.unlogged === undefined || unloggedOk(v.unlogged))
  );
}

/** A request's `unlogged` changes: each a sentence, with the calls or the item it names. */
function unloggedOk(x: unknown): boolean {
  if (!Array.isArray(x)) return false;
  for (const u of x) {
    if (!isObj(u) || !onlyKeys(u, FAST_KEYS.requestUnlogged) || typeof u.why !== 'string') return false;
    if (u.calls !== undefined && !(Array.isArray(u.calls) && u.calls.every((c) => typeof c === 'string'))) return false;
    if (u.item !== undefined && !isItemId(u.item)) return false;
    if (u.onward !== undefined && typeof u.onward !== 'boolean') return false;
    if (u.history !== undefined && typeof u.history !== 'boolean') return false;
  }
  return true;
}

/** A summarizer call's `input`: the items sent and the instruction (null: not recorded). */
function summarizerInputOk(x: unknown): boolean {
  if (!isObj(x)) return false;
  if (!onlyKeys(x, FAST_KEYS.requestInput)) return false;
  return itemIdsOk(x.items) && (x.instruction === undefined || x.instruction === null || blocksOk(x.instruction));
}

function responseOk(v: Obj): boolean {
  if (!onlyKeys(v, FAST_KEYS.responseEvent)) return false;
  return (
    baseOk(v) &&
    typeof v.request === 'string' &&
    (v.finish === undefined || finishOk(v.finish)) &&
    (v.usage === undefined || usageOk(v.usage)) &&
    (v.error === undefined || errorOk(v.error))
  );
}

function finishOk(f: unknown): boolean {
  if (!isObj(f)) return false;
  if (!onlyKeys(f, FAST_KEYS.finish)) return false;
  return typeof f.raw === 'string' && FINISH_REASONS.has(f.reason);
}

function usageOk(u: unknown): boolean {
  if (!isObj(u)) return false;
  for (const k in u) if (!FAST_KEYS.usage.has(k) || !optCount(u[k])) return false;
  return true;
}

function errorOk(e: unknown): boolean {
  if (!isObj(e)) return false;
  if (!onlyKeys(e, FAST_KEYS.error)) return false;
  return optString(e.code) && typeof e.message === 'string';
}

function recordOk(v: Obj): boolean {
  if (!onlyKeys(v, FAST_KEYS.recordEvent)) return false;
  return baseOk(v) && typeof v.type === 'string' && optString(v.summary);
}

// The rarer kinds, declared as shapes: each field's check, and the fields that must be there.

type Check = (x: unknown) => boolean;

interface Shape {
  readonly fields: ReadonlyMap<string, Check>;
  readonly required: readonly string[];
}

/**
 * A Map, not an object: a key such as `constructor` must not find a check on Object.prototype. Only
 * the fields `schema` declares keep their check (palimpsest-keys.ts).
 */
function shape(name: string, schema: Shaped, fields: Record<string, Check>, required: readonly string[] = []): Shape {
  const keys = accepts(name, schema, Object.keys(fields));
  return { fields: new Map(Object.entries(fields).filter(([k]) => keys.has(k))), required };
}

function fits(o: unknown, s: Shape): o is Obj {
  if (!isObj(o)) return false;
  for (const k in o) {
    const check = s.fields.get(k);
    if (check === undefined || !check(o[k])) return false;
  }
  for (const k of s.required) if (o[k] === undefined) return false;
  return true;
}

/** `o` with `key` set to `value` when absent (a schema default), copied only then. */
function withDefault(o: Obj, key: string, value: unknown): Obj {
  if (o[key] !== undefined) return o;
  const out: Obj = {};
  for (const k in o) out[k] = o[k];
  out[key] = value;
  return out;
}

const isString: Check = (x) => typeof x === 'string';
const isBool: Check = (x) => typeof x === 'boolean';
const isNumber = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
const oneOf = (...values: string[]): Check => {
  const set: ReadonlySet<unknown> = new Set(values);
  return (x) => set.has(x);
};
const literal =
  (value: string): Check =>
  (x) =>
    x === value;
const listOf =
  (check: Check): Check =>
  (x) =>
    Array.isArray(x) && x.every(check);
const nonEmpty =
  (check: Check): Check =>
  (x) =>
    Array.isArray(x) && x.length > 0 && check(x);
const BASE = {
  seq: isCount,
  branch: isString,
  at: (x: unknown): boolean => typeof x === 'string' || isNumber(x),
};

const DERIVATIONS: ReadonlyMap<unknown, Shape> = new Map([
  [
    'pruned',
    shape(
      'pruned derivation',
      member(Derivation, 'kind', 'pruned'),
      {
        kind: isString,
        of: isItemId,
        head: isCount,
        tail: isCount,
        omitted: isCount,
        unit: oneOf('chars', 'codepoints', 'tokens', 'lines'),
        shadowedTokens: isCount,
      },
      ['of', 'head', 'tail', 'omitted'],
    ),
  ],
  [
    'checkpoint',
    shape(
      'checkpoint derivation',
      member(Derivation, 'kind', 'checkpoint'),
      { kind: isString, compactionId: isString, covers: itemIdsOk, part: oneOf('summary', 'continuation', 'handoff') },
      ['compactionId', 'covers'],
    ),
  ],
  ['reinjected', shape('reinjected derivation', member(Derivation, 'kind', 'reinjected'), { kind: isString, of: itemIdsOk }, ['of'])],
  [
    'marker',
    shape('marker derivation', member(Derivation, 'kind', 'marker'), { kind: isString, of: itemIdsOk, fallback: isString }, ['of']),
  ],
]);

/** A derivation as zod gives it (its default filled in), or null when it is not a valid one. */
function derivation(d: unknown): Obj | null {
  if (!isObj(d)) return null;
  const s = DERIVATIONS.get(d.kind);
  if (s === undefined || !fits(d, s)) return null;
  if (d.kind === 'pruned') return withDefault(d, 'unit', 'chars');
  if (d.kind === 'checkpoint') return withDefault(d, 'part', 'summary');
  return d;
}

const POLICY = shape('policy', BudgetPolicy, {
  name: isString,
  window: isPositive,
  triggerRatio: (x) => isNumber(x) && x > 0,
  triggerTokens: isPositive,
  reactiveRatio: (x) => isNumber(x) && x > 0,
  rawTailRatio: (x) => isNumber(x) && x >= 0,
  rawTailTokens: isCount,
  rawTailMessages: isCount,
  outputReserve: isCount,
  headroom: isCount,
  breaker: (x) => fits(x, BREAKER),
});
const BREAKER = shape('breaker', inner(BudgetPolicy.shape.breaker), { failures: isPositive, cooldownTurns: isCount }, [
  'failures',
  'cooldownTurns',
]);
const TODO = shape('todo entry', Todo, { content: isString, status: isString }, ['content', 'status']);
const FALLBACK = shape(
  'fallback',
  inner(CompactionEndEvent.shape.fallback),
  { kind: oneOf('truncation', 'deterministic', 'other'), marker: isBool },
  ['kind', 'marker'],
);

const RARE: ReadonlyMap<unknown, Shape> = new Map([
  [
    'mask',
    shape(
      'mask event',
      MaskEvent,
      {
        ...BASE,
        kind: literal('mask'),
        items: nonEmpty(itemIdsOk),
        masked: isBool,
        by: oneOf('model', 'harness'),
        reference: blocksOk,
      },
      ['items'],
    ),
  ],
  [
    'todo',
    shape(
      'todo event',
      TodoEvent,
      { ...BASE, kind: literal('todo'), todos: listOf((t) => fits(t, TODO)), after: (x) => x === null || isItemId(x) },
      ['todos'],
    ),
  ],
  [
    'compaction/start',
    shape(
      'compaction/start event',
      CompactionStartEvent,
      {
        ...BASE,
        kind: literal('compaction/start'),
        id: isString,
        trigger: oneOf('auto', 'manual', 'overflow', 'preemptive', 'reactive', 'unknown'),
        strategy: isString,
        policy: (x) => fits(x, POLICY),
        preTokens: isCount,
        projectedTokens: isCount,
        source: itemIdsOk,
      },
      ['id'],
    ),
  ],
  [
    'compaction/summary',
    shape(
      'compaction/summary event',
      CompactionSummaryEvent,
      {
        ...BASE,
        kind: literal('compaction/summary'),
        id: isString,
        summary: blocksOk,
        source: itemIdsOk,
        sourceTokens: isCount,
        route: routeOk,
        finish: finishOk,
        usage: usageOk,
        request: isString,
      },
      ['id', 'summary'],
    ),
  ],
  [
    'compaction/summary-error',
    shape(
      'compaction/summary-error event',
      CompactionSummaryErrorEvent,
      {
        ...BASE,
        kind: literal('compaction/summary-error'),
        id: isString,
        error: errorOk,
        finish: finishOk,
        usage: usageOk,
        route: routeOk,
      },
      ['id', 'error'],
    ),
  ],
  [
    'compaction/end',
    shape(
      'compaction/end event',
      CompactionEndEvent,
      {
        ...BASE,
        kind: literal('compaction/end'),
        id: isString,
        outcome: oneOf('committed', 'rejected', 'failed', 'fallback', 'cancelled'),
        fallback: (x) => fits(x, FALLBACK),
        error: errorOk,
        postTokens: isCount,
      },
      ['id', 'outcome'],
    ),
  ],
]);

/** The rarer kinds with a shape above, their defaults filled in; null sends the line to zod. */
function rareEvent(v: Obj): EventBody | null {
  const s = RARE.get(v.kind);
  if (s === undefined || !fits(v, s)) return null;
  if (v.kind === 'mask') return withDefault(v, 'masked', true) as EventBody;
  if (v.kind === 'compaction/start') return withDefault(v, 'trigger', 'unknown') as EventBody;
  return v as EventBody;
}

/**
 * The event a line is, when it has one of the common shapes the fast check knows; null sends the
 * line to zod. Exported for the equivalence test.
 *
 * The event is the line's own object wherever it can be (an item is completed in place: its `op`
 * set): the parsed line is the importer's to keep, and a copy would cost an allocation per line and
 * leave the line's hidden class (map) with no object once the load is over, so that V8 throws away
 * this code (see keepShape in src/main/reader/shapes.ts). `v` may be changed.
 */
export function fastEvent(v: Obj): EventBody | null {
  switch (v.kind) {
    case 'item': {
      if (!itemOk(v)) return null;
      const item = itemOf(v.item as Obj);
      if (item !== v.item) v.item = item;
      v.op = surfaceOp(v.op);
      return v as EventBody;
    }
    case 'request': {
      if (!requestOk(v)) return null;
      if (v.purpose !== undefined) return v as EventBody;
      const out: Obj = { kind: 'request', id: v.id, purpose: 'agent' };
      if (v.seq !== undefined) out.seq = v.seq;
      if (v.branch !== undefined) out.branch = v.branch;
      if (v.at !== undefined) out.at = v.at;
      if (v.compactionId !== undefined) out.compactionId = v.compactionId;
      if (v.route !== undefined) out.route = v.route;
      if (v.input !== undefined) out.input = v.input;
      if (v.unlogged !== undefined) out.unlogged = v.unlogged;
      return out as EventBody;
    }
    case 'response':
      return responseOk(v) ? (v as EventBody) : null;
    case 'record':
      return recordOk(v) ? (v as EventBody) : null;
    default:
      return rareEvent(v);
  }
}
