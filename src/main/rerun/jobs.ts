import { randomUUID } from 'node:crypto';
import type {
  RerunJob as JobView,
  ModelSpec,
  RerunJobState,
  RerunProgressEvent,
  RerunStage,
  RerunTarget,
  RunRow,
} from '../../shared/api/rerun-contract';
import { parseModelSpec, PinnedModel } from '../../shared/rerun/pinned';
import type { Result } from '../../shared/result';
import type { RunRecord } from '../../shared/rerun/record';
import type { EndpointApprovals } from '../providers/endpoints';
import type { Env, KeyReader } from '../providers/keys';
import type { SessionInspector } from '../session/inspector';
import { runJob } from './job';
import { JobEventLog } from '../jobs/event-log';

/*
 * The re-run jobs of one host (the app's re-run panel): start, cancel, progress. Each job has its
 * own AbortController and runs `runJob` (./job.ts, the CLI's path), so a run from the app and one
 * from `palimpsest rerun` write the same records to the same results file. Progress is kept per job
 * as numbered events (the last 1,000; ../jobs/event-log.ts), handed to `onEvent` as it happens and to watchers that
 * ask for what came after the last event they saw; a watcher with nothing new waits, bounded.
 * Closing a session aborts and forgets its jobs; so does noticing that the registry dropped it.
 */

export interface JobSession {
  readonly id: string;
  readonly path: string;
  readonly inspector: SessionInspector;
}

export interface JobSpec {
  readonly branch: string;
  readonly target: RerunTarget;
  readonly strategy: string;
  readonly options: Readonly<Record<string, unknown>>;
  readonly models: readonly PinnedModel[];
  readonly window?: number;
  readonly maxOutput?: number;
  readonly repeat: number;
  /** The results file, decided (and checked to be away from the session) by the caller. */
  readonly runsFile: string;
  readonly mockLatencyMs?: number;
}

export interface JobsOptions {
  readonly env: Env;
  readonly keys: KeyReader | null;
  /** Where keys may be sent (endpoints.ts): the host's approvals, never the caller's. */
  readonly endpoints: EndpointApprovals;
  /** Every event of every job, as it happens (the transports' progress channel). */
  readonly onEvent?: (e: RerunProgressEvent) => void;
  /** Whether a session is still open; jobs of a session that is not are aborted. */
  readonly isOpen: (sessionId: string) => boolean;
  readonly logError?: (what: string, err: unknown) => void;
  /** Jobs running at once (default 4): each may hold a mock server and provider connections. */
  readonly maxRunning?: number;
}

export type StartResult = { readonly ok: true; readonly job: JobView } | { readonly ok: false; readonly message: string };

/** Events kept per job, finished jobs kept per host, watchers waiting per job. */
const KEEP_FINISHED = 20;
/** How often running jobs check that their session is still open. */
const SWEEP_MS = 1000;

interface Entry {
  view: JobView;
  readonly controller: AbortController;
  readonly log: JobEventLog<RerunProgressEvent>;
}

const label = (m: Readonly<Record<string, unknown>>): string => String(m.label ?? `${String(m.provider)}:${String(m.model)}`);

