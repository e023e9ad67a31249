import type { Block, ToolSchema } from '../model/content';
import type { Finish, Route, Usage } from '../model/event';
import type { Item, ItemId, Role } from '../model/item';

/*
 * The seam between a compaction strategy (an algorithm, here in src/shared, deterministic given the
 * answers it receives) and whatever answers its summary requests (src/main: provider adapters with
 * retries and a summarization-model chain, or the mock provider). A strategy never sees a provider,
 * a key or a socket: it sees a `Summarizer`, and a `TokenCounter`.
 */

/** Counts tokens of a text (an estimate: main passes its bounded tiktoken encoder, tests a char rule). */
export type TokenCounter = (text: string) => number;

/** One item of the source view, with its full text (never elided). */
export interface SourceItem {
  readonly id: ItemId;
  readonly role: Role;
  readonly blocks: readonly Block[];
  /** The event that created it; null for items a strategy made. */
  readonly seq: number | null;
  readonly meta?: boolean;
}

/** The exact model view a strategy re-runs on: a compaction's source, or any request's view. */
export interface SourceView {
  /** null: the log does not record the system prompt (it is kept as unknown, never invented). */
  readonly system: readonly Block[] | null;
  readonly tools: readonly ToolSchema[] | null;
  readonly items: readonly SourceItem[];
  /** The receiving agent's route (provider, model, window) as logged. */
  readonly route: Route | null;
  /** Context tokens the provider reported for this view, when the log has them. */
  readonly reportedInputTokens: number | null;
}

/** The receiving agent's budget. Source coverage, the raw tail and the commit budget belong to it (cosh). */
export interface AgentBudget {
  /** Context window of the agent's model, in tokens. */
  readonly window: number;
  /** The agent's output reservation for its next reply, when known. */
  readonly maxOutput: number | null;
}

/** What a summary call is for (recorded with every call; cosh's MapReduce stages). */
export type SummaryStage = 'one-shot' | 'map' | 'reduce' | 'final-reduce' | 'audit' | 'correction' | 'chunk' | 'merge';

export interface SummaryMessage {
  readonly role: 'user' | 'assistant';
  readonly text: string;
}

/** A protocol-neutral summary request. main renders it for the provider and records the exact bytes sent. */
export interface SummaryRequest {
  readonly stage: SummaryStage;
  /** A short label for progress and records: "map 3/12", "reduce L1#0". */
  readonly label: string;
  readonly system: string | null;
  readonly messages: readonly SummaryMessage[];
  /**
   * Output ceiling to send. null keeps the connector's own output configuration (cosh: one-shot
   * summaries, final reductions and corrections never borrow a segment ceiling).
   */
  readonly maxOutput: number | null;
}

export type SummaryErrorKind =
  /** The stream did not finish naturally (length, refusal, pause, unknown or missing finish). */
  | 'incomplete'
  /** A natural finish with no text. */
  | 'empty'
  /** The provider said the request does not fit its window; `window` carries the reported window when given. */
  | 'overflow'
  | 'http'
  | 'network'
  | 'timeout'
  | 'cancelled'
  /** The summarization-model chain ran out of models (cosh: exhaustion keeps the source). */
  | 'exhausted';

export interface SummaryError {
  readonly kind: SummaryErrorKind;
  readonly message: string;
  readonly status?: number;
  readonly window?: number;
}

/** One answered (or failed) summary request, after our retries and the model chain. */
export interface SummaryCall {
  readonly request: SummaryRequest;
  /** "provider:model" of the pinned model that produced this answer (or that failed last). */
  readonly model: string;
  /** The text, only when the finish was natural and the text non-empty (completion integrity). */
  readonly text: string | null;
  readonly finish: Finish | null;
  /** Usage is recorded even when the answer is rejected. */
  readonly usage: Usage | null;
  readonly latencyMs: number;
  /** HTTP requests made for this call, retries included. */
  readonly attempts: number;
  readonly error: SummaryError | null;
}

