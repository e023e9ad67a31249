import type { z } from 'zod';
import {
  API_METHODS,
  CONTRACT,
  isApiMethod,
  type ApiError,
  type ApiMethod,
  type ApiOutput,
  type ApiResult,
  type ProgressEvent,
  type SessionFormat,
} from '../../shared/api/contract';
import { MAIN_BRANCH } from '../../shared/replay/branches';
import { compactionJson, countSeverities, diagnosticJson, requestJson, viewJson } from '../present/json';
import { eventSummary } from '../present/text';
import { importerById } from '../importers/registry';
import type { FormatId } from '../importers/types';
import { requestInfo } from '../../shared/replay/view';
import { WarmOpens } from './warm-opens';
import { ApiFailure, type SessionRegistry } from './sessions';
import { sessionImplementations } from './handlers-session';
import { captureImplementations } from './handlers-capture';
import { libraryImplementations } from './handlers-library';
import { healthImplementations } from './handlers-health';
import { rerunImplementations, type RerunHostOptions } from './handlers-rerun';
import { evalImplementations } from './handlers-eval';
import { exportImplementations, type SaveExport } from './handlers-export';
import { isEvalFile } from '../eval/listing';
import type { Library } from '../library/library';
import { branchOf } from './conform';
import { closeSessionTokens } from './session/tokens';
import { sessionSummary } from './session/summary';
import { depthExceeds, MAX_INPUT_DEPTH } from '../../shared/json-depth';

/**
 * The API handlers: one per contract method, shared by every transport. Each validates its input
 * and its output with the contract's schemas and returns errors as values; nothing thrown inside
 * crosses the boundary.
 */

export interface HandlerContext {
  readonly registry: SessionRegistry;
  /** The sessions the host was started with. */
  readonly initialPaths: readonly string[];
  /**
   * Captures the host was started with (`serve FILE --capture C`), joined to that one session
   * whenever it is opened, besides any the caller names.
   */
  readonly initialCaptures?: { readonly path: string; readonly captures: readonly string[] };
  /**
   * Begin opening `initialPaths` at once, for the first openSession of each to take (./warm-opens.ts):
   * a host with a window or page to load first. Default false: every open is the caller's.
   */
  readonly warmOpens?: boolean;
  /** Progress of long loads, for transports that can push it. */
  readonly onProgress?: (e: ProgressEvent) => void;
  /** Where internal errors are reported (their stacks never cross the boundary). Default: stderr. */
  readonly logError?: (method: string, err: unknown) => void;
  /** The host's library (discovery, pickers); without one, discoverSessions and pickPaths answer NOT_AVAILABLE. */
  readonly library?: Library;
  /** Re-runs (docs/rerun.md): the environment API keys and the data directory are read from, and a key store. Default: process.env, no store. */
  readonly rerun?: RerunHostOptions;
  /** Palimpsest's cache folder: token counts are kept there between runs, shared with the CLI. None: kept in memory only. */
  readonly countCacheDir?: string;
  /** Asks where to save an export (the desktop app's native dialog); without it, exportSession returns the document. */
  readonly saveExport?: SaveExport;
}

export type Handlers = { readonly [M in ApiMethod]: (input: unknown) => Promise<ApiResult<ApiOutput<M>>> };

// --- compile-time agreement between the core's types and the contract -------------------------

type DeepReadonly<T> = T extends (infer E)[]
  ? readonly DeepReadonly<E>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;
type Assert<T extends true> = T;
/** The importers' formats and the contract's are the same set (exported only so the compiler keeps it: a check, never imported). @public */
export type _FormatsAgree = Assert<[FormatId] extends [SessionFormat] ? ([SessionFormat] extends [FormatId] ? true : false) : false>;

/**
 * The value a core function produced, checked against the schema at compile time (its type must
 * fit the schema's input) and at run time (parsed: the result is exactly the contract's shape).
 */
function conform<S extends z.ZodType>(schema: S, value: DeepReadonly<z.input<S>>, what: string): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success)
    throw new ApiFailure('INTERNAL', `The core produced ${what} that does not match the API contract: ${summarizeIssues(r.error)}`);
  return r.data;
}

function summarizeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.length > 0 ? i.path.join('.') : '(input)'}: ${i.message}`)
    .join('; ');
}

type Impl = { readonly [M in ApiMethod]: (input: z.output<(typeof CONTRACT)[M]['input']>) => Promise<ApiOutput<M>> };

/** The methods, and what disposes the resources they hold (running jobs, cached traces). */
function implementations(ctx: HandlerContext): { impl: Impl; dispose(): void } {
  const { registry } = ctx;
  const out = <M extends ApiMethod>(m: M, value: DeepReadonly<z.input<(typeof CONTRACT)[M]['output']>>): ApiOutput<M> =>
    conform(CONTRACT[m].output, value, `a ${m} result`) as ApiOutput<M>;
  // Re-run jobs belong to this handler table; closing a session stops its jobs.
  const rerun = rerunImplementations(ctx);
  // Eval jobs (docs/eval.md) belong to this handler table too; they are not tied to a session.
  const evals = evalImplementations(ctx);
  // The health report's build belongs to this handler table too.
  const health = healthImplementations(ctx);
  // The session the host was started with, read while its page or window loads: the first one
  // given, which the UI opens at once (the others wait in its library).
  const warm = new WarmOpens(registry, ctx.onProgress);
  const opensFirst = ctx.initialPaths.find((p) => !isEvalFile(p));
  if (ctx.warmOpens && opensFirst !== undefined)
    warm.start(opensFirst, ctx.initialCaptures?.path === opensFirst ? ctx.initialCaptures.captures : []);

  /**
   * Opens a session the UI did not guess (./warm-opens.ts, `prepare`): the guess is let go. Its read
   * may still hold the last slot or the memory this open needs until it ends: then the open is tried
   * once more after it.
   */
  const openNotGuessed = async (path: string, format: FormatId | undefined, captures: readonly string[], session: string | undefined) => {
    const dropped = warm.forget(path);
    try {
      return await registry.open(path, format, ctx.onProgress, captures, session);
    } catch (err: unknown) {
      if (!dropped || !(err instanceof ApiFailure && err.code === 'LIMIT')) throw err;
      await dropped;
      return registry.open(path, format, ctx.onProgress, captures, session);
    }
  };

  const impl: Impl = {
    // The session inspector's methods (docs/session-view.md): ./handlers-session.ts.
    ...sessionImplementations(ctx),
    // A session joined with its captures: ./handlers-capture.ts.
    ...captureImplementations(ctx),
    // The app shell's methods (docs/session-view.md): ./handlers-library.ts.
    ...libraryImplementations(ctx),
    // Compaction health across the library's sessions (docs/health.md): ./handlers-health.ts.
    ...health.impl,
    // Re-run and compare (docs/rerun.md): ./handlers-rerun.ts.
    ...rerun.impl,
    // Offline evaluation (docs/eval.md): ./handlers-eval.ts.
    ...evals.impl,
    // Export, redacted or not (docs/export.md): ./handlers-export.ts.
    ...exportImplementations(ctx),

    async initialSessions() {
      // Eval specs and results files the host was started with are shown in the eval view, not opened as sessions.
      return out('initialSessions', { paths: ctx.initialPaths.filter((p) => !isEvalFile(p)) });
    },

    async openSession({ path, format, session, captures }) {
      if (format !== undefined && !importerById(format)) {
        throw new ApiFailure('BAD_INPUT', `Palimpsest cannot read the ${format} format yet.`);
      }
      const given = ctx.initialCaptures?.path === path ? ctx.initialCaptures.captures : [];
      const joined = [...given, ...(captures ?? [])];
      const s = (await warm.take(path, format, session, joined)) ?? (await openNotGuessed(path, format, joined, session));
      try {
        return out('openSession', sessionSummary(s));
      } catch (err: unknown) {
        registry.close(s.id);
        throw err;
      }
    },

    async prepareSession({ path }) {
      return out('prepareSession', { prepared: await warm.prepare(path) });
    },

    async openingSessions() {
      return out('openingSessions', { opening: registry.opening() });
    },

    async closeSession({ sessionId }) {
      rerun.sessionClosed(sessionId);
      return out('closeSession', { closed: registry.close(sessionId) });
    },

    async listRequests({ sessionId, branch }) {
      const s = registry.get(sessionId);
      const b = branchOf(s, branch);
      return out('listRequests', { branch: b, requests: s.inspector.replay(b).requests.map((r) => requestJson(requestInfo(r))) });
    },

    async listCompactions({ sessionId, branch }) {
      const s = registry.get(sessionId);
      const b = branchOf(s, branch);
      return out('listCompactions', {
        branch: b,
        compactions: s.inspector.replay(b).compactions.map((c) => compactionJson(c, s.inspector.summarizerCalls(c.id))),
      });
    },

    async listDiagnostics({ sessionId, branch }) {
      const s = registry.get(sessionId);
      const b = branchOf(s, branch);
      // A first view's findings are withheld: a rule may find what the lines not yet read settle.
      if (s.partial) return out('listDiagnostics', { branch: b, counts: countSeverities([]), diagnostics: [], withheld: true });
      const ds = s.inspector.diagnostics(b);
      return out('listDiagnostics', { branch: b, counts: countSeverities(ds), diagnostics: ds.map(diagnosticJson) });
    },

    async getView({ sessionId, index, branch, full }) {
      const s = registry.get(sessionId);
      const b = branchOf(s, branch);
      const view = full ? await s.inspector.fullView(index, b) : s.inspector.view(index, b);
      if (!view) {
        const n = s.inspector.replay(b).requests.length;
        throw new ApiFailure('NO_REQUEST', `No request ${index} on branch ${b}: it has ${n} request${n === 1 ? '' : 's'}.`);
      }
      return out('getView', viewJson(s.path, b, view, s.inspector.fates(index, b)));
    },

    async listEvents({ sessionId, from, count }) {
      const s = registry.get(sessionId);
      const session = s.inspector.session;
      const total = session.events.length;
      const events =
        from >= total
          ? []
          : s.inspector.events(from, Math.min(total, from + count) - 1).map((e) => {
              const loc = session.loc(e.seq);
              if (!loc) throw new Error(`event ${e.seq} has no source location`);
              return {
                seq: e.seq,
                kind: e.kind,
                branch: e.branch ?? MAIN_BRANCH,
                file: session.files[loc.file]?.path ?? '?',
                line: loc.line,
                summary: eventSummary(e),
              };
            });
      return out('listEvents', { total, from, events });
    },
  };
  return {
    impl,
    dispose() {
      warm[Symbol.dispose]();
      rerun.dispose();
      evals.dispose();
      health.dispose();
      // The token counter's workers are shared by the process's sessions; a later question starts new ones.
      closeSessionTokens().catch((err: unknown) => (ctx.logError ?? defaultLog)('dispose', err));
    },
  };
}

function toError(method: string, err: unknown, ctx: HandlerContext): ApiError {
  if (err instanceof ApiFailure) {
    if (err.code === 'INTERNAL') (ctx.logError ?? defaultLog)(method, err);
    return { code: err.code, message: err.message };
  }
  (ctx.logError ?? defaultLog)(method, err);
  return { code: 'INTERNAL', message: `${method} failed: ${err instanceof Error ? err.message : String(err)}` };
}

function defaultLog(method: string, err: unknown): void {
  process.stderr.write(`palimpsest: ${method}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
}

