import { z } from 'zod';
import { Block, ToolSchema } from './content';
import { Item, ItemId } from './item';

/**
 * The canonical event log. Every importer turns a harness's records into these events; replay folds
 * them into model views. The same shapes, one per line, are the Palimpsest session format v1
 * (docs/format.md), so a harness can write them directly.
 */

export const Route = z.object({
  provider: z.string().optional(),
  model: z.string().optional(),
  /** Context window in tokens, as the provider or harness reported it. */
  window: z.number().int().positive().optional(),
  /** The output ceiling sent with the request (`max_tokens`). */
  maxOutput: z.number().int().positive().optional(),
  /** Reasoning effort or mode sent, as the provider names it ("high", "enabled", …). */
  reasoning: z.string().optional(),
});
export type Route = z.infer<typeof Route>;

/** Usage as the provider reported it. `input` excludes cache reads and writes, as Anthropic counts it. */
export const Usage = z.object({
  input: z.number().int().nonnegative().optional(),
  output: z.number().int().nonnegative().optional(),
  cacheRead: z.number().int().nonnegative().optional(),
  cacheWrite: z.number().int().nonnegative().optional(),
  /**
   * Of cacheWrite, the tokens written with the one-hour lifetime (Anthropic's
   * `cache_creation.ephemeral_1h_input_tokens`); absent when the report does not split the writes
   * by lifetime. Decides when a prompt-cache entry expired (src/shared/tokens/cache-break.ts).
   */
  cacheWrite1h: z.number().int().nonnegative().optional(),
  reasoning: z.number().int().nonnegative().optional(),
  /**
   * The whole context the provider counted for this request (input + cache reads + cache writes),
   * when the provider reports it that way. Otherwise derived by `reportedContextTokens`.
   */
  context: z.number().int().nonnegative().optional(),
});
export type Usage = z.infer<typeof Usage>;

/** Normalised finish reasons; the raw string is always kept beside it. */
export const FinishReason = z.enum(['stop', 'tool_calls', 'length', 'refusal', 'pause', 'error', 'cancelled', 'unknown']);
export type FinishReason = z.infer<typeof FinishReason>;

export const Finish = z.object({ raw: z.string(), reason: FinishReason });
export type Finish = z.infer<typeof Finish>;

export const SurfaceOp = z.discriminatedUnion('op', [
  z.object({ op: z.literal('append') }),
  /** Replace the surface positions from `from` through `to` (inclusive, by position) with this item. */
  z.object({ op: z.literal('replace'), from: ItemId, to: ItemId }),
  /** Put the item right before another live item (a checkpoint composed before the raw tail). */
  z.object({ op: z.literal('insert'), before: ItemId }),
  /** Add blocks to a live item with the same id (one response logged as several records). */
  z.object({ op: z.literal('extend') }),
  /** Raw history only: the item never reaches the model (display-only records). */
  z.object({ op: z.literal('log') }),
]);
export type SurfaceOp = z.infer<typeof SurfaceOp>;

/** A point in a branch of the log: what forks, reverts and rollbacks resolve to. */
export const Ref = z.object({
  branch: z.string().optional(),
  /** The last event (seq) the reference includes. */
  seq: z.number().int().nonnegative(),
});
export type Ref = z.infer<typeof Ref>;

export const Todo = z.object({ content: z.string(), status: z.string() });

export const CompactionTrigger = z.enum(['auto', 'manual', 'overflow', 'preemptive', 'reactive', 'unknown']);
export type CompactionTrigger = z.infer<typeof CompactionTrigger>;

export const CompactionOutcome = z.enum(['committed', 'rejected', 'failed', 'fallback', 'cancelled']);
export type CompactionOutcome = z.infer<typeof CompactionOutcome>;

export const BudgetPolicy = z.object({
  name: z.string().optional(),
  window: z.number().int().positive().optional(),
  /** Trigger as a fraction of the window (0.8; the Conversation Compaction article's preemptive 0.7) … */
  triggerRatio: z.number().positive().optional(),
  /** … or as tokens. */
  triggerTokens: z.number().int().positive().optional(),
  /** A second, reactive watermark (the Conversation Compaction article: 0.95). */
  reactiveRatio: z.number().positive().optional(),
  /** The recent raw tail kept verbatim: as a fraction of the window (cosh 0.2, DSH 0.16) … */
  rawTailRatio: z.number().nonnegative().optional(),
  /** … as tokens … */
  rawTailTokens: z.number().int().nonnegative().optional(),
  /** … or as messages (the Conversation Compaction article keeps the last 10). */
  rawTailMessages: z.number().int().nonnegative().optional(),
  outputReserve: z.number().int().nonnegative().optional(),
  headroom: z.number().int().nonnegative().optional(),
  /** A circuit breaker: trip after this many consecutive failures, reset after a cool-down (the Conversation Compaction article: 3 and 5 turns). */
  breaker: z.object({ failures: z.number().int().positive(), cooldownTurns: z.number().int().nonnegative() }).optional(),
});
export type BudgetPolicy = z.infer<typeof BudgetPolicy>;