export interface Summarizer {
  /** Window of the model that will answer next, in tokens; null when unknown. */
  readonly window: number | null;
  /** The output ceiling the connector sends when a request leaves it to the connector; null: provider default (unknown). */
  readonly defaultMaxOutput: number | null;
  summarize(request: SummaryRequest, signal: AbortSignal): Promise<SummaryCall>;
}

/** Progress a strategy reports while it runs (shown live in the app and the CLI). */
export interface StrategyProgress {
  readonly stage: string;
  readonly done: number;
  readonly total: number | null;
  readonly message?: string;
}

export interface StrategyInput {
  readonly source: SourceView;
  readonly budget: AgentBudget;
  readonly count: TokenCounter;
  /** null for the model-free baselines. */
  readonly summarizer: Summarizer | null;
  readonly signal: AbortSignal;
  /** Strategy-specific options (validated by the strategy; unknown keys are an error). */
  readonly options?: Readonly<Record<string, unknown>>;
  readonly onProgress?: (p: StrategyProgress) => void;
}

/** The model view a strategy proposes. Kept source items keep their ids; new items have derivations. */
export interface CandidateView {
  readonly system: readonly Block[] | null;
  readonly tools: readonly ToolSchema[] | null;
  readonly items: readonly Item[];
}

export type SegmentStatus = 'accepted' | 'failed' | 'pending' | 'repartitioned';

/** cosh's MapReduce, as it ran: what the coverage chart and the reduction tree draw. */
export interface MapReduceTrace {
  readonly segments: readonly {
    readonly ordinal: number;
    /** Source item indices, inclusive. */
    readonly from: number;
    readonly to: number;
    readonly ids: readonly ItemId[];
    readonly tokens: number;
    readonly status: SegmentStatus;
    /** Which repartition round produced it (0 = the first plan). */
    readonly round: number;
  }[];
  readonly repartitions: number;
  readonly reductions: readonly { readonly level: number; readonly inputs: readonly number[]; readonly ok: boolean }[];
  readonly rereads: readonly { readonly ranges: readonly (readonly [number, number])[]; readonly ok: boolean; readonly reason?: string }[];
  readonly audits: readonly { readonly ok: boolean; readonly corrections: number; readonly findings?: string }[];
}

export type StrategyOutcome = 'committed' | 'failed' | 'fallback';

export interface StrategyResult {
  readonly strategy: string;
  /** committed: a candidate view; fallback: a degraded candidate (truncation) marked loudly; failed: the source stands. */
  readonly outcome: StrategyOutcome;
  readonly view: CandidateView | null;
  /** The summary / handoff text installed, when there is one. */
  readonly summary: string | null;
  readonly calls: readonly SummaryCall[];
  readonly error: string | null;
  /** What the strategy did, in words ("shortened 3 tool bodies (41,200 chars omitted)"). */
  readonly notes: readonly string[];
  readonly mapreduce: MapReduceTrace | null;
  /** Estimated tokens of the source view and of the candidate (same counter). */
  readonly tokens: { readonly before: number; readonly after: number | null };
}

export interface StrategyDef {
  readonly id: string;
  readonly title: string;
  /**
   * The compaction system that specifies it, by its number in docs/sources.md ("000", "001",
   * "002", "004"; STRATEGY_SOURCES names them), or "baseline".
   */
  readonly source: string;
  readonly needsModel: boolean;
  run(input: StrategyInput): Promise<StrategyResult>;
}

/** The compaction systems strategies follow, by their numbers in docs/sources.md. */
export const STRATEGY_SOURCES: Readonly<Record<string, string>> = {
  '000': 'Rind',
  '001': 'cosh',
  '002': 'Conversation Compaction',
  '004': 'DeepSeek Harness',
};

/** What a strategy's `source` says, in words: the system it follows, or "baseline". */
export function strategySource(source: string): string {
  return source === 'baseline' ? 'baseline' : (STRATEGY_SOURCES[source] ?? source);
}
