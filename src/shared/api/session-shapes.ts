import { z } from 'zod';
import { Count, Seq, Tokens } from './scalars';
import { Diagnostic } from '../model/diagnostic';
import { BudgetPolicy, CompactionOutcome, CompactionTrigger, Finish, Usage } from '../model/event';
import { ItemId } from '../model/item';
import { CATEGORIES } from '../forensics/categories';
import { BREAK_CAUSES } from '../tokens/cache-break';
import { TOKEN_CATEGORIES } from '../tokens/categories';
import { CompactionRow } from './shapes';

/** Shapes of the token meter and of compaction detail (docs/session-view.md), used by ./session-contract.ts. */

const LoggedError = z.object({ code: z.string().optional(), message: z.string() });

/** A long text, whole up to a cap (`truncated` says the cap was hit). Session content: render as text. */
export const LongText = z.object({ text: z.string(), chars: Count, truncated: z.boolean() });
export type LongText = z.infer<typeof LongText>;

export const CountingStatus = z.object({
  /** estimate: nothing counted yet (figures from characters); counting: in the background; done; failed. */
  state: z.enum(['estimate', 'counting', 'done', 'failed']),
  refs: Count,
  totalRefs: Count,
  error: z.string().nullable(),
});
export type CountingStatus = z.infer<typeof CountingStatus>;

export const PolicyLinesRow = z.object({
  window: Tokens.nullable(),
  windowSource: z.enum(['log', 'policy']).nullable(),
  trigger: Tokens.nullable(),
  reactive: Tokens.nullable(),
  rawTail: Tokens.nullable(),
  rawTailMessages: Count.nullable(),
  outputReserve: Tokens.nullable(),
  headroom: Tokens.nullable(),
});
export type PolicyLinesRow = z.infer<typeof PolicyLinesRow>;

export const PolicyInfo = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  measure: z.enum(['context', 'next', 'projected']),
  trigger: z.string(),
  reactive: z.string().nullable(),
  rawTail: z.string().nullable(),
  rawTailMessages: Count.nullable(),
  outputReserve: z.string().nullable(),
  headroom: z.string().nullable(),
  sources: z.record(z.string(), z.string()),
  edited: z.array(z.string()),
});
export type PolicyInfo = z.infer<typeof PolicyInfo>;

export const TokenCategoryName = z.enum(TOKEN_CATEGORIES);
export const ByCategory = z.record(TokenCategoryName, z.number().nonnegative());
export type ByCategory = z.infer<typeof ByCategory>;

export const PolicyVerdictRow = z.object({
  state: z.enum(['below', 'trigger', 'reactive', 'over-window', 'no-window']),
  size: z.number(),
  sizeSource: z.enum(['reported', 'estimated', 'estimated+envelope']),
  measured: z.number(),
  fill: z.number().nullable(),
  wouldTrigger: z.boolean(),
});

export const TokenMeter = z.object({
  index: Count,
  encoding: z.object({ name: z.string(), exact: z.boolean(), note: z.string().nullable() }),
  counting: CountingStatus,
  /** Local count of what the log shows the model saw (an estimate of the provider's figure). */
  total: Tokens,
  /** Part of total still estimated from characters. */
  uncounted: Tokens,
  byCategory: ByCategory,
  uncountable: z.object({ images: Count, opaque: Count, redacted: Count }),
  unloggedSystem: z.boolean(),
  unloggedTools: z.boolean(),
  maskedUnknown: Count,
  /** The provider's figure (authoritative); null without usage. */
  reportedTokens: Tokens.nullable(),
  ratio: z.number().nullable(),
  unlogged: z.number().nullable(),
  /** The session report these figures came from (verdict, unlogged, envelope) is being built or rebuilt: ask again. */
  pending: z.boolean(),
  /** The fitted unlogged envelope (E tokens, k provider tokens per counted token), when measured. */
  envelope: z.object({ tokens: z.number(), ratio: z.number() }).nullable(),
  policy: PolicyInfo,
  /** A policy spec that could not be read (the default policy is used instead). */
  policyError: z.string().nullable(),
  lines: PolicyLinesRow,
  verdict: PolicyVerdictRow.nullable(),
});
export type TokenMeter = z.infer<typeof TokenMeter>;

