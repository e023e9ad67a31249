import { aggregate, type Aggregate } from '../../shared/eval/aggregate';
import { checkThresholds, type Miss } from '../../shared/eval/thresholds';
import type { Cell, Shard } from '../../shared/eval/cells';
import { factsFingerprint, scoredFacts, type Fact } from '../../shared/eval/facts';
import { judgeRequest, parseJudgeVerdict } from '../../shared/eval/judge';
import { addSpend, expectedSpend, limitStop, NO_SPEND, spendOf, type Spend } from '../../shared/eval/limits';
import { cellRef, EVAL_FORMAT, EVAL_VERSION, type EvalLine, type JudgeVerdict } from '../../shared/eval/results';
import { scoreRun } from '../../shared/eval/score';
import type { RunRecord } from '../../shared/rerun/record';
import { EndpointApprovals } from '../providers/endpoints';
import { runJob } from '../rerun/job';
import { openSummarizer } from '../rerun/summarizer';
import { cellMock } from './mock';
import { defaultResultsFile, prepareEval, type PreparedEval } from './prepare';
import { appendResult, readResults } from './results-file';
import type { Result } from '../../shared/eval/result';

/*
 * The eval runner (docs/eval.md): traces × targets × strategies × models (× fault scenarios) ×
 * repeats, each cell one re-run (src/main/rerun/job.ts) scored against the trace's confirmed facts,
 * appended to the results file as soon as it finishes. --resume skips the cells already in the
 * file; --shard k/n runs the cells whose key hashes to shard k. Spending limits stop scheduling;
 * cancellation stops scheduling and aborts the cells in flight (they are not written).
 */

export interface EvalOptions {
  readonly specFile: string;
  readonly resultsFile?: string;
  readonly resume?: boolean;
  readonly shard?: Shard | null;
  /** Overrides the spec's concurrency (1 = one cell at a time). */
  readonly concurrency?: number;
  readonly signal?: AbortSignal;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Where keys may be sent besides the providers' own endpoints (src/main/providers/endpoints.ts). Default: nowhere else. */
  readonly endpoints?: EndpointApprovals;
  /**
   * The spec's own endpoints are approved too: the CLI, where the user named the spec on their
   * command line. Never in a host, where the spec is whatever file an API caller points at.
   */
  readonly approveSpecEndpoints?: boolean;
  /** Once the cells are counted, before the first runs: how many this run will try. */
  readonly onPlan?: (e: {
    readonly total: number;
    readonly skipped: number;
    readonly shardCells: number;
    readonly totalCells: number;
  }) => void;
  readonly onCell?: (e: {
    readonly done: number;
    readonly total: number;
    readonly cell: Cell;
    readonly line: EvalLine | null;
    readonly error: string | null;
  }) => void;
  readonly log?: (line: string) => void;
}

export interface EvalOutcome {
  readonly prepared: Pick<PreparedEval, 'spec' | 'specFile' | 'warnings'>;
  readonly resultsFile: string;
  readonly totalCells: number;
  readonly shardCells: number;
  readonly skipped: number;
  readonly ran: number;
  /** Cells that could not run (a target missing in its trace…): sentences. */
  readonly errors: readonly string[];
  /** Every line of this spec in the results file (earlier runs included). */
  readonly lines: readonly EvalLine[];
  readonly aggregate: Aggregate;
  readonly misses: readonly Miss[];
  readonly stopped: string | null;
  readonly problems: readonly string[];
  readonly facts: ReadonlyMap<string, { file: string | null; facts: readonly Fact[]; description: string | null }>;
}

export type EvalResult = Result<EvalOutcome>;

