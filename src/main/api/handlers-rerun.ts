import { realpath, stat } from 'node:fs/promises';
import { dirname, relative, resolve, isAbsolute } from 'node:path';
import type { z } from 'zod';
import {
  CONTRACT,
  Comparison as ComparisonSchema,
  type ApiOutput,
  type ModelSpec,
  type ProgressEvent,
  type RerunMethod,
  type RerunTarget,
} from '../../shared/api/contract';
import { compare, type Comparison } from '../../shared/compare/compare';
import type { PinnedModel } from '../../shared/rerun/pinned';
import { sameTargetSpace } from '../../shared/rerun/record';
import { STRATEGIES, STRATEGY_IDS, strategyById } from '../../shared/strategies';
import { canonicalPath } from '../files/canonical';
import { EndpointApprovals } from '../providers/endpoints';
import type { Env } from '../providers/keys';
import { pinnedOf, RerunJobs, runRow } from '../rerun/jobs';
import { originalSubject, runSubject } from '../rerun/original';
import { defaultRunsFile, readRuns, sourceIdentity, type RunsRead } from '../rerun/sidecar';
import { resolveSource } from '../rerun/source';
import { keyImplementations, type KeyVault } from './handlers-rerun-keys';
import { settingsImplementations } from './handlers-rerun-settings';
import { ApiFailure, type OpenSession, type SessionRegistry } from './sessions';
import { branchOf, contractOutput } from './conform';

/**
 * Handlers of the re-run and compare methods (src/shared/api/rerun-contract.ts; docs/rerun.md),
 * with the semantics of `palimpsest rerun | runs | compare` (src/main/cli/rerun.ts). createHandlers
 * (./handlers.ts) validates inputs and turns what is thrown here into error values; outputs are
 * checked against the contract here. Keys never leave main: the renderer gets keyStatus() only
 * (./handlers-rerun-keys.ts).
 */

/** What a host may give the re-run handlers. Default: process.env and no key store. */
export interface RerunHostOptions {
  readonly env?: Env;
  /** Stored keys (the Electron app's, over safeStorage); null: environment variables only (the web host). */
  readonly keys?: KeyVault | null;
  /**
   * Where keys may be sent besides the providers' own endpoints: what the host's user approved
   * (endpoints.ts). Default: nowhere else. Never taken from an API call.
   */
  readonly endpoints?: EndpointApprovals;
  /** Jobs running at once (default 4). */
  readonly maxJobs?: number;
}

interface RerunContext {
  readonly registry: SessionRegistry;
  readonly onProgress?: (e: ProgressEvent) => void;
  readonly logError?: (method: string, err: unknown) => void;
  readonly rerun?: RerunHostOptions;
}

type RerunImpl = { readonly [M in RerunMethod]: (input: z.output<(typeof CONTRACT)[M]['input']>) => Promise<ApiOutput<M>> };

export interface RerunHandlers {
  readonly impl: RerunImpl;
  /** A session was closed: its jobs are aborted and forgotten. */
  sessionClosed(sessionId: string): void;
  dispose(): void;
}

/** Runs a comparison may hold when the caller names none (the latest ones). */
const DEFAULT_COMPARE_RUNS = 10;
const DEFAULT_WATCH_MS = 15_000;

/** The target exists on the branch (checked before a job starts, so a typo is an error value, not a failed job). */
function checkTarget(s: OpenSession, target: RerunTarget, branch: string): void {
  const state = s.inspector.replay(branch);
  if ('request' in target) {
    const n = state.requests.length;
    if (target.request >= n)
      throw new ApiFailure('NO_REQUEST', `No request ${target.request} on branch ${branch}: it has ${n} request${n === 1 ? '' : 's'}.`);
    return;
  }
  if (!state.compactions.some((c) => c.id === target.compaction)) {
    const ids = state.compactions.map((c) => c.id);
    throw new ApiFailure(
      'BAD_INPUT',
      `No compaction "${target.compaction}" on branch ${branch}${ids.length > 0 ? `; compactions: ${ids.slice(0, 20).join(', ')}` : ' (it has none)'}.`,
    );
  }
}