/**
 * The handler table of one host. It owns the re-run and eval jobs its methods start: disposing it
 * aborts them (their records say cancelled) and closes what the eval methods hold open. The
 * session registry is the host's and is disposed by the host.
 */
export type HandlerTable = Handlers & Disposable;

export function createHandlers(ctx: HandlerContext): HandlerTable {
  const { impl, dispose } = implementations(ctx);
  const handler =
    <M extends ApiMethod>(m: M) =>
    async (input: unknown): Promise<ApiResult<ApiOutput<M>>> => {
      // zod walks the input recursively: too deep a value would overflow the stack inside it.
      if (depthExceeds(input, MAX_INPUT_DEPTH)) return { ok: false, error: tooDeep(m) };
      try {
        // Inside the try: whatever validation throws is an error value like any other.
        const parsed = CONTRACT[m].input.safeParse(input ?? {});
        if (!parsed.success) return { ok: false, error: { code: 'BAD_INPUT', message: `${m}: ${summarizeIssues(parsed.error)}` } };
        const run = impl[m] as (i: unknown) => Promise<ApiOutput<M>>;
        // A call on a session keeps the session it began with open while Follow swaps in a newer one.
        const release = holdsSession(m, parsed.data) ? ctx.registry.hold(parsed.data.sessionId) : null;
        try {
          return { ok: true, value: await run(parsed.data) };
        } finally {
          release?.();
        }
      } catch (err: unknown) {
        return { ok: false, error: toError(m, err, ctx) };
      }
    };
  const table = Object.fromEntries(API_METHODS.map((m) => [m, handler(m)])) as unknown as Handlers;
  return Object.assign(table, { [Symbol.dispose]: dispose });
}

/** Whether a call works on an open session (awaitSessionChange only waits for one to change, and may wait long). */
function holdsSession(method: ApiMethod, input: unknown): input is { sessionId: string } {
  return (
    method !== 'awaitSessionChange' &&
    typeof input === 'object' &&
    input !== null &&
    typeof (input as { sessionId?: unknown }).sessionId === 'string'
  );
}

const tooDeep = (method: string): ApiError => ({
  code: 'BAD_INPUT',
  message: `${method}: the input nests arrays or objects more than ${MAX_INPUT_DEPTH} levels deep.`,
});

/**
 * Call a method by name, as transports do: an unknown name, too deep an input, and anything a
 * handler throws are error values too; it never throws.
 */
export async function dispatch(handlers: Handlers, method: string, input: unknown): Promise<ApiResult<unknown>> {
  if (!isApiMethod(method)) return { ok: false, error: { code: 'UNKNOWN_METHOD', message: `No API method "${method}".` } };
  // Measured without recursion, before anything that recurses (zod, a handler) sees the input.
  if (depthExceeds(input, MAX_INPUT_DEPTH)) return { ok: false, error: tooDeep(method) };
  try {
    return await handlers[method](input);
  } catch (err: unknown) {
    return { ok: false, error: { code: 'INTERNAL', message: `${method} failed: ${err instanceof Error ? err.message : String(err)}` } };
  }
}