async function judge(
  prepared: PreparedEval,
  cell: Cell,
  run: RunRecord,
  facts: readonly Fact[],
  env: Readonly<Record<string, string | undefined>>,
  endpoints: EndpointApprovals,
  signal: AbortSignal,
): Promise<JudgeVerdict | null> {
  const j = prepared.spec.judge;
  if (!j || j.model.pinned === null || run.summary === null) return null;
  // A mock judge answers from the trace's mock config (a script step for the judge's request).
  const traceMock = prepared.traces.get(cell.trace.path)?.mock ?? null;
  const mock = j.model.pinned.provider === 'mock' && traceMock ? cellMock(traceMock, null) : null;
  const handle = await openSummarizer({ models: [j.model.pinned], env, endpoints, ...(mock?.ok ? { mockAnswer: mock.value.answer } : {}) });
  try {
    const call = await handle.summarizer.summarize(judgeRequest(scoredFacts(facts, cell.target), run.summary, j.instructions), signal);
    return parseJudgeVerdict(j.model.label, call.text, call.error?.message ?? null);
  } finally {
    await handle.dispose();
  }
}

async function runCell(
  prepared: PreparedEval,
  cell: Cell,
  opts: EvalOptions,
  endpoints: EndpointApprovals,
  signal: AbortSignal,
): Promise<{ line: EvalLine | null; error: string | null }> {
  const trace = prepared.traces.get(cell.trace.path);
  if (!trace) return { line: null, error: `${cell.key}: trace not loaded` };
  const mock = trace.mock ? cellMock(trace.mock, cell.fault) : null;
  if (mock && !mock.ok) return { line: null, error: mock.error };
  const budget = cell.trace.spec.budget;
  const env = opts.env ?? process.env;
  const job = await runJob(trace.inspector, {
    sessionPath: trace.absPath,
    target: cell.target,
    strategy: cell.strategy.id,
    options: cell.strategy.options,
    models: cell.model.pinned ? [cell.model.pinned] : [],
    repeat: 1,
    runsFile: null,
    signal,
    env,
    endpoints,
    ...(cell.trace.spec.branch !== undefined ? { branch: cell.trace.spec.branch } : {}),
    ...(budget ? { window: budget.window, ...(budget.maxOutput ? { maxOutput: budget.maxOutput } : {}) } : {}),
    ...(mock?.ok ? { mock: { mockAnswer: mock.value.answer } } : {}),
  });
  if (!job.ok) return { line: null, error: `${cell.key}: ${job.error}` };
  const run = job.runs[0];
  if (!run) return { line: null, error: null }; // cancelled before it started
  const facts = trace.facts?.facts ?? [];
  const score = scoreRun(run, facts, { items: job.source.view.items.map((i) => ({ id: i.id, seq: i.seq })) });
  const verdict = await judge(prepared, cell, run, facts, env, endpoints, signal);
  return {
    line: {
      format: EVAL_FORMAT,
      v: EVAL_VERSION,
      spec: prepared.spec.name,
      cell: cellRef(cell),
      run,
      score,
      facts: trace.facts ? factsFingerprint(facts) : null,
      judge: verdict,
    },
    error: null,
  };
}