const BreakCauseShape = z.enum(BREAK_CAUSES);

/** A request's prompt-cache break (src/shared/tokens/cache-break.ts). */
export const CacheBreakRow = z.object({
  cause: BreakCauseShape,
  tokens: Tokens,
  /** USD beyond a cache read; null when no price is known. */
  cost: z.number().nonnegative().nullable(),
  previous: Count.nullable(),
  expected: Tokens,
  read: Tokens,
  gapMs: z.number().nonnegative().nullable(),
  certain: z.boolean(),
  why: z.string(),
});
export type CacheBreakRow = z.infer<typeof CacheBreakRow>;

export const TokenPoint = z.object({
  index: Count,
  seq: Seq,
  purpose: z.string(),
  estimated: Tokens,
  uncounted: Tokens,
  reported: Tokens.nullable(),
  /** The size the policy judges (reported when there is a report), null for summarizer calls. */
  size: z.number().nullable(),
  window: Tokens.nullable(),
  trigger: Tokens.nullable(),
  state: PolicyVerdictRow.shape.state.nullable(),
  cacheBreak: CacheBreakRow.nullable(),
});
export type TokenPoint = z.infer<typeof TokenPoint>;

export const TokenSeries = z.object({
  counting: CountingStatus,
  /**
   * The session's report is still being built in the background (seconds on a long session): the
   * points are empty or from an earlier build; ask again.
   */
  pending: z.boolean(),
  policy: PolicyInfo,
  policyError: z.string().nullable(),
  points: z.array(TokenPoint),
  /** Compactions of the log, at the request after which they started. */
  compactions: z.array(z.object({ id: z.string(), seq: Seq, afterIndex: Count.nullable(), outcome: CompactionOutcome.nullable() })),
  /** Requests after which the policy would compact, and how that compares with the log. */
  triggers: z.array(Count),
  matched: z.array(Count),
  unpredicted: z.array(Count),
  extra: z.array(Count),
  /** The branch's prompt-cache breaks: count, tokens not read from the cache, cost (null: unpriced), by cause. */
  cacheBreaks: z.object({
    count: Count,
    tokens: Tokens,
    cost: z.number().nonnegative().nullable(),
    byCause: z.partialRecord(BreakCauseShape, z.object({ count: Count, tokens: Tokens })),
  }),
});
export type TokenSeries = z.infer<typeof TokenSeries>;

const Segment = z.object({ ordinal: Count, items: z.array(ItemId) });

export const CoverageSegment = z.object({
  ordinal: Count,
  items: z.array(ItemId),
  /** The latest map of this ordinal, or pending (no map yet). */
  status: z.enum(['accepted', 'rejected', 'failed', 'pending']),
  /** The staging or repartition event that set it. */
  from: Seq,
});
export type CoverageSegment = z.infer<typeof CoverageSegment>;

export const MapReduceDetail = z.object({
  stagings: z.array(z.object({ seq: Seq, version: z.number().int().nullable(), fingerprint: z.string(), segments: z.array(Segment) })),
  maps: z.array(
    z.object({
      seq: Seq,
      ordinal: Count,
      status: z.enum(['accepted', 'rejected', 'failed']),
      request: z.string().nullable(),
      finish: Finish.nullable(),
      usage: Usage.nullable(),
      summary: LongText.nullable(),
    }),
  ),
  repartitions: z.array(z.object({ seq: Seq, attempt: Count, replaces: z.array(Count).nullable(), segments: z.array(Segment) })),
  reductions: z.array(
    z.object({
      seq: Seq,
      level: Count,
      inputs: z.array(Count),
      final: z.boolean(),
      request: z.string().nullable(),
      finish: Finish.nullable(),
      usage: Usage.nullable(),
      output: LongText.nullable(),
    }),
  ),
  rereads: z.array(
    z.object({
      seq: Seq,
      ranges: z.array(z.object({ from: ItemId, to: ItemId })),
      status: z.string(),
      reduction: z.object({ level: Count, index: Count }).nullable(),
    }),
  ),
  audits: z.array(z.object({ seq: Seq, verdict: z.enum(['pass', 'fail']), issues: z.array(z.string()), request: z.string().nullable() })),
  corrections: z.array(
    z.object({ seq: Seq, n: Count, accepted: z.boolean(), request: z.string().nullable(), output: LongText.nullable() }),
  ),
  /** The items along the axis (the source range, else every item a segment names) and the segments in force at the end. */
  coverage: z.object({
    axis: z.array(z.object({ id: ItemId, seq: Seq.nullable() })),
    segments: z.array(CoverageSegment),
    /** The event the segmentation is read at (the commit, else the last MapReduce event). */
    atSeq: Seq.nullable(),
  }),
});
export type MapReduceDetail = z.infer<typeof MapReduceDetail>;