function pinnedChain(specs: readonly ModelSpec[]): PinnedModel[] {
  return specs.map((spec) => {
    const p = pinnedOf(spec);
    if (!p.ok) throw new ApiFailure('BAD_INPUT', p.error);
    return p.value;
  });
}

const inside = (dir: string, path: string): boolean => {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/**
 * The session's results file (sidecar.ts's default location), refused when it would land next to
 * the session or inside a session folder: the source is read-only and harness folders are scanned.
 */
async function runsFileOf(sessionPath: string, env: Env): Promise<string> {
  const file = resolve(await defaultRunsFile(sessionPath, env));
  const real = await realpath(sessionPath);
  const folder = (await stat(real)).isDirectory();
  // Where the file would really land: the data folder (or a folder on its path) may be a link.
  const landing = await canonicalPath(file);
  if (folder ? inside(real, landing) : dirname(landing) === dirname(real)) {
    throw new ApiFailure(
      'FORBIDDEN_PATH',
      `Re-run results would be written beside the session (${file}): set PALIMPSEST_DATA_DIR to a folder elsewhere.`,
    );
  }
  return file;
}

async function readRunsOrFail(file: string): Promise<RunsRead> {
  try {
    return await readRuns(file);
  } catch (err: unknown) {
    throw new ApiFailure('UNREADABLE', `Cannot read the results file ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

type DeepReadonly<T> = T extends (infer E)[]
  ? readonly DeepReadonly<E>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

/**
 * The comparison as the contract carries it: each subject's view text is counted, not sent. Typed
 * against the contract's schema, so src/shared/compare and the contract cannot drift apart silently.
 */
function comparisonValue(c: Comparison): DeepReadonly<z.input<typeof ComparisonSchema>> {
  return {
    anchors: c.anchors,
    rows: c.rows.map((r) => {
      const { viewText, ...subject } = r.subject;
      return { ...r, subject: { ...subject, viewChars: viewText === null ? null : viewText.length } };
    }),
  };
}

export function rerunImplementations(ctx: RerunContext): RerunHandlers {
  const { registry } = ctx;
  const env = ctx.rerun?.env ?? process.env;
  const keys = ctx.rerun?.keys ?? null;
  const endpoints = ctx.rerun?.endpoints ?? new EndpointApprovals();
  const isOpen = (sessionId: string): boolean => {
    try {
      registry.get(sessionId);
      return true;
    } catch (err: unknown) {
      if (err instanceof ApiFailure) return false;
      throw err;
    }
  };
  const jobs = new RerunJobs({
    env,
    keys,
    endpoints,
    isOpen,
    ...(ctx.rerun?.maxJobs !== undefined ? { maxRunning: ctx.rerun.maxJobs } : {}),
    ...(ctx.onProgress ? { onEvent: ctx.onProgress } : {}),
    ...(ctx.logError ? { logError: ctx.logError } : {}),
  });
  const job = <T>(found: T | null, jobId: string): T => {
    if (found === null)
      throw new ApiFailure('NO_JOB', `No re-run job "${jobId}" (its session was closed, it finished long ago, or the host restarted).`);
    return found;
  };

  const impl: RerunImpl = {
    async listStrategies() {
      return contractOutput('listStrategies', {
        strategies: STRATEGIES.map((s) => ({ id: s.id, title: s.title, source: s.source, needsModel: s.needsModel })),
      });
    },

    async listRuns({ sessionId }) {
      const s = registry.get(sessionId);
      const file = await runsFileOf(s.path, env);
      const identity = await sourceIdentity(s.path);
      const { runs, problems } = await readRunsOrFail(file);
      // As `palimpsest runs`: every run of this file path; `stale` when the file changed since.
      const mine = runs.filter((r) => r.source.path === identity.path);
      return contractOutput('listRuns', { file, runs: mine.map((r) => runRow(r, identity.fingerprint)), problems });
    },

    async startRerun(input) {
      const s = registry.get(input.sessionId);
      const branch = branchOf(s, input.branch);
      if (!strategyById(input.strategy))
        throw new ApiFailure('BAD_INPUT', `Unknown strategy "${input.strategy}"; strategies: ${STRATEGY_IDS.join(', ')}.`);
      checkTarget(s, input.target, branch);
      const models = pinnedChain(input.models ?? []);
      const runsFile = await runsFileOf(s.path, env);
      const started = jobs.start(s, {
        branch,
        target: input.target,
        strategy: input.strategy,
        options: input.options ?? {},
        models,
        repeat: input.repeat ?? 1,
        runsFile,
        ...(input.window !== undefined ? { window: input.window } : {}),
        ...(input.maxOutput !== undefined ? { maxOutput: input.maxOutput } : {}),
        ...(input.mock?.latencyMs !== undefined ? { mockLatencyMs: input.mock.latencyMs } : {}),
      });
      if (!started.ok) throw new ApiFailure('LIMIT', started.message);
      return contractOutput('startRerun', started.job);
    },

    async cancelRerun({ jobId }) {
      return contractOutput('cancelRerun', job(jobs.cancel(jobId), jobId));
    },

    async watchRerun({ jobId, after, waitMs }) {
      return contractOutput('watchRerun', job(await jobs.watch(jobId, after, waitMs ?? DEFAULT_WATCH_MS), jobId));
    },

    async listRerunJobs({ sessionId }) {
      registry.get(sessionId);
      return contractOutput('listRerunJobs', { jobs: jobs.list(sessionId) });
    },

    async compareRuns({ sessionId, branch: b, target, runIds }) {
      const s = registry.get(sessionId);
      const branch = branchOf(s, b);
      checkTarget(s, target, branch);
      const src = await resolveSource(s.inspector, target, branch);
      if (!src.ok) throw new ApiFailure('BAD_INPUT', src.error);
      const file = await runsFileOf(s.path, env);
      const identity = await sourceIdentity(s.path);
      const { runs } = await readRunsOrFail(file);
      const key = JSON.stringify(target);
      // The app re-runs from the log: a request run made with `--capture` indexes another list.
      const ofTarget = runs.filter(
        (r) => r.source.path === identity.path && JSON.stringify(r.target) === key && r.branch === branch && sameTargetSpace(r, []),
      );
      const wanted = runIds === undefined ? null : new Set(runIds);
      const chosen = wanted === null ? ofTarget.slice(-DEFAULT_COMPARE_RUNS) : ofTarget.filter((r) => wanted.has(r.runId));
      const found = new Set(chosen.map((r) => r.runId));
      const subjects = [];
      if ('compaction' in target) {
        const o = await originalSubject(s.inspector, target.compaction, branch);
        if (o) subjects.push(o);
      }
      subjects.push(...chosen.map(runSubject));
      const note =
        subjects.length >= 2
          ? null
          : `Nothing to compare yet: ${ofTarget.length} run${ofTarget.length === 1 ? '' : 's'} of this target${chosen.length < ofTarget.length ? ` (${chosen.length} chosen)` : ''}. Re-run it first.`;
      return contractOutput('compareRuns', {
        file,
        branch,
        comparison: comparisonValue(compare(src.source.view.items, subjects)),
        stale: chosen.filter((r) => r.source.fingerprint !== identity.fingerprint).map((r) => r.runId),
        missing: (runIds ?? []).filter((id) => !found.has(id)),
        note,
      });
    },

    // Provider keys: ./handlers-rerun-keys.ts.
    ...keyImplementations(env, keys),
    // The summarization chain kept in settings: ./handlers-rerun-settings.ts.
    ...settingsImplementations(env),
  };

  return { impl, sessionClosed: (id) => jobs.sessionClosed(id), dispose: () => jobs.dispose() };
}
