import { z } from 'zod';
import { BranchName, Count, Seq, SessionId, Tokens } from './scalars';
import { Block, ToolSchema } from '../model/content';
import { Diagnostic } from '../model/diagnostic';
import { CompactionOutcome, CompactionTrigger, Finish, Ref, Usage } from '../model/event';
import { Derivation, ItemId, Role, type ItemKind } from '../model/item';
import { API_METHODS, type ApiMethod } from './methods';
import { SESSION_CONTRACT } from './session-contract';
import { LIBRARY_CONTRACT } from './library-contract';
import { RERUN_CONTRACT, RerunProgressEvent } from './rerun-contract';
import { EVAL_CONTRACT, EvalProgressEvent } from './eval-contract';
import { CAPTURE_CONTRACT } from './capture-contract';

/**
 * The one API contract between the core (src/main) and any UI (DESIGN.md: "the API contract lives
 * once"). Each method has a zod input and output schema; both transports (Electron IPC and the
 * loopback web host) serve the same handlers, which validate every input and every output against
 * these schemas. Errors cross the boundary as values (`{ ok: false, error }`), never as throws.
 *
 * Output shapes are the CLI's `--json` shapes (src/main/cli/json.ts): a request row is
 * `requestJson`, a compaction is `compactionJson`, a view is `viewJson`. The handlers type-check
 * those functions against these schemas, so the two cannot drift apart silently.
 */

export { API_METHODS, isApiMethod, ipcChannel, type ApiMethod } from './methods';
export * from './session-contract';
export * from './library-contract';
export * from './rerun-contract';
export * from './eval-contract';
export * from './capture-contract';

/** Error as a log records it (a provider error, a summarizer failure). */
const LoggedError = z.object({ code: z.string().optional(), message: z.string() });

/** Session formats the core can load (src/main/importers/types.ts `FormatId`; the handlers check they agree). */
export const SessionFormat = z.enum(['palimpsest', 'dsh', 'claude-code', 'codex', 'rind', 'cosh']);
export type SessionFormat = z.infer<typeof SessionFormat>;

const ITEM_KINDS = ['system', 'user', 'assistant', 'tool_call', 'tool_result', 'reasoning', 'checkpoint', 'pruned', 'marker'] as const satisfies readonly ItemKind[];
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
  mapreduce: z.object({
    stagings: Count, maps: Count, repartitions: Count, reductions: Count, rereads: Count, audits: Count, corrections: Count,
  }).nullable(),
  seqs: z.array(Seq),
});
export type CompactionRow = z.infer<typeof CompactionRow>;

export const DiagnosticRow = Diagnostic;
export type DiagnosticRow = z.infer<typeof DiagnosticRow>;

/** The fate of a raw item at a request (`fateJson`): exactly one of DESIGN.md's fates. */
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
  todo: z.object({
    todos: z.array(z.object({ content: z.string(), status: z.string() })),
    after: ItemId.nullable(),
    seq: Seq,
  }).nullable(),
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

// ---------------------------------------------------------------------------------------------
// Methods
// ---------------------------------------------------------------------------------------------

const WithSession = z.object({ sessionId: SessionId });
const WithBranch = WithSession.extend({ branch: BranchName.optional() });

export const CONTRACT = {
  /** The sessions the host was started with (`palimpsest serve <paths>`, or the Electron command line). */
  initialSessions: {
    input: z.object({}),
    output: z.object({ paths: z.array(z.string()) }),
  },
  openSession: {
    input: z.object({
      path: z.string().min(1).max(4096),
      format: SessionFormat.optional(),
      /** Captures of the session's wire traffic to join to it, besides those found beside it; checked like `path`. */
      captures: z.array(z.string().min(1).max(4096)).max(16).optional(),
    }),
    output: SessionSummary,
  },
  closeSession: {
    input: WithSession,
    output: z.object({ closed: z.boolean() }),
  },
  /** Opens under way in this host and how far each has got (reading: bytes of the file; then replaying and checking). */
  openingSessions: {
    input: z.object({}),
    output: z.object({ opening: z.array(z.lazy(() => OpenSessionProgress)) }),
  },
  listRequests: {
    input: WithBranch,
    output: z.object({ branch: z.string(), requests: z.array(RequestRow) }),
  },
  listCompactions: {
    input: WithBranch,
    output: z.object({ branch: z.string(), compactions: z.array(CompactionRow) }),
  },
  listDiagnostics: {
    input: WithBranch,
    output: z.object({ branch: z.string(), counts: SeverityCounts, diagnostics: z.array(DiagnosticRow) }),
  },
  getView: {
    input: WithBranch.extend({
      index: z.number().int().nonnegative(),
      /** Re-read elided long texts from the source (slower); otherwise long texts are previews with `elided` counts. */
      full: z.boolean().optional(),
    }),
    output: ViewOutput,
  },
  listEvents: {
    input: WithSession.extend({ from: Seq, count: z.number().int().positive().max(MAX_EVENT_WINDOW) }),
    output: z.object({ total: Count, from: Seq, events: z.array(EventRow) }),
  },
  // The session inspector's methods (issue #7): windows, alignment, tokens, compaction detail, diffs.
  ...SESSION_CONTRACT,
  // The app shell's methods (issue #7): the library, native pickers, search in a session.
  ...LIBRARY_CONTRACT,
  // Re-run and compare (issue #8): strategies, jobs, runs, comparison, provider keys.
  ...RERUN_CONTRACT,
  // Offline evaluation (issue #9): eval files, jobs, the matrix, a run's comparison.
  ...EVAL_CONTRACT,
  // A session joined with captures of its wire traffic: ./capture-contract.ts.
  ...CAPTURE_CONTRACT,
} as const satisfies { readonly [M in ApiMethod]: { readonly input: z.ZodType; readonly output: z.ZodType } };