export const SummarizerCall = z.object({
  /** Position among the requests of the selected branch; null when it is on another branch. */
  index: Count.nullable(),
  id: z.string(),
  branch: z.string(),
  purpose: z.string(),
  seq: Seq.nullable(),
  provider: z.string().nullable(),
  model: z.string().nullable(),
  window: Tokens.nullable(),
  maxOutput: Tokens.nullable(),
  finish: Finish.nullable(),
  usage: Usage.nullable(),
  error: LoggedError.nullable(),
  /** Items the call sent (its own input), or null when it sent the surface. */
  inputItems: Count.nullable(),
  /** The instruction; null: none logged (see instructionUnknown). */
  instruction: LongText.nullable(),
  instructionUnknown: z.boolean(),
});
export type SummarizerCall = z.infer<typeof SummarizerCall>;

const CategoryShape = z.enum(CATEGORIES);

/** What the compaction's summary and kept items preserved of the items it replaced (src/shared/forensics/). */
export const CompactionSurvivalShape = z.object({
  survival: z.record(
    CategoryShape,
    z.object({ total: Count, verbatim: Count, normalised: Count, lost: Count, rate: z.number().min(0).max(1).nullable() }),
  ),
  /** The anchors lost, in category order, at most MAX_LOST_SHOWN of them (`lostTotal` counts all). */
  lost: z.array(z.object({ category: CategoryShape, text: z.string(), seq: Seq })),
  lostTotal: Count,
  replaced: Count,
  kept: Count,
  /** Part of the summary could not be read (encrypted): what it preserved is not counted. */
  opaque: z.boolean(),
});
export type CompactionSurvivalShape = z.infer<typeof CompactionSurvivalShape>;

/** Lost anchors sent to the panel: enough to read, bounded on a compaction of thousands. */
export const MAX_LOST_SHOWN = 300;

export const CompactionDetail = z.object({
  row: CompactionRow,
  trigger: CompactionTrigger,
  policy: BudgetPolicy.nullable(),
  preTokens: Tokens.nullable(),
  projectedTokens: Tokens.nullable(),
  source: z.array(z.object({ id: ItemId, seq: Seq.nullable(), kind: z.string(), role: z.string() })),
  bracket: z.object({
    startSeq: Seq.nullable(),
    endSeq: Seq.nullable(),
    events: z.array(z.object({ seq: Seq, kind: z.string(), label: z.string() })),
    /** The last request before the compaction started, and the first after it ended. */
    requestBefore: Count.nullable(),
    requestAfter: Count.nullable(),
  }),
  summarizer: z.array(SummarizerCall),
  summaries: z.array(
    z.object({
      seq: Seq,
      text: LongText,
      finish: Finish.nullable(),
      usage: Usage.nullable(),
      sourceTokens: Tokens.nullable(),
      request: z.string().nullable(),
    }),
  ),
  errors: z.array(z.object({ seq: Seq, error: LoggedError, finish: Finish.nullable(), usage: Usage.nullable() })),
  checkpoints: z.array(z.object({ id: ItemId, seq: Seq, text: LongText })),
  diagnostics: z.array(Diagnostic),
  mapreduce: MapReduceDetail.nullable(),
  /** Null when the compaction replaced nothing (failed, rejected, still open). */
  survival: CompactionSurvivalShape.nullable(),
});
export type CompactionDetail = z.infer<typeof CompactionDetail>;
