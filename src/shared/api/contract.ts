import { z } from 'zod';
import { BranchName, Count, Seq, SessionId } from './scalars';
import {
  CompactionRow,
  DiagnosticRow,
  EventRow,
  MAX_EVENT_WINDOW,
  RequestRow,
  SessionFormat,
  SessionSummary,
  SeverityCounts,
  ViewOutput,
} from './shapes';
import { API_METHODS, type ApiMethod } from './methods';
import { SESSION_CONTRACT } from './session-contract';
import { LIBRARY_CONTRACT } from './library-contract';
import { RERUN_CONTRACT, RerunProgressEvent } from './rerun-contract';
import { EVAL_CONTRACT, EvalProgressEvent } from './eval-contract';
import { CAPTURE_CONTRACT } from './capture-contract';
import { HEALTH_CONTRACT } from './health-contract';
import { EXPORT_CONTRACT } from './export-contract';
import type { Result } from '../result';

/**
 * The one API contract between the core (src/main) and any UI (docs/architecture.md: "the API
 * contract lives once"). Each method has a zod input and output schema; both transports (Electron
 * IPC and the loopback web host) serve the same handlers, which validate every input and every
 * output against these schemas. Errors cross the boundary as values (`{ ok: false, error }`), never
 * as throws.
 *
 * Output shapes are the CLI's `--json` shapes (src/main/present/json.ts): a request row is
 * `requestJson`, a compaction is `compactionJson`, a view is `viewJson`. The handlers type-check
 * those functions against these schemas, so the two cannot drift apart silently.
 */

export { API_METHODS, isApiMethod, ipcChannel, type ApiMethod } from './methods';
export * from './session-contract';
export * from './library-contract';
export * from './rerun-contract';
export * from './eval-contract';
export * from './capture-contract';
export * from './health-contract';
export * from './export-contract';
export * from './shapes';

// ---------------------------------------------------------------------------------------------
// Methods
// ---------------------------------------------------------------------------------------------

/** How long the host holds a read begun by prepareSession for the open to take (ms); the UI hints a path no more often. */
export const PREPARED_MS = 10_000;

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
      /** The session to read from a database or folder that holds several (OpenCode's); the library's `id`. */
      session: z.string().min(1).max(256).optional(),
      /** Captures of the session's wire traffic to join to it, besides those found beside it; checked like `path`. */
      captures: z.array(z.string().min(1).max(4096)).max(16).optional(),
    }),
    output: SessionSummary,
  },
  /**
   * The user is reaching for this session (pointing at its row, or its row picked with the keyboard):
   * the host may begin reading it for the openSession that may follow, which then takes the read.
   * A hint: nothing waits on it, and an open of anything else lets the read go.
   */
  prepareSession: {
    input: z.object({ path: z.string().min(1).max(4096) }),
    output: z.object({
      /** started: reading it now; waiting: read or being read already; next: read once the guess before it is in; the others: left to the open. */
      prepared: z.enum(['started', 'waiting', 'next', 'not allowed', 'too large', 'not a file']),
    }),
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
    output: z.object({
      branch: z.string(),
      counts: SeverityCounts,
      diagnostics: z.array(DiagnosticRow),
      /** true: the session is a first view (SessionSummary.partial) and its findings are withheld until the whole session is in. */
      withheld: z.boolean().optional(),
    }),
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
  // The session inspector's methods (docs/session-view.md): windows, alignment, tokens, compaction
  // detail, diffs.
  ...SESSION_CONTRACT,
  // The app shell's methods (docs/session-view.md): the library, native pickers, search in a session.
  ...LIBRARY_CONTRACT,
  // Re-run and compare (docs/rerun.md): strategies, jobs, runs, comparison, provider keys.
  ...RERUN_CONTRACT,
  // Offline evaluation (docs/eval.md): eval files, jobs, the matrix, a run's comparison.
  ...EVAL_CONTRACT,
  // A session joined with captures of its wire traffic: ./capture-contract.ts.
  ...CAPTURE_CONTRACT,
  // Compaction health across the library's sessions (docs/health.md): ./health-contract.ts.
  ...HEALTH_CONTRACT,
  // Export of a session as HTML or of a compaction as Markdown, redacted: ./export-contract.ts.
  ...EXPORT_CONTRACT,
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

/** What every API method answers with: the one Result type, with the API's structured error. */
export type ApiResult<T> = Result<T, ApiError>;

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
