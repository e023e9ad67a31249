import type { Block, ToolSchema } from '../model/content';
import type { BudgetPolicy, CompactionOutcome, CompactionTrigger, Finish, Route, Usage } from '../model/event';
import type { Item } from '../model/item';
import type { Fate } from '../model/view';

/** The request envelope in force: what the latest header events said. */
export interface Envelope {
  /** undefined: no header said anything yet; null: the log says it does not record it. */
  readonly system: readonly Block[] | null | undefined;
  readonly tools: readonly ToolSchema[] | null | undefined;
  readonly route: Route;
  readonly systemSeq: number | null;
  readonly toolsSeq: number | null;
  readonly routeSeqs: readonly number[];
  /** What the harness adds to messages that the log does not record (HeaderEvent.unrecorded). */
  readonly unrecorded: readonly string[];
  /** What a reload may leave out of parallel tool calls (HeaderEvent.reloadMayDrop); null: nothing. */
  readonly reloadMayDrop: string | null;
}

export const EMPTY_ENVELOPE: Envelope = {
  system: undefined,
  tools: undefined,
  route: {},
  systemSeq: null,
  toolsSeq: null,
  routeSeqs: [],
  unrecorded: [],
  reloadMayDrop: null,
};

export interface FateChange {
  /** The event that changed the fate; it applies to requests after it. */
  readonly seq: number;
  readonly fate: Fate;
}

/**
 * One shared empty list for the lists most items never fill (extensions, masks, sources): a
 * session has hundreds of thousands of items, and an empty array each is memory for nothing.
 * Never mutated; replaced by a fresh array on first use.
 */
export const NONE: readonly never[] = Object.freeze([]);

export interface ItemRecord {
  /** Position in the replay's item table (creation order); the surface names items by it. */
  readonly index: number;
  /** Unique within the replay (a reused harness id gets a suffix, and a diagnostic). */
  readonly id: string;
  /** The event that created the item. */
  readonly seq: number;
  readonly item: Item;
  /** Blocks added later by `extend` events (one response logged as several records). */
  extensions: readonly { readonly seq: number; readonly blocks: readonly Block[] }[];
  /** Events it was derived from (provenance), beyond its own. */
  readonly sources: readonly number[];
  /** Sort key on the surface (./keys.ts); null while it never entered the surface. */
  key: string | null;
  readonly fates: FateChange[];
  /** Each mask, with what the model sees instead when the log records it (null: not recorded). */
  maskReferences: readonly { readonly seq: number; readonly reference: readonly Block[] | null }[];
}

export interface TodoState {
  readonly todos: readonly { readonly content: string; readonly status: string }[];
  readonly after: string | null;
  readonly seq: number;
}

export interface Unlogged {
  readonly why: string;
  readonly calls?: readonly string[];
  readonly item?: string;
  readonly onward?: boolean;
  /** The history before the request may have been replaced (a summary in place of its older messages). */
  readonly history?: boolean;
}

export interface RequestRecord {
  readonly index: number;
  readonly id: string;
  readonly seq: number;
  readonly purpose: string;
  readonly compactionId: string | null;
  readonly envelope: Envelope;
  readonly route: Route;
  readonly todo: TodoState | null;
  readonly input: { readonly items: readonly string[]; readonly instruction: readonly Block[] | null | undefined } | null;
  /** What the harness changed in this request by rules its log does not record (RequestEvent.unlogged). */
  readonly unlogged: readonly Unlogged[];
  responseSeq: number | null;
  finish: Finish | null;
  usage: Usage | null;
  error: { code?: string; message: string } | null;
}

export interface MapReduceRecord {
  readonly stagingSeqs: number[];
  readonly mapSeqs: number[];
  readonly repartitionSeqs: number[];
  readonly reduceSeqs: number[];
  readonly rereadSeqs: number[];
  readonly auditSeqs: number[];
  readonly correctionSeqs: number[];
}

export interface CompactionRecord {
  readonly id: string;
  startSeq: number | null;
  trigger: CompactionTrigger;
  strategy: string | null;
  policy: BudgetPolicy | null;
  preTokens: number | null;
  source: readonly string[];
  readonly summarySeqs: number[];
  readonly summaryErrorSeqs: number[];
  readonly requestIds: string[];
  /** Checkpoint items it committed (a handoff pair has two). */
  readonly checkpointItems: string[];
  endSeq: number | null;
  /** null while the compaction has no end and committed nothing (an open bracket). */
  outcome: CompactionOutcome | null;
  fallback: { kind: string; marker: boolean } | null;
  postTokens: number | null;
  finish: Finish | null;
  usage: Usage | null;
  error: { code?: string; message: string } | null;
  readonly mapreduce: MapReduceRecord;
  /** Every event of this compaction, ascending. */
  readonly seqs: number[];
}

export function newCompaction(id: string): CompactionRecord {
  return {
    id,
    startSeq: null,
    trigger: 'unknown',
    strategy: null,
    policy: null,
    preTokens: null,
    source: [],
    summarySeqs: [],
    summaryErrorSeqs: [],
    requestIds: [],
    checkpointItems: [],
    endSeq: null,
    outcome: null,
    fallback: null,
    postTokens: null,
    finish: null,
    usage: null,
    error: null,
    mapreduce: { stagingSeqs: [], mapSeqs: [], repartitionSeqs: [], reduceSeqs: [], rereadSeqs: [], auditSeqs: [], correctionSeqs: [] },
    seqs: [],
  };
}
