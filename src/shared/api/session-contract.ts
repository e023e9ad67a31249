import { z } from 'zod';
import { BranchName, Count, Seq, SessionId } from './scalars';
import { Block, ToolSchema } from '../model/content';
import { ItemId, Role } from '../model/item';
import { CompactionDetail, LongText, TokenMeter, TokenSeries } from './session-shapes';
import { FATE_NAMES, FateRow, ItemKindSchema, RequestRow, SessionSummary, ViewItemRow } from './shapes';

/**
 * The session inspector's part of the API contract (docs/session-view.md): windows of a model view,
 * the raw ↔ view alignment, token meters, compaction detail and diffs — all computed in main, so
 * the renderer never holds a whole session. Spread into CONTRACT by ./contract.ts.
 */

export * from './session-shapes';

/** Most view items one `getViewWindow` call returns. */
export const MAX_VIEW_WINDOW = 500;
/** Most raw events one `getAlignment` call covers, and most rows of `listFates`. */
export const MAX_ALIGN_WINDOW = 1000;
/** Most rows of `diffViews`. */
export const MAX_DIFF_ROWS = 5000;

const WithSession = z.object({ sessionId: SessionId });
const WithBranch = WithSession.extend({ branch: BranchName.optional() });
const AtRequest = WithBranch.extend({ index: Count });

/** Raw items by their fate at one request. */
export const FateCounts = z.object({ verbatim: Count, masked: Count, pruned: Count, summarised: Count, dropped: Count, reinjected: Count });
export type FateCounts = z.infer<typeof FateCounts>;

/** Everything of a model view but its items (those come in windows). */
export const ViewHead = z.object({
  branch: z.string(),
  request: RequestRow,
  /** null: the log does not record the system prompt. May hold previews (`elided`); `getEventText` of a header seq has it whole. */
  system: z.array(Block).nullable(),
  systemChars: Count,
  tools: z.array(ToolSchema).nullable(),
  headerSeqs: z.array(Seq),
  todo: z.object({ todos: z.array(z.object({ content: z.string(), status: z.string() })), after: ItemId.nullable(), seq: Seq }).nullable(),
  unknowns: z.array(z.string()),
  /** Items of the view. */
  items: Count,
  /** Raw items written before the request, and their fates at it. */
  rawItems: Count,
  fates: FateCounts,
});
export type ViewHead = z.infer<typeof ViewHead>;

export const ViewWindowItem = z.object({
  position: Count,
  item: ViewItemRow,
  /** Characters of the item's text as the model saw it, elided ones included. */
  chars: Count,
  /** Characters not in memory (`getItemText` reads them from the file). */
  elided: Count,
});
export type ViewWindowItem = z.infer<typeof ViewWindowItem>;

/** Where a raw event is at a request: in the view (positions), stood in for (target), or its fate. */
export const AlignRow = z.object({
  seq: Seq,
  /** The event is part of the selected branch's history. */
  onBranch: z.boolean(),
  /** The item the event created, if it created one. */
  item: ItemId.nullable(),
  /** The item's fate at the request; null for events that are not items, or items written later. */
  fate: FateRow.nullable(),
  /** Written at or after the request (the model could not have seen it). */
  later: z.boolean(),
  /** View positions whose provenance cites this event. */
  positions: z.array(Count),
  /** The view position that shows this event or stands in its place (its checkpoint, pruned copy, marker). */
  target: Count.nullable(),
});
export type AlignRow = z.infer<typeof AlignRow>;

export const FateListRow = z.object({
  fate: FateRow,
  kind: ItemKindSchema,
  role: Role,
  preview: z.string(),
  chars: Count,
});
export type FateListRow = z.infer<typeof FateListRow>;

export const ViewDiffRow = z.object({
  change: z.enum(['added', 'removed', 'changed']),
  id: ItemId,
  seq: Seq,
  kind: ItemKindSchema,
  role: Role,
  /** Positions in view a and view b. */
  a: Count.nullable(),
  b: Count.nullable(),
  detail: z.string(),
  preview: z.string(),
});
export type ViewDiffRow = z.infer<typeof ViewDiffRow>;