export const Segment = z.object({
  ordinal: z.number().int().nonnegative(),
  /** Whole items, in order. */
  items: z.array(ItemId).min(1),
});

const base = {
  /** Position in the canonical log; contiguous from 0. Optional in files (line order is used). */
  seq: z.number().int().nonnegative().optional(),
  /** Branch the event belongs to (cosh keeps several branches in one file). Default: `main`. */
  branch: z.string().optional(),
  /** Time: ISO-8601 string or epoch milliseconds, as the harness wrote it. */
  at: z.union([z.string(), z.number()]).optional(),
};

export const SessionEvent = z.object({
  ...base,
  kind: z.literal('session'),
  id: z.string(),
  /** Which harness wrote the log (claude-code, codex, dsh, rind, cosh, or your own). */
  harness: z.string().optional(),
  harnessVersion: z.string().optional(),
  format: z.literal('palimpsest').optional(),
  version: z.literal(1).optional(),
  title: z.string().optional(),
  cwd: z.string().optional(),
  /** A fork or subagent: the parent session and how much of its log this one inherits. */
  parent: z.object({ session: z.string(), seq: z.number().int().nonnegative().optional(), origin: z.string().optional() }).optional(),
});

export const HeaderEvent = z.object({
  ...base,
  kind: z.literal('header'),
  /** The system prompt. `null`: the log does not record it (never guessed). Absent: unchanged. */
  system: z.array(Block).nullable().optional(),
  /** Tool schemas sent. `null`: not recorded. Absent: unchanged. */
  tools: z.array(ToolSchema).nullable().optional(),
  route: Route.optional(),
  /**
   * What the harness adds to the messages it sends that the log does not record (a context block
   * before the first prompt, attachments rendered by its own rules), each in a sentence: named among
   * the view's unknowns. Absent: unchanged; empty: nothing.
   */
  unrecorded: z.array(z.string()).optional(),
  /**
   * Whether the harness, after a reload (resume, continue), may leave out parallel tool calls and
   * their results that its log's parent links do not reach, in a sentence: the view names it, with
   * the calls at risk, among its unknowns when its items hold such calls. Absent: unchanged; null
   * or empty: it does not.
   */
  reloadMayDrop: z.string().nullable().optional(),
  /**
   * Why an automatic compaction may have run without this log recording it, succeeded or not, in a
   * sentence (Gemini CLI before 0.44 writes no compression into its file): a rule then does not
   * read a compaction it cannot see as one that failed. Absent: unchanged; null or empty: the log
   * records every compaction that commits.
   */
  compactionUnlogged: z.string().nullable().optional(),
  /** Why the envelope changed, in the harness's words (DSH: initial, resume, change, series). */
  reason: z.string().optional(),
});

export const ItemEvent = z.object({
  ...base,
  kind: z.literal('item'),
  item: Item,
  op: SurfaceOp.default({ op: 'append' }),
  /** Events this one was built from (provenance), when it is derived. */
  sources: z.array(z.number().int().nonnegative()).optional(),
});

export const MaskEvent = z.object({
  ...base,
  kind: z.literal('mask'),
  items: z.array(ItemId).min(1),
  /** false un-masks. */
  masked: z.boolean().default(true),
  /** Who asked: the model (cosh's `mask_tool_result`) or the harness on its own. */
  by: z.enum(['model', 'harness']).optional(),
  /** What the model sees in place of the payload, when the log records it. Absent: unknown, never guessed. */
  reference: z.array(Block).optional(),
});

export const DropEvent = z.object({
  ...base,
  kind: z.literal('drop'),
  items: z.array(ItemId).min(1),
  reason: z.enum(['compaction', 'truncation', 'hidden', 'cleared', 'other']).default('other'),
  compactionId: z.string().optional(),
});

export const RestoreEvent = z.object({
  ...base,
  kind: z.literal('restore'),
  items: z.array(ItemId).min(1),
});

