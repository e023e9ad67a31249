import { resolve } from 'node:path';
import type { z } from 'zod';
import { CONTRACT, type ApiOutput, type EvalMethod, type EvalProgressEvent } from '../../shared/api/contract';
import type { Shard } from '../../shared/eval/cells';
import type { Library } from '../library/library';
import type { EndpointApprovals } from '../providers/endpoints';
import type { Env, KeyReader } from '../providers/keys';
import { runDetail, TraceCache } from '../eval/detail';
import { EvalJobs } from '../eval/jobs';
import { envWithStoredKeys } from '../eval/keys-env';
import { listEvalFiles } from '../eval/listing';
import { openResults } from '../eval/open';
import { EvalPaths } from '../eval/paths';
import { defaultResultsFile } from '../eval/prepare';
import { readResults } from '../eval/results-file';
import { readSpec, readSpecInfo, type SpecInfo } from '../eval/spec-info';
import { ApiFailure } from './sessions';
import { contractOutput } from './conform';

/**
 * Handlers of the offline-evaluation methods (src/shared/api/eval-contract.ts; docs/eval.md, "In
 * the app"). createHandlers (./handlers.ts) validates inputs and turns what is thrown here into
 * error values; outputs are checked against the contract here. Every path goes through EvalPaths
 * (src/main/eval/paths.ts): the host's path policy, plus its own results folder.
 */

interface EvalContext {
  readonly initialPaths: readonly string[];
  readonly library?: Library;
  readonly onProgress?: (e: EvalProgressEvent) => void;
  readonly logError?: (method: string, err: unknown) => void;
  readonly rerun?: { readonly env?: Env; readonly keys?: KeyReader | null; readonly endpoints?: EndpointApprovals };
}

type EvalImpl = { readonly [M in EvalMethod]: (input: z.output<(typeof CONTRACT)[M]['input']>) => Promise<ApiOutput<M>> };

export interface EvalHandlers {
  readonly impl: EvalImpl;
  dispose(): void;
}

const DEFAULT_WATCH_MS = 15_000;

async function allowed(check: Promise<{ ok: true; path: string } | { ok: false; message: string }>): Promise<string> {
  const r = await check;
  if (!r.ok) throw new ApiFailure('FORBIDDEN_PATH', r.message);
  return r.path;
}