export const SESSION_CONTRACT = {
  /** The summary of an open session (what openSession returned), for views mounted with only its id. */
  getSessionInfo: {
    input: WithSession,
    output: SessionSummary,
  },
  /**
   * Answers once the session has changed: its files grew by whole lines or were rewritten, and the
   * host has read the change into the open session, under the same id (lines appended are read on
   * from where the last read stopped; anything else loads the session again). Or after `waitMs`
   * (default 25 s) with `changed: false`. `since`: the revision the caller shows; a session already
   * past it answers at once. The app asks again and again while a session is shown, and then asks
   * only for what changed (docs/session-view.md, "Follow").
   */
  awaitSessionChange: {
    input: WithSession.extend({ waitMs: z.number().int().min(0).max(60_000).optional(), since: Count.optional() }),
    output: z.object({
      changed: z.boolean(),
      /** The session's revision now: 0 as opened, one more at each change read into it. */
      revision: Count,
      /** Why the session was read again from the start (a file truncated or rewritten in place) since `since`; null when it was read on, or did not change. */
      reloaded: z.string().nullable(),
      /** The session's summary now (what getSessionInfo answers), when it changed; null otherwise. */
      summary: SessionSummary.nullable(),
      /** Findings of the default branch that the change added and withdrew (a withdrawn one was true of the session before it grew). */
      findings: z.object({ added: Count, withdrawn: Count }),
    }),
  },
  getViewHead: {
    input: AtRequest,
    output: ViewHead,
  },
  getViewWindow: {
    input: AtRequest.extend({ from: Count, count: z.number().int().positive().max(MAX_VIEW_WINDOW) }),
    output: z.object({ total: Count, from: Count, items: z.array(ViewWindowItem) }),
  },
  /** One view item with every elided text re-read from the source, as the model saw it at the request. */
  getItemText: {
    input: AtRequest.extend({ itemId: ItemId }),
    output: z.object({ itemId: ItemId, blocks: z.array(Block).nullable(), chars: Count }),
  },
  /** One raw event, whole, as canonical JSON text (capped). */
  getEventText: {
    input: WithSession.extend({ seq: Seq }),
    output: z.object({ seq: Seq, kind: z.string(), file: z.string(), line: z.number().int().positive(), text: LongText }),
  },
  getAlignment: {
    input: AtRequest.extend({ from: Seq, count: z.number().int().positive().max(MAX_ALIGN_WINDOW) }),
    output: z.object({ index: Count, requestSeq: Seq, total: Count, from: Seq, rows: z.array(AlignRow) }),
  },
  getTokenMeter: {
    input: AtRequest.extend({ policy: z.string().max(500).optional() }),
    output: TokenMeter,
  },
  getTokenSeries: {
    input: WithBranch.extend({ policy: z.string().max(500).optional() }),
    output: TokenSeries,
  },
  getCompaction: {
    input: WithBranch.extend({ compactionId: z.string().min(1).max(1000) }),
    output: CompactionDetail,
  },
  listFates: {
    input: AtRequest.extend({
      fate: z.enum(fateNames()).optional(),
      from: Count,
      count: z.number().int().positive().max(MAX_ALIGN_WINDOW),
    }),
    output: z.object({ total: Count, counts: FateCounts, from: Count, rows: z.array(FateListRow) }),
  },
  diffViews: {
    input: WithBranch.extend({ a: Count, b: Count, limit: z.number().int().positive().max(MAX_DIFF_ROWS).optional() }),
    output: z.object({
      a: Count,
      b: Count,
      counts: z.object({ added: Count, removed: Count, changed: Count, same: Count }),
      rows: z.array(ViewDiffRow),
      truncated: z.boolean(),
    }),
  },
} as const;

export type SessionMethod = keyof typeof SESSION_CONTRACT;

/** The fate names, without reading ./contract's FATE_NAMES at evaluation time (see the import note). */
function fateNames(): ['verbatim', 'masked', 'pruned', 'summarised', 'dropped', 'reinjected'] {
  return ['verbatim', 'masked', 'pruned', 'summarised', 'dropped', 'reinjected'];
}
// …and they agree with ./contract's (checked at compile time).
const _sameFates: readonly (typeof FATE_NAMES)[number][] = fateNames();
