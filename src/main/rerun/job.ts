import type { RunRecord, RunTarget } from '../../shared/rerun/record';
import { pinnedFromRoute, resolveSummarizationModels, type PinnedModel } from '../../shared/rerun/pinned';
import { strategyById, STRATEGY_IDS } from '../../shared/strategies';
import type { StrategyProgress } from '../../shared/strategies/types';
import { chooseEncoding } from '../../shared/tokens/encoding';
import type { EndpointApprovals } from '../providers/endpoints';
import type { KeyReader } from '../providers/keys';
import type { SessionInspector } from '../session/inspector';
import { loadEncoder } from '../tokens/encoder';
import { agentBudget } from './budget';
import { runRerun } from './run';
import { resolveSource, type ResolvedSource } from './source';
import { appendRun, defaultRunsFile, sourceIdentity } from './sidecar';
import { openSummarizer, type SummarizerSetup } from './summarizer';

/*
 * One re-run job on an open session, from the user's choices to records in the results file. Shared
 * by `palimpsest rerun`, the app's re-run panel and the eval runner. Failures the user can fix come
 * back as values with a sentence; nothing is written for a job that could not start.
 */

export interface RerunJob {
  readonly sessionPath: string;
  readonly branch?: string;
  readonly target: RunTarget;
  /**
   * The capture files joined to the session's default branch (attached to the inspector): the
   * source is the joined session's (source.ts) and the runs record them. Empty: the log alone.
   */
  readonly captures?: readonly string[];
  readonly strategy: string;
  readonly options?: Readonly<Record<string, unknown>>;
  /** The summarization chain; empty: the session's own route (cosh). Ignored by model-free strategies. */
  readonly models: readonly PinnedModel[];
  readonly window?: number;
  readonly maxOutput?: number;
  readonly repeat?: number;
  /** Results file; default: the session's file under the data directory (sidecar.ts); null: keep runs in memory only (evals write their own file). */
  readonly runsFile?: string | null;
  readonly signal?: AbortSignal;
  readonly onProgress?: (p: { readonly repeat: number; readonly of: number } & StrategyProgress) => void;
  readonly onRun?: (run: RunRecord) => void;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly keys?: KeyReader | null;
  /** Where keys may be sent: approved by whoever started the process (endpoints.ts). Default: the providers' own endpoints only. */
  readonly endpoints?: EndpointApprovals;
  readonly mock?: Pick<SummarizerSetup, 'mockScript' | 'mockLatencyMs' | 'mockAnswer'>;
}

export type JobResult =
  | {
      readonly ok: true;
      readonly runs: readonly RunRecord[];
      readonly file: string | null;
      readonly source: ResolvedSource;
      readonly windowFrom: string;
    }
  | { readonly ok: false; readonly error: string };

export async function runJob(inspector: SessionInspector, job: RerunJob): Promise<JobResult> {
  const strategy = strategyById(job.strategy);
  if (!strategy) return { ok: false, error: `Unknown strategy "${job.strategy}"; strategies: ${STRATEGY_IDS.join(', ')}.` };
  const repeat = job.repeat ?? 1;
  if (!Number.isInteger(repeat) || repeat < 1 || repeat > 1000) return { ok: false, error: `--repeat must be 1–1000, got ${repeat}.` };
  const branch = job.branch ?? inspector.defaultBranch;
  const captures = job.captures ?? [];
  const resolved = await resolveSource(inspector, job.target, branch, { joined: captures.length > 0 });
  if (!resolved.ok) return resolved;
  const source = resolved.source;
  const budget = agentBudget(source.view, inspector.session.format, job.window, job.maxOutput);
  if (!budget.ok) return budget;

  let models: PinnedModel[] = [];
  if (strategy.needsModel) {
    let own: PinnedModel | null = null;
    if (job.models.length === 0) {
      // Codex logs its provider as "openai" but speaks the Responses API.
      const route =
        source.view.route && inspector.session.format === 'codex' && source.view.route.provider === 'openai'
          ? { ...source.view.route, provider: 'openai-responses' }
          : source.view.route;
      const p = pinnedFromRoute(route);
      if (!p.ok) return { ok: false, error: `${p.error} (--model PROVIDER:MODEL, or mock:NAME to try the flow without a key)` };
      own = p.value;
    }
    models = resolveSummarizationModels([...job.models], own);
  }

  const encoding = chooseEncoding(source.view.route ?? {});
  const encoder = await loadEncoder(encoding.encoding);
  const count = (text: string): number => encoder.count(text);
  const identity = await sourceIdentity(job.sessionPath);
  const captureIds = await Promise.all(captures.map((c) => sourceIdentity(c)));
  const file = job.runsFile === null ? null : (job.runsFile ?? (await defaultRunsFile(job.sessionPath, job.env)));
  const handle = strategy.needsModel
    ? await openSummarizer({
        models,
        env: job.env ?? process.env,
        keys: job.keys ?? null,
        ...(job.endpoints ? { endpoints: job.endpoints } : {}),
        ...job.mock,
      })
    : null;
  try {
    const runs = await runRerun({
      source,
      identity,
      captures: captureIds,
      branch,
      target: job.target,
      strategy,
      options: job.options ?? {},
      budget: budget.budget,
      count,
      counterName: `${encoder.implementation} (estimate)`,
      summarizer: handle,
      repeat,
      signal: job.signal ?? new AbortController().signal,
      ...(job.onProgress ? { onProgress: job.onProgress } : {}),
      onRun: async (run) => {
        if (file !== null) await appendRun(file, run);
        job.onRun?.(run);
      },
    });
    return { ok: true, runs, file, source, windowFrom: budget.windowFrom };
  } finally {
    await handle?.dispose();
  }
}