// CONTRACT has exactly the methods of API_METHODS (the `satisfies` rejects extra and missing keys).
const _sameMethods: readonly (keyof typeof CONTRACT)[] = API_METHODS;

// ---------------------------------------------------------------------------------------------
// Results, errors and progress
// ---------------------------------------------------------------------------------------------

export const ApiErrorCode = z.enum([
  /** The input does not match the method's schema. */
  'BAD_INPUT',
  'UNKNOWN_METHOD',
  /** No open session with that id. */
  'NO_SESSION',
  'NO_BRANCH',
  'NO_REQUEST',
  /** The host does not allow opening that path. */
  'FORBIDDEN_PATH',
  /** The file cannot be read as a session (missing, unknown format, empty). */
  'UNREADABLE',
  /** Too many open sessions. */
  'LIMIT',
  /** A bug: the core broke the contract or threw. */
  'INTERNAL',
  /** Client side: the host could not be reached, or answered outside the contract (not authorised, gone). */
  'TRANSPORT',
  /** This host cannot do that (a native dialog in the browser, storing an API key without encryption): the message says what to do instead. */
  'NOT_AVAILABLE',
  /** No re-run job with that id (it finished long ago, its session was closed, or the host restarted). */
  'NO_JOB',
]);
export type ApiErrorCode = z.infer<typeof ApiErrorCode>;

export const ApiError = z.object({ code: ApiErrorCode, message: z.string() });
export type ApiError = z.infer<typeof ApiError>;

export type ApiResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: ApiError };

/** The envelope every transport carries. The value is validated by the method's output schema. */
export const ApiResultEnvelope = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), value: z.unknown() }),
  z.object({ ok: z.literal(false), error: ApiError }),
]);

/**
 * Phases of long operations. openSession: reading, replaying, checking (the diagnostics), done, failed. A re-run job
 * (RerunProgressEvent, ./rerun-contract.ts): running, done, failed, cancelled. One enum, so that
 * `ProgressEvent['phase']` stays a single type for code written before the union.
 */
export const ProgressPhase = z.enum(['reading', 'replaying', 'checking', 'running', 'done', 'failed', 'cancelled']);

/** Progress of loading a large session. */
export const OpenSessionProgress = z.object({
  operation: z.literal('openSession'),
  path: z.string(),
  phase: ProgressPhase,
  /**
   * Work done and total, null when unknown: while reading, bytes of the file (no total for a
   * folder); while replaying, events of the session; while checking, rules of the diagnostics
   * catalog; done and failed, bytes of the file again.
   */
  done: Count.nullable(),
  total: Count.nullable(),
});

export type OpenSessionProgress = z.infer<typeof OpenSessionProgress>;

/** Progress of a long operation: loading a large session, a re-run job, or an eval job (EvalProgressEvent, ./eval-contract.ts). */
export const ProgressEvent = z.discriminatedUnion('operation', [OpenSessionProgress, RerunProgressEvent, EvalProgressEvent]);
export type ProgressEvent = z.infer<typeof ProgressEvent>;

// ---------------------------------------------------------------------------------------------
// Types derived from the schemas
// ---------------------------------------------------------------------------------------------

export type ApiInput<M extends ApiMethod> = z.input<(typeof CONTRACT)[M]['input']>;
export type ApiOutput<M extends ApiMethod> = z.output<(typeof CONTRACT)[M]['output']>;

type ApiMethods = { readonly [M in ApiMethod]: (input: ApiInput<M>) => Promise<ApiResult<ApiOutput<M>>> };

/** What a UI talks to. Implemented by the Electron preload bridge and by the web client. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface PalimpsestApi extends ApiMethods {}
