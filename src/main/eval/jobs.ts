import { randomUUID } from 'node:crypto';
import type { EvalCellOutcome, EvalJob, EvalJobState, EvalProgressEvent } from '../../shared/api/eval-contract';
import type { Cell, Shard } from '../../shared/eval/cells';
import type { EvalLine } from '../../shared/eval/results';
import type { EndpointApprovals } from '../providers/endpoints';
import type { Env } from '../providers/keys';
import { runEval, type EvalOptions, type EvalResult } from './run';
import { JobEventLog } from '../jobs/event-log';

/*
 * The eval jobs of one host (the app's eval view): start, cancel, progress. The design mirrors the
 * re-run jobs (src/main/rerun/jobs.ts): each job has its own AbortController and runs the CLI's
 * runner (`runEval`, ./run.ts), so a run from the app and `palimpsest eval` write the same lines
 * to the same results file; progress is kept per job as numbered events (the last 1,000; ../jobs/event-log.ts),
 * handed to `onEvent` as it happens and to watchers that ask for what came after the last event
 * they saw; a watcher with nothing new waits, bounded.
 *
 * The runner reports a cell when it ends, with the count of cells to run; it says nothing while
 * it prepares (loading traces), so a job's `total` is null until the runner has counted the cells (onPlan).
 */

export interface EvalJobSpec {
  readonly specFile: string;
  readonly specName: string;
  readonly resultsFile: string;
  readonly resume: boolean;
  readonly shard: Shard | null;
  /** The environment the runner resolves keys and the data folder from (stored keys overlaid). */
  readonly env: Env;
  /** Where keys may be sent: the host's approvals (the spec's endpoints are not approved by being in it). */
  readonly endpoints?: EndpointApprovals;
}

export interface EvalJobsOptions {
  /** Every event of every job, as it happens (the transports' progress channel). */
  readonly onEvent?: (e: EvalProgressEvent) => void;
  readonly logError?: (what: string, err: unknown) => void;
  /** Jobs running at once (default 2): each loads its traces and may start a mock server. */
  readonly maxRunning?: number;
  /** The runner (tests give a stand-in); default runEval. */
  readonly run?: (opts: EvalOptions) => Promise<EvalResult>;
}

export type StartResult = { readonly ok: true; readonly job: EvalJob } | { readonly ok: false; readonly message: string };

const KEEP_FINISHED = 20;
/** Cell errors kept per job (the count of cells done still counts them all). */
const KEEP_ERRORS = 50;

interface Entry {
  view: EvalJob;
  readonly controller: AbortController;
  readonly log: JobEventLog<EvalProgressEvent>;
}

export function cellOutcome(cell: Cell, line: EvalLine | null, error: string | null): EvalCellOutcome {
  return {
    key: cell.key,
    trace: cell.trace.path,
    target: cell.target,
    strategy: cell.strategy.label,
    model: cell.model.label,
    fault: cell.fault?.name ?? null,
    repeat: cell.repeat.index,
    outcome: line?.run.outcome ?? null,
    recall: line?.score.recall.overall ?? null,
    mock: line?.run.mock ?? false,
    error,
  };
}

export class EvalJobs {
  private readonly jobs = new Map<string, Entry>();

  constructor(private readonly options: EvalJobsOptions = {}) {}

  private running(): Entry[] {
    return [...this.jobs.values()].filter((j) => j.view.state === 'running');
  }

  start(spec: EvalJobSpec): StartResult {
    const max = this.options.maxRunning ?? 2;
    const running = this.running();
    if (running.length >= max) return { ok: false, message: `${max} evals are running; wait for one to finish or cancel one.` };
    // Two runs appending to one results file would run the same cells twice.
    const same = running.find((j) => j.view.resultsFile === spec.resultsFile);
    if (same)
      return { ok: false, message: `An eval started at ${same.view.startedAt} is writing ${spec.resultsFile}; wait for it or cancel it.` };
    const jobId = randomUUID();
    const entry: Entry = {
      view: {
        jobId,
        state: 'running',
        spec: spec.specFile,
        specName: spec.specName,
        resultsFile: spec.resultsFile,
        resume: spec.resume,
        shard: spec.shard,
        startedAt: new Date().toISOString(),
        finishedAt: null,
        done: 0,
        total: null,
        last: null,
        stopped: null,
        errors: [],
        error: null,
        summary: null,
      },
      controller: new AbortController(),
      log: new JobEventLog(),
    };
    this.jobs.set(jobId, entry);
    this.emit(entry, 'running', null, null);
    void this.run(spec, entry);
    return { ok: true, job: entry.view };
  }