export function evalImplementations(ctx: EvalContext): EvalHandlers {
  const env = ctx.rerun?.env ?? process.env;
  const paths = new EvalPaths(ctx.library ?? null, ctx.initialPaths, env);
  const jobs = new EvalJobs({
    ...(ctx.onProgress ? { onEvent: ctx.onProgress } : {}),
    ...(ctx.logError ? { logError: ctx.logError } : {}),
  });
  const traces = new TraceCache();
  /** Spec files used in this host, by spec name: a results file of that name gets its thresholds. */
  const specByName = new Map<string, string>();

  const folders = async (): Promise<string[]> => {
    if (!ctx.library) return [];
    const d = await ctx.library.discover(false);
    return d.roots.filter((r) => r.harness === null && r.exists).map((r) => r.path);
  };

  const specInfo = async (path: string): Promise<SpecInfo> => {
    const file = await allowed(paths.read(path, 'spec'));
    const info = await readSpecInfo(file);
    if (!info.ok) throw new ApiFailure('UNREADABLE', info.error);
    specByName.set(info.value.spec.name, file);
    return info.value;
  };

  /** The spec of a results file: the one given, else one this host used or offers under that name. */
  const specFor = async (given: string | undefined, name: string | null): Promise<SpecInfo | null> => {
    if (given !== undefined) return specInfo(given);
    if (name === null) return null;
    let known = specByName.get(name);
    if (known === undefined) {
      const listing = await listEvalFiles(ctx.initialPaths, await folders(), paths.resultsFolder);
      known = listing.specs.find((s) => s.name === name)?.path;
    }
    if (known === undefined) return null;
    const info = await readSpecInfo(known);
    return info.ok ? info.value : null;
  };

  const readResultsFile = async (file: string): Promise<string> => {
    const abs = await allowed(paths.read(file, 'results file'));
    return abs;
  };

  const job = <T>(found: T | null, jobId: string): T => {
    if (found === null) throw new ApiFailure('NO_JOB', `No eval job "${jobId}" (it finished long ago, or the host restarted).`);
    return found;
  };

  const impl: EvalImpl = {
    async listEvalFiles() {
      const listing = await listEvalFiles(ctx.initialPaths, await folders(), paths.resultsFolder);
      return contractOutput('listEvalFiles', { ...listing, resultsFolder: paths.resultsFolder });
    },

    async openEvalResults({ file, baseline, spec, name }) {
      const abs = await readResultsFile(file);
      const base = baseline === undefined ? null : await allowed(paths.read(baseline, 'baseline'));
      // The name decides which lines are shown; the spec given (or found by that name) gives thresholds and facts.
      const given = spec === undefined ? null : await specInfo(spec);
      const r = await openResults(abs, {
        spec: given,
        specOf: (n) => specFor(undefined, n),
        ...(name !== undefined ? { name } : {}),
        baseline: base,
      });
      const s = r.spec;
      return contractOutput('openEvalResults', {
        ...r,
        spec: s
          ? {
              file: s.file,
              name: s.spec.name,
              description: s.spec.description ?? null,
              thresholds: Object.keys(s.spec.thresholds).length > 0,
            }
          : null,
        facts: s?.facts ?? [],
      });
    },

    async startEval({ spec, resume, shard, results }) {
      const specFile = await allowed(paths.read(spec, 'spec'));
      const parsed = await readSpec(specFile);
      if (!parsed.ok) throw new ApiFailure('UNREADABLE', parsed.error);
      const name = parsed.value.name;
      if (shard && shard.k > shard.n) throw new ApiFailure('BAD_INPUT', `Shard ${shard.k}/${shard.n}: k must be between 1 and n.`);
      const resultsFile =
        results === undefined ? resolve(await defaultResultsFile(specFile, parsed.value, env)) : await allowed(paths.write(results));
      // Checked here, so that the answer is an error value and says what to do in the app's words.
      const before = await readResults(resultsFile, name);
      if (before.lines.length > 0 && !resume) {
        throw new ApiFailure(
          'BAD_INPUT',
          `${resultsFile} already holds ${before.lines.length} result(s) of "${name}": tick Resume to run only the cells not in it, or choose another results file (results are never overwritten).`,
        );
      }
      specByName.set(name, specFile);
      const runEnv = await envWithStoredKeys(parsed.value, env, ctx.rerun?.keys ?? null);
      const started = jobs.start({
        specFile,
        specName: name,
        resultsFile,
        resume: resume ?? false,
        shard: (shard as Shard | undefined) ?? null,
        env: runEnv,
        ...(ctx.rerun?.endpoints ? { endpoints: ctx.rerun.endpoints } : {}),
      });
      if (!started.ok) throw new ApiFailure('LIMIT', started.message);
      return contractOutput('startEval', started.job);
    },

    async watchEval({ jobId, after, waitMs }) {
      return contractOutput('watchEval', job(await jobs.watch(jobId, after, waitMs ?? DEFAULT_WATCH_MS), jobId));
    },

    async cancelEval({ jobId }) {
      return contractOutput('cancelEval', job(jobs.cancel(jobId), jobId));
    },

    async listEvalJobs() {
      return contractOutput('listEvalJobs', { jobs: jobs.list() });
    },

    async evalRunDetail({ file, runId, key, spec }) {
      if ((runId === undefined) === (key === undefined))
        throw new ApiFailure('BAD_INPUT', 'evalRunDetail: give exactly one of runId or key.');
      const abs = await readResultsFile(file);
      const given = spec === undefined ? null : await specInfo(spec);
      // The spec names each trace's importer; without one given, the spec this host knows by the results' name.
      const r = await runDetail(
        abs,
        runId !== undefined ? { runId } : { key: key as string },
        (name) => (given ? Promise.resolve(given) : specFor(undefined, name)),
        traces,
      );
      if (!r.ok) throw new ApiFailure(r.code, r.message);
      return contractOutput('evalRunDetail', r.value);
    },
  };

  return {
    impl,
    dispose() {
      jobs.dispose();
      traces.dispose();
    },
  };
}