export const RequestEvent = z.object({
  ...base,
  kind: z.literal('request'),
  id: z.string(),
  purpose: z.enum(['agent', 'compaction', 'map', 'reduce', 'audit', 'correction', 'reread', 'other']).default('agent'),
  compactionId: z.string().optional(),
  /** Overrides the header's route for this call (a summarizer on its own model). */
  route: Route.optional(),
  /**
   * For calls that do not send the surface (summarizers): the items sent and the instruction.
   * `instruction: null` says the instruction exists but the log does not record it.
   */
  input: z.object({ items: z.array(ItemId), instruction: z.array(Block).nullable().optional() }).optional(),
  /**
   * What the harness changed in this request by rules its log does not record (a tool result it
   * cleared, a reminder it added), each in a sentence, named among the view's unknowns: the tool
   * results of `calls` (cleared, or maybe cleared), or text added to the user message holding item
   * `item` (with `onward`, to that one and every user message after it), or, with `history`, the
   * history before it: the harness may have replaced it, from its start up to a user turn, by
   * messages the log does not hold (a summary), so which messages were sent whole is unknown. Only
   * where the harness's rule could have fired, never on every request.
   */
  unlogged: z
    .array(
      z.object({
        why: z.string(),
        calls: z.array(z.string()).optional(),
        item: ItemId.optional(),
        onward: z.boolean().optional(),
        history: z.boolean().optional(),
      }),
    )
    .optional(),
});

export const ResponseEvent = z.object({
  ...base,
  kind: z.literal('response'),
  request: z.string(),
  finish: Finish.optional(),
  usage: Usage.optional(),
  error: z.object({ code: z.string().optional(), message: z.string() }).optional(),
});

export const CompactionStartEvent = z.object({
  ...base,
  kind: z.literal('compaction/start'),
  id: z.string(),
  trigger: CompactionTrigger.default('unknown'),
  strategy: z.string().optional(),
  policy: BudgetPolicy.optional(),
  /** Context size before, in tokens, as the harness measured it. */
  preTokens: z.number().int().nonnegative().optional(),
  /** A preemptive trigger's projection of the next turn (context + output bound + expected tool result). */
  projectedTokens: z.number().int().nonnegative().optional(),
  /** The source range: the items the compaction may replace, in order. */
  source: z.array(ItemId).optional(),
});

export const CompactionSummaryEvent = z.object({
  ...base,
  kind: z.literal('compaction/summary'),
  id: z.string(),
  summary: z.array(Block),
  source: z.array(ItemId).optional(),
  /** Token size of the source the summary replaces, as the harness priced it. */
  sourceTokens: z.number().int().nonnegative().optional(),
  route: Route.optional(),
  finish: Finish.optional(),
  usage: Usage.optional(),
  request: z.string().optional(),
});

export const CompactionSummaryErrorEvent = z.object({
  ...base,
  kind: z.literal('compaction/summary-error'),
  id: z.string(),
  error: z.object({ code: z.string().optional(), message: z.string() }),
  finish: Finish.optional(),
  usage: Usage.optional(),
  route: Route.optional(),
});

export const CompactionEndEvent = z.object({
  ...base,
  kind: z.literal('compaction/end'),
  id: z.string(),
  outcome: CompactionOutcome,
  /** A fallback: which kind, and whether the view carries a visible marker of it. */
  fallback: z.object({ kind: z.enum(['truncation', 'deterministic', 'other']), marker: z.boolean() }).optional(),
  error: z.object({ code: z.string().optional(), message: z.string() }).optional(),
  postTokens: z.number().int().nonnegative().optional(),
});

export const StagingEvent = z.object({
  ...base,
  kind: z.literal('mapreduce/staging'),
  compactionId: z.string(),
  /** 1: byte-sliced, 2: no completion checks, 3: current. null: unversioned legacy split buffer. */
  version: z.union([z.literal(1), z.literal(2), z.literal(3)]).nullable(),
  fingerprint: z.string(),
  segments: z.array(Segment),
});

export const MapEvent = z.object({
  ...base,
  kind: z.literal('mapreduce/map'),
  compactionId: z.string(),
  ordinal: z.number().int().nonnegative(),
  status: z.enum(['accepted', 'rejected', 'failed']),
  /** The model call that produced it. */
  request: z.string().optional(),
  summary: z.array(Block).optional(),
  finish: Finish.optional(),
  usage: Usage.optional(),
});

export const RepartitionEvent = z.object({
  ...base,
  kind: z.literal('mapreduce/repartition'),
  compactionId: z.string(),
  attempt: z.number().int().positive(),
  /** Ordinals of the segments this repartition replaces (the ones not accepted yet). */
  replaces: z.array(z.number().int().nonnegative()).optional(),
  segments: z.array(Segment),
});

export const ReduceEvent = z.object({
  ...base,
  kind: z.literal('mapreduce/reduce'),
  compactionId: z.string(),
  level: z.number().int().nonnegative(),
  /** Ordinals of maps (level 0) or indexes of reductions of the level below. */
  inputs: z.array(z.number().int().nonnegative()),
  output: z.array(Block).optional(),
  final: z.boolean().optional(),
  request: z.string().optional(),
  finish: Finish.optional(),
  usage: Usage.optional(),
});