/** A chain entry as the CLI reads `--model`: "mock:NAME" without an address is the in-process mock. */
export function pinnedOf(spec: ModelSpec): Result<PinnedModel> {
  if (typeof spec === 'string') return parseModelSpec(spec);
  const r = PinnedModel.safeParse(spec);
  if (!r.success)
    return {
      ok: false,
      error: `Invalid settings for ${spec.provider}:${spec.model}: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    };
  return { ok: true, value: r.data };
}

/** A results-file record as a row of the contract. `fingerprint`: the session's as it is now. */
export function runRow(r: RunRecord, fingerprint: string): RunRow {
  const diagnostics = { error: 0, warning: 0, info: 0 };
  for (const d of r.diagnostics) diagnostics[d.severity]++;
  return {
    runId: r.runId,
    batchId: r.batchId,
    repeat: { ...r.repeat },
    at: r.at,
    branch: r.branch,
    target: { ...r.target },
    strategy: r.strategy,
    options: { ...r.options },
    models: r.models.map(label),
    mock: r.mock,
    window: r.budget.window,
    maxOutput: r.budget.maxOutput,
    outcome: r.outcome,
    error: r.error,
    notes: [...r.notes],
    tokens: { ...r.tokens },
    totals: { ...r.totals },
    diagnostics,
    stale: r.source.fingerprint !== fingerprint,
  };
}

export class RerunJobs {
  private readonly jobs = new Map<string, Entry>();
  private sweeper: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly options: JobsOptions) {}

  private running(): number {
    let n = 0;
    for (const j of this.jobs.values()) if (j.view.state === 'running') n++;
    return n;
  }

  start(session: JobSession, spec: JobSpec): StartResult {
    const max = this.options.maxRunning ?? 4;
    if (this.running() >= max) return { ok: false, message: `${max} re-runs are running; wait for one to finish or cancel one.` };
    const jobId = randomUUID();
    const entry: Entry = {
      view: {
        jobId,
        sessionId: session.id,
        state: 'running',
        strategy: spec.strategy,
        options: { ...spec.options },
        target: spec.target,
        branch: spec.branch,
        models: spec.models.map((m) => label(m)),
        repeat: spec.repeat,
        startedAt: new Date().toISOString(),
        finishedAt: null,
        stage: null,
        runs: [],
        error: null,
        file: spec.runsFile,
        unknowns: [],
      },
      controller: new AbortController(),
      log: new JobEventLog(),
    };
    this.jobs.set(jobId, entry);
    this.emit(entry, { phase: 'running' });
    void this.run(session, spec, entry);
    this.sweep();
    return { ok: true, job: this.snapshot(entry) };
  }

  private async run(session: JobSession, spec: JobSpec, entry: Entry): Promise<void> {
    const signal = entry.controller.signal;
    try {
      const result = await runJob(session.inspector, {
        sessionPath: session.path,
        branch: spec.branch,
        target: spec.target,
        strategy: spec.strategy,
        options: spec.options,
        models: spec.models,
        repeat: spec.repeat,
        runsFile: spec.runsFile,
        signal,
        env: this.options.env,
        keys: this.options.keys,
        endpoints: this.options.endpoints,
        ...(spec.window !== undefined ? { window: spec.window } : {}),
        ...(spec.maxOutput !== undefined ? { maxOutput: spec.maxOutput } : {}),
        ...(spec.mockLatencyMs !== undefined ? { mock: { mockLatencyMs: spec.mockLatencyMs } } : {}),
        onProgress: (p) => {
          const stage: RerunStage = {
            stage: p.stage,
            done: p.done,
            total: p.total,
            repeat: { index: p.repeat, of: p.of },
            message: p.message ?? null,
          };
          entry.view = { ...entry.view, stage };
          this.emit(entry, { phase: 'running', stage });
        },
        onRun: (run) => {
          // A run of this job was made from the session as it is now: never stale.
          const row = runRow(run, run.source.fingerprint);
          entry.view = { ...entry.view, runs: [...entry.view.runs, row] };
          this.emit(entry, { phase: 'running', run: row });
        },
      });
      if (!result.ok) return this.finish(entry, 'failed', result.error);
      entry.view = { ...entry.view, file: result.file, unknowns: [...result.source.unknowns] };
      this.finish(entry, signal.aborted ? 'cancelled' : 'done', null);
    } catch (err: unknown) {
      // A bug or an I/O failure (the results file could not be written): the job fails with it.
      this.options.logError?.('rerun job', err);
      this.finish(entry, signal.aborted ? 'cancelled' : 'failed', err instanceof Error ? err.message : String(err));
    }
  }

  private finish(entry: Entry, state: Exclude<RerunJobState, 'running'>, error: string | null): void {
    if (entry.view.state !== 'running') return;
    entry.view = { ...entry.view, state, error, finishedAt: new Date().toISOString() };
    this.emit(entry, { phase: state, error });
    this.prune();
  }

  private emit(entry: Entry, e: { phase: RerunProgressEvent['phase']; stage?: RerunStage; run?: RunRow; error?: string | null }): void {
    const event = entry.log.push((index): RerunProgressEvent => ({
      operation: 'rerun',
      jobId: entry.view.jobId,
      sessionId: entry.view.sessionId,
      index,
      phase: e.phase,
      stage: e.stage ?? null,
      run: e.run ?? null,
      error: e.error ?? null,
    }));
    try {
      this.options.onEvent?.(event);
    } catch (err: unknown) {
      // A transport that cannot deliver must not break the job; the events stay available to watchers.
      this.options.logError?.('rerun progress', err);
    }
  }

  private snapshot(entry: Entry): JobView {
    return entry.view;
  }

  /** Drops the oldest finished jobs beyond KEEP_FINISHED. */
  private prune(): void {
    const finished = [...this.jobs.values()].filter((j) => j.view.state !== 'running');
    for (const j of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED))) this.jobs.delete(j.view.jobId);
  }

  /** Aborts running jobs whose session was closed behind our back (the registry disposed). */
  private sweep(): void {
    if (this.sweeper !== null) return;
    this.sweeper = setInterval(() => {
      for (const j of [...this.jobs.values()]) if (!this.options.isOpen(j.view.sessionId)) this.forget(j);
      if (this.running() === 0 && this.sweeper !== null) {
        clearInterval(this.sweeper);
        this.sweeper = null;
      }
    }, SWEEP_MS);
    this.sweeper.unref?.();
  }

  get(jobId: string): JobView | null {
    const j = this.jobs.get(jobId);
    return j ? this.snapshot(j) : null;
  }

  list(sessionId: string): JobView[] {
    return [...this.jobs.values()].filter((j) => j.view.sessionId === sessionId).map((j) => this.snapshot(j));
  }

  /** Asks a running job to stop; the run in flight is recorded as cancelled. null: no such job. */
  cancel(jobId: string): { cancelled: boolean; job: JobView } | null {
    const j = this.jobs.get(jobId);
    if (!j) return null;
    const running = j.view.state === 'running';
    if (running) j.controller.abort();
    return { cancelled: running, job: this.snapshot(j) };
  }

  /** Events after `after`; waits up to `waitMs` for one when there is none and the job runs. null: no such job. */
  async watch(jobId: string, after: number, waitMs: number): Promise<{ events: RerunProgressEvent[]; next: number; job: JobView } | null> {
    const j = this.jobs.get(jobId);
    if (!j) return null;
    const { events, next } = await j.log.after(after, waitMs, () => j.view.state === 'running');
    return { events, next, job: this.snapshot(j) };
  }

  private forget(j: Entry): void {
    j.controller.abort();
    this.jobs.delete(j.view.jobId);
    j.log.wakeAll();
  }

  /** The session was closed: its jobs stop and are forgotten. */
  sessionClosed(sessionId: string): void {
    for (const j of [...this.jobs.values()]) if (j.view.sessionId === sessionId) this.forget(j);
  }

  dispose(): void {
    for (const j of [...this.jobs.values()]) this.forget(j);
    if (this.sweeper !== null) clearInterval(this.sweeper);
    this.sweeper = null;
  }
}