  private async run(spec: EvalJobSpec, entry: Entry): Promise<void> {
    const signal = entry.controller.signal;
    const run = this.options.run ?? runEval;
    try {
      const result = await run({
        specFile: spec.specFile,
        resultsFile: spec.resultsFile,
        resume: spec.resume,
        shard: spec.shard,
        signal,
        env: spec.env,
        ...(spec.endpoints ? { endpoints: spec.endpoints } : {}),
        onPlan: (e) => {
          entry.view = { ...entry.view, total: e.total };
          this.emit(entry, 'running', null, null);
        },
        onCell: (e) => {
          const cell = cellOutcome(e.cell, e.line, e.error);
          const errors = e.error && entry.view.errors.length < KEEP_ERRORS ? [...entry.view.errors, e.error] : entry.view.errors;
          entry.view = { ...entry.view, done: e.done, total: e.total, last: cell, errors };
          this.emit(entry, 'running', cell, null);
        },
      });
      if (!result.ok) return this.finish(entry, signal.aborted ? 'cancelled' : 'failed', result.error);
      const o = result.value;
      entry.view = {
        ...entry.view,
        resultsFile: o.resultsFile,
        stopped: o.stopped,
        total: entry.view.total ?? o.shardCells - o.skipped,
        errors: o.errors.slice(0, KEEP_ERRORS),
        summary: {
          totalCells: o.totalCells,
          shardCells: o.shardCells,
          skipped: o.skipped,
          ran: o.ran,
          misses: o.misses.length,
          warnings: [...o.prepared.warnings, ...o.problems],
        },
      };
      this.finish(entry, signal.aborted ? 'cancelled' : 'done', null);
    } catch (err: unknown) {
      // A bug or an I/O failure (the results file could not be written): the job fails with it.
      this.options.logError?.('eval job', err);
      this.finish(entry, signal.aborted ? 'cancelled' : 'failed', err instanceof Error ? err.message : String(err));
    }
  }

  private finish(entry: Entry, state: Exclude<EvalJobState, 'running'>, error: string | null): void {
    if (entry.view.state !== 'running') return;
    entry.view = { ...entry.view, state, error, finishedAt: new Date().toISOString() };
    this.emit(entry, state, null, error);
    this.prune();
  }

  private emit(entry: Entry, phase: EvalJobState, cell: EvalCellOutcome | null, error: string | null): void {
    const event = entry.log.push((index): EvalProgressEvent => ({
      operation: 'eval',
      jobId: entry.view.jobId,
      index,
      phase,
      done: entry.view.done,
      total: entry.view.total,
      cell,
      error,
    }));
    try {
      this.options.onEvent?.(event);
    } catch (err: unknown) {
      // A transport that cannot deliver must not break the job; the events stay available to watchers.
      this.options.logError?.('eval progress', err);
    }
  }

  private prune(): void {
    const finished = [...this.jobs.values()].filter((j) => j.view.state !== 'running');
    for (const j of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED))) this.jobs.delete(j.view.jobId);
  }

  get(jobId: string): EvalJob | null {
    return this.jobs.get(jobId)?.view ?? null;
  }

  list(): EvalJob[] {
    return [...this.jobs.values()].map((j) => j.view);
  }

  /** Asks a running job to stop: no new cells, the cells in flight aborted (and not written). null: no such job. */
  cancel(jobId: string): { cancelled: boolean; job: EvalJob } | null {
    const j = this.jobs.get(jobId);
    if (!j) return null;
    const running = j.view.state === 'running';
    if (running) j.controller.abort();
    return { cancelled: running, job: j.view };
  }

  /** Events after `after`; waits up to `waitMs` for one when there is none and the job runs. null: no such job. */
  async watch(jobId: string, after: number, waitMs: number): Promise<{ events: EvalProgressEvent[]; next: number; job: EvalJob } | null> {
    const j = this.jobs.get(jobId);
    if (!j) return null;
    const { events, next } = await j.log.after(after, waitMs, () => j.view.state === 'running');
    return { events, next, job: j.view };
  }

  /** Aborts every job (the host is closing). */
  dispose(): void {
    for (const j of this.jobs.values()) {
      j.controller.abort();
      j.log.wakeAll();
    }
  }
}
