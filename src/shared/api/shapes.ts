import { z } from 'zod';
import { Count, Seq, SessionId, Tokens } from './scalars';
import { Block, ToolSchema } from '../model/content';
import { Diagnostic } from '../model/diagnostic';
import { CompactionOutcome, CompactionTrigger, Finish, Ref, Usage } from '../model/event';
import { Derivation, ItemId, Role, type ItemKind } from '../model/item';

/*
 * The rows and outputs of the session methods: a session, a request, a compaction, a fate, a view,
 * an event. ./contract.ts re-exports them (import them from there); they have a module of their own
 * so that ./session-contract.ts and ./session-shapes.ts can build on them while ./contract.ts builds
 * on those two, with every import going one way.
 */

/** Error as a log records it (a provider error, a summarizer failure). */
const LoggedError = z.object({ code: z.string().optional(), message: z.string() });

/** Session formats the core can load (src/main/importers/types.ts `FormatId`; the handlers check they agree). */
export const SessionFormat = z.enum(['palimpsest', 'dsh', 'claude-code', 'codex', 'rind', 'cosh', 'gemini-cli', 'opencode']);
export type SessionFormat = z.infer<typeof SessionFormat>;

const ITEM_KINDS = [
  'system',
  'user',
  'assistant',
  'tool_call',
  'tool_result',
  'reasoning',
  'checkpoint',
  'pruned',
  'marker',
] as const satisfies readonly ItemKind[];
export const ItemKindSchema = z.enum(ITEM_KINDS);
// Every ItemKind is listed (the reverse of the `satisfies` above).
const _allItemKinds: readonly (typeof ITEM_KINDS)[number][] = [] as ItemKind[];

// ---------------------------------------------------------------------------------------------
// Shapes
// ---------------------------------------------------------------------------------------------

export const SessionFileInfo = z.object({
  path: z.string(),
  format: SessionFormat,
  bytes: Count,
  lines: Count,
  records: Count,
  skipped: Count,
});

export const SeverityCounts = z.object({ error: Count, warning: Count, info: Count });

export const SessionCounts = z.object({
  events: Count,
  items: Count,
  requests: Count,
  compactions: Count,
  diagnostics: SeverityCounts,
});

export const BranchRow = z.object({
  name: z.string(),
  forkedFrom: Ref.nullable(),
  events: Count,
  lastSeq: Seq,
});

/** A capture joined to the session (`palimpsest record`, claude-trace, HAR): its exchanges, and how many were this session's. */
export const CaptureInfo = z.object({
  path: z.string(),
  format: z.string(),
  exchanges: Count,
  /** Exchanges joined to this session's requests (the rest were other sessions' or not model calls). */
  taken: Count,
  /** Lines of the capture that could not be read. */
  skipped: Count,
});
export type CaptureInfo = z.infer<typeof CaptureInfo>;

/**
 * A first view of a large session file: its first whole lines, read and shown at once, while the
 * whole file is read behind it and then takes its place under the same session id.
 */
export const PartialLoad = z.object({
  /** Bytes of the file the first view was read from (its first whole lines). */
  read: Count,
  /** Bytes of the whole file. */
  total: Count,
  /**
   * How far the load of the whole session has got, as OpenSessionProgress says it: reading (bytes
   * of the file), replaying (events), checking (rules); failed: it stopped, and this first view is
   * all there is (`error` says why).
   */
  phase: z.enum(['reading', 'replaying', 'checking', 'failed']),
  done: Count.nullable(),
  of: Count.nullable(),
  error: z.string().nullable(),
});
export type PartialLoad = z.infer<typeof PartialLoad>;

export const SessionSummary = z.object({
  sessionId: SessionId,
  /** The first file of the session, as opened. */
  path: z.string(),
  format: SessionFormat,
  files: z.array(SessionFileInfo),
  /** Counts of the default branch. */
  counts: SessionCounts,
  branches: z.array(BranchRow),
  defaultBranch: z.string(),
  /** Captures joined to the default branch (named on open, or found beside the session); absent or empty: none. */
  captures: z.array(CaptureInfo).optional(),
  /**
   * Present while the session is a first view of a large file (PartialLoad): counts and branches
   * are those of the lines read so far, not of the session, and findings are withheld
   * (`counts.diagnostics` all 0, listDiagnostics `withheld`) until the whole session is in.
   */
  partial: PartialLoad.optional(),
});
export type SessionSummary = z.infer<typeof SessionSummary>;