export async function runEval(opts: EvalOptions): Promise<EvalResult> {
  const prep = await prepareEval(opts.specFile, opts.shard ?? null);
  if (!prep.ok) return prep;
  const prepared = prep.value;
  const endpoints = opts.endpoints ?? new EndpointApprovals();
  if (opts.approveSpecEndpoints) {
    for (const m of [...prepared.spec.models, ...(prepared.spec.judge ? [prepared.spec.judge.model] : [])]) {
      if (m.pinned?.baseUrl !== undefined) endpoints.approve(m.pinned.baseUrl);
    }
  }
  try {
    const resultsFile = opts.resultsFile ?? (await defaultResultsFile(opts.specFile, prepared.spec, opts.env));
    const before = await readResults(resultsFile, prepared.spec.name);
    if (before.exists && before.lines.length > 0 && !opts.resume) {
      return {
        ok: false,
        error: `${resultsFile} already holds ${before.lines.length} result(s) of "${prepared.spec.name}": resume that run (--resume), or choose another results file (--results FILE); results are never overwritten.`,
      };
    }
    const done = new Set(before.lines.map((l) => l.cell.key));
    const queue = prepared.mine.filter((c) => !done.has(c.key));
    opts.onPlan?.({
      total: queue.length,
      skipped: prepared.mine.length - queue.length,
      shardCells: prepared.mine.length,
      totalCells: prepared.cells.length,
    });
    const signal = opts.signal ?? new AbortController().signal;
    const groupKey = (c: { strategy: string; model: string }): string => `${c.strategy}\u0000${c.model}`;
    const finished = new Map<string, Spend[]>();
    for (const l of before.lines) finished.set(groupKey(l.cell), [...(finished.get(groupKey(l.cell)) ?? []), spendOf(l.run.totals)]);
    let spent = before.lines.reduce((s, l) => addSpend(s, spendOf(l.run.totals)), NO_SPEND);
    let inflight = NO_SPEND;
    let stopped: string | null = null;
    const errors: string[] = [];
    let ran = 0;
    let next = 0;
    const concurrency = Math.max(1, opts.concurrency ?? prepared.spec.concurrency);
    const worker = async (): Promise<void> => {
      while (next < queue.length && stopped === null) {
        if (signal.aborted) {
          stopped = 'cancelled: no new cells scheduled, the cells in flight were aborted and not written';
          break;
        }
        const cell = queue[next++] as Cell;
        const g = groupKey({ strategy: cell.strategy.label, model: cell.model.label });
        const expected = expectedSpend(finished.get(g) ?? []);
        const stop = limitStop(prepared.spec.limits, addSpend(spent, inflight), expected);
        if (stop) {
          stopped = stop;
          opts.log?.(stop);
          break;
        }
        inflight = addSpend(inflight, expected);
        let outcome: { line: EvalLine | null; error: string | null };
        try {
          outcome = await runCell(prepared, cell, opts, endpoints, signal);
        } catch (err) {
          outcome = { line: null, error: `${cell.key}: ${(err as Error).message}` };
        }
        inflight = {
          ...inflight,
          requests: inflight.requests - expected.requests,
          tokens: inflight.tokens - expected.tokens,
          costUsd: inflight.costUsd - expected.costUsd,
        };
        if (outcome.line && !(signal.aborted && outcome.line.run.outcome === 'cancelled')) {
          await appendResult(resultsFile, outcome.line);
          const s = spendOf(outcome.line.run.totals);
          spent = addSpend(spent, s);
          finished.set(g, [...(finished.get(g) ?? []), s]);
          ran++;
        }
        if (outcome.error) errors.push(outcome.error);
        opts.onCell?.({ done: ran + errors.length, total: queue.length, cell, line: outcome.line, error: outcome.error });
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, queue.length)) }, () => worker()));
    if (signal.aborted && stopped === null) stopped = 'cancelled: no new cells scheduled, the cells in flight were aborted and not written';
    const after = await readResults(resultsFile, prepared.spec.name);
    const agg = aggregate(after.lines);
    const facts = new Map<string, { file: string | null; facts: readonly Fact[]; description: string | null }>();
    for (const t of prepared.traces.values())
      facts.set(t.path, {
        file: t.factsFile,
        facts: t.facts?.facts ?? [],
        description: t.facts?.description ?? t.facts?.checkedBy ?? null,
      });
    return {
      ok: true,
      value: {
        prepared: { spec: prepared.spec, specFile: prepared.specFile, warnings: prepared.warnings },
        resultsFile,
        totalCells: prepared.cells.length,
        shardCells: prepared.mine.length,
        skipped: prepared.mine.length - queue.length,
        ran,
        errors,
        lines: after.lines,
        aggregate: agg,
        misses: checkThresholds(agg, prepared.spec.thresholds),
        stopped,
        problems: after.problems,
        facts,
      },
    };
  } finally {
    await prepared.dispose();
  }
}