export const RereadEvent = z.object({
  ...base,
  kind: z.literal('mapreduce/reread'),
  compactionId: z.string(),
  ranges: z.array(z.object({ from: ItemId, to: ItemId })).max(3),
  status: z.enum(['served', 'malformed', 'unavailable', 'oversized']),
  /** The reduction that asked for it: its level and index within the level. */
  reduction: z.object({ level: z.number().int().nonnegative(), index: z.number().int().nonnegative() }).optional(),
});

export const AuditEvent = z.object({
  ...base,
  kind: z.literal('mapreduce/audit'),
  compactionId: z.string(),
  verdict: z.enum(['pass', 'fail']),
  issues: z.array(z.string()).optional(),
  request: z.string().optional(),
});

export const CorrectionEvent = z.object({
  ...base,
  kind: z.literal('mapreduce/correction'),
  compactionId: z.string(),
  n: z.number().int().positive(),
  accepted: z.boolean(),
  output: z.array(Block).optional(),
  request: z.string().optional(),
});

export const TodoEvent = z.object({
  ...base,
  kind: z.literal('todo'),
  todos: z.array(Todo),
  /** The item boundary the plan is bound to; null: before any item. */
  after: ItemId.nullable().optional(),
});

export const ForkEvent = z.object({
  ...base,
  kind: z.literal('fork'),
  parent: Ref,
  label: z.string().optional(),
  /**
   * false: the branch only links to its parent (a subagent spawned by a tool call starts with an
   * empty history of its own); default true: it inherits the parent's history through `parent.seq`.
   */
  inherit: z.boolean().optional(),
});
export const RevertEvent = z.object({ ...base, kind: z.literal('revert'), target: Ref, label: z.string().optional() });
export const RollbackEvent = z.object({ ...base, kind: z.literal('rollback'), target: Ref, label: z.string().optional() });

export const LifecycleEvent = z.object({
  ...base,
  kind: z.literal('lifecycle'),
  /**
   * end-seed: the inherited prefix of a fork or resume ends here; process-start: a new process took
   * over; turn-start / turn-end: a user turn (retry budgets and breakers count in turns).
   */
  boundary: z.enum(['end-seed', 'process-start', 'resume', 'turn-start', 'turn-end']),
  /** The turn number, for turn boundaries. */
  turn: z.number().int().nonnegative().optional(),
});

/** A harness record that is understood but changes nothing the model sees (stream chunks, hooks, titles). */
export const RecordEvent = z.object({
  ...base,
  kind: z.literal('record'),
  type: z.string(),
  summary: z.string().optional(),
});

/** A record nobody understood: kept, shown and counted, never dropped. */
export const UnknownEvent = z.object({
  ...base,
  kind: z.literal('unknown'),
  type: z.string(),
});

export const CanonicalEvent = z.discriminatedUnion('kind', [
  SessionEvent,
  HeaderEvent,
  ItemEvent,
  MaskEvent,
  DropEvent,
  RestoreEvent,
  RequestEvent,
  ResponseEvent,
  CompactionStartEvent,
  CompactionSummaryEvent,
  CompactionSummaryErrorEvent,
  CompactionEndEvent,
  StagingEvent,
  MapEvent,
  RepartitionEvent,
  ReduceEvent,
  RereadEvent,
  AuditEvent,
  CorrectionEvent,
  TodoEvent,
  ForkEvent,
  RevertEvent,
  RollbackEvent,
  LifecycleEvent,
  RecordEvent,
  UnknownEvent,
]);
export type CanonicalEventInput = z.input<typeof CanonicalEvent>;
export type EventBody = z.infer<typeof CanonicalEvent>;
export type EventKind = EventBody['kind'];
export type EventOf<K extends EventKind> = Extract<EventBody, { kind: K }>;

export const EVENT_KINDS: readonly EventKind[] = CanonicalEvent.options.map((o) => o.shape.kind.value);

/** Where an event came from: file (index into the session's files), 1-based line, byte offset and length. */
export interface SourceLoc {
  readonly file: number;
  readonly line: number;
  readonly offset: number;
  readonly length: number;
}

/**
 * An event in the log: its body and its stable seq. Its source location is kept beside the log,
 * not on the event (LoadedSession.loc): an object per event cost 55 MB of heap on a 1 M-event log.
 */
export type LogEvent = EventBody & { readonly seq: number };

/** Epoch milliseconds of an event's time (`at`), when the log gives a readable one. */
export function epochMs(at: string | number | undefined): number | null {
  if (typeof at === 'number') return Number.isFinite(at) ? at : null;
  if (typeof at !== 'string') return null;
  const t = Date.parse(at);
  return Number.isFinite(t) ? t : null;
}

/** The context size a provider counted for a request: the whole prompt, cache reads and writes included. */
export function reportedContextTokens(u: Usage | undefined): number | null {
  if (!u) return null;
  if (u.context !== undefined) return u.context;
  if (u.input === undefined && u.cacheRead === undefined && u.cacheWrite === undefined) return null;
  return (u.input ?? 0) + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0);
}