/** One model call (`requestJson`). null: the log does not say. */
export const RequestRow = z.object({
  index: Count,
  id: z.string(),
  seq: Seq,
  purpose: z.string(),
  compactionId: z.string().nullable(),
  provider: z.string().nullable(),
  model: z.string().nullable(),
  window: Tokens.nullable(),
  maxOutput: Tokens.nullable(),
  /** input + cache reads + cache writes, as the provider reported it. */
  reportedInputTokens: Tokens.nullable(),
  /** Palimpsest's own estimate of the view (inspect only); null where not counted. */
  estimatedTokens: Tokens.nullable(),
  outputTokens: Tokens.nullable(),
  usage: Usage.nullable(),
  finish: Finish.nullable(),
  error: LoggedError.nullable(),
  responseSeq: Seq.nullable(),
  /** Where the request is known from: always the log here (a capture's wire-only requests are listTimeline's). */
  source: z.enum(['log', 'wire', 'both']).optional(),
  /** The HTTP status: null, as the log does not record it. */
  status: z.number().int().nullable().optional(),
});
export type RequestRow = z.infer<typeof RequestRow>;

/** One compaction attempt (`compactionJson`). */
export const CompactionRow = z.object({
  id: z.string(),
  trigger: CompactionTrigger,
  /** null: the compaction never ended and committed nothing (an open bracket). */
  outcome: CompactionOutcome.nullable(),
  preTokens: Tokens.nullable(),
  postTokens: Tokens.nullable(),
  strategy: z.string().nullable(),
  startSeq: Seq.nullable(),
  endSeq: Seq.nullable(),
  checkpoints: z.array(z.string()),
  summarizerRequests: z.array(z.string()),
  summarizerRequestsElsewhere: z.array(z.object({ id: z.string(), branch: z.string() })),
  finish: Finish.nullable(),
  error: LoggedError.nullable(),
  fallback: z.object({ kind: z.string(), marker: z.boolean() }).nullable(),
  mapreduce: z
    .object({
      stagings: Count,
      maps: Count,
      repartitions: Count,
      reductions: Count,
      rereads: Count,
      audits: Count,
      corrections: Count,
    })
    .nullable(),
  seqs: z.array(Seq),
});
export type CompactionRow = z.infer<typeof CompactionRow>;

export const DiagnosticRow = Diagnostic;
export type DiagnosticRow = z.infer<typeof DiagnosticRow>;

/** The fate of a raw item at a request (`fateJson`): exactly one of the fates (docs/architecture.md). */
const fateOf = { id: ItemId, seq: Seq };
export const FateRow = z.discriminatedUnion('fate', [
  z.object({ ...fateOf, fate: z.literal('verbatim') }),
  z.object({ ...fateOf, fate: z.literal('masked') }),
  z.object({ ...fateOf, fate: z.literal('pruned'), by: ItemId }),
  z.object({ ...fateOf, fate: z.literal('summarised'), compactionId: z.string(), by: ItemId }),
  z.object({ ...fateOf, fate: z.literal('dropped'), reason: z.string(), by: ItemId.optional() }),
  z.object({ ...fateOf, fate: z.literal('reinjected'), by: ItemId }),
]);
export type FateRow = z.infer<typeof FateRow>;
export type FateName = FateRow['fate'];
export const FATE_NAMES = ['verbatim', 'masked', 'pruned', 'summarised', 'dropped', 'reinjected'] as const satisfies readonly FateName[];

export const ViewItemRow = z.object({
  id: ItemId,
  seq: Seq,
  role: Role,
  kind: ItemKindSchema,
  rendition: z.enum(['verbatim', 'masked']),
  meta: z.boolean(),
  derivation: Derivation.nullable(),
  provenance: z.array(Seq),
  /** What the model saw; for a masked item the recorded reference, or null when the log does not say. */
  blocks: z.array(Block).nullable(),
});
export type ViewItemRow = z.infer<typeof ViewItemRow>;

/** The model view at one request, with the fates of raw items (`viewJson`). */
export const ViewOutput = z.object({
  palimpsest: z.number().int(),
  path: z.string(),
  branch: z.string(),
  request: RequestRow,
  /** null: the log does not record the system prompt. */
  system: z.array(Block).nullable(),
  /** null: the log does not record the tool schemas. */
  tools: z.array(ToolSchema).nullable(),
  headerSeqs: z.array(Seq),
  items: z.array(ViewItemRow),
  todo: z
    .object({
      todos: z.array(z.object({ content: z.string(), status: z.string() })),
      after: ItemId.nullable(),
      seq: Seq,
    })
    .nullable(),
  /** What the view cannot know from the log, in words. */
  unknowns: z.array(z.string()),
  fates: z.array(FateRow),
});
export type ViewOutput = z.infer<typeof ViewOutput>;

export const EventRow = z.object({
  seq: Seq,
  kind: z.string(),
  branch: z.string(),
  /** Path of the file the event was read from. */
  file: z.string(),
  /** 1-based line in that file. */
  line: z.number().int().positive(),
  /** One line of text, for display. Session content: render it as text, never as markup. */
  summary: z.string(),
});
export type EventRow = z.infer<typeof EventRow>;

/** Most events one `listEvents` call returns. */
export const MAX_EVENT_WINDOW = 1000;
