import { randomUUID } from 'node:crypto';
import type { Diagnostic } from '../../shared/model/diagnostic';
import { candidateDiagnostics } from '../../shared/rerun/as-log';
import { RUNS_FORMAT, RUNS_VERSION, type CallRecord, type RunRecord, type RunTarget, type SourceIdentity } from '../../shared/rerun/record';
import { viewTokens } from '../../shared/strategies/common/render';
import type {
  AgentBudget,
  StrategyDef,
  StrategyProgress,
  StrategyResult,
  Summarizer,
  SummaryCall,
  TokenCounter,
} from '../../shared/strategies/types';
import type { ResolvedSource } from './source';

/*
 * Runs one strategy on one resolved source, `repeat` times, and turns each result into a run
 * record. The caller owns the summarizer (providers, chain, mock) and the results file; this module
 * only orchestrates, so the CLI, the app and the eval runner share it.
 */

/** What the caller's summarizer reports beyond the SummaryCall: the bodies sent and the cost of each call. */
export interface CallLedger {
  /** Exact bodies sent for this call (one per HTTP attempt), keys never included. */
  sentFor(call: SummaryCall): readonly { url: string; body: string }[];
  costFor(call: SummaryCall): number | null;
}

export interface SummarizerHandle {
  readonly summarizer: Summarizer;
  readonly ledger: CallLedger;
  /** Pinned models as recorded (no keys). */
  readonly models: readonly Record<string, unknown>[];
  readonly mock: boolean;
}

export interface RerunSpec {
  readonly source: ResolvedSource;
  readonly identity: SourceIdentity;
  /** The captures the source was joined with (RunRecord.captures). */
  readonly captures?: readonly SourceIdentity[];
  readonly branch: string;
  readonly target: RunTarget;
  readonly strategy: StrategyDef;
  readonly options: Readonly<Record<string, unknown>>;
  readonly budget: AgentBudget;
  readonly count: TokenCounter;
  /** Names the counter in records ("o200k_base (js-tiktoken, bounded)"). */
  readonly counterName: string;
  /** null for model-free strategies. */
  readonly summarizer: SummarizerHandle | null;
  readonly repeat: number;
  readonly signal: AbortSignal;
  readonly onProgress?: (p: { readonly repeat: number; readonly of: number } & StrategyProgress) => void;
  /** Called with each finished run before the next starts (the CLI appends it to the results file). */
  readonly onRun?: (run: RunRecord) => Promise<void>;
  readonly now?: () => Date;
}

function totals(calls: readonly CallRecord[], wallMs: number): RunRecord['totals'] {
  let input = 0,
    output = 0,
    cacheRead = 0,
    cacheWrite = 0,
    latencyMs = 0,
    requests = 0;
  let cost: number | null = 0;
  for (const c of calls) {
    input += c.usage?.input ?? 0;
    output += c.usage?.output ?? 0;
    cacheRead += c.usage?.cacheRead ?? 0;
    cacheWrite += c.usage?.cacheWrite ?? 0;
    latencyMs += c.latencyMs;
    requests += c.attempts;
    cost = cost === null || c.costUsd === null ? null : cost + c.costUsd;
  }
  return { requests, input, output, cacheRead, cacheWrite, costUsd: calls.length === 0 ? 0 : cost, latencyMs, wallMs };
}

function callRecord(c: SummaryCall, ledger: CallLedger | null): CallRecord {
  return {
    stage: c.request.stage,
    label: c.request.label,
    model: c.model,
    ok: c.text !== null,
    finish: c.finish,
    usage: c.usage,
    latencyMs: c.latencyMs,
    attempts: c.attempts,
    error: c.error ? { ...c.error } : null,
    sent: ledger ? [...ledger.sentFor(c)] : [],
    costUsd: ledger ? ledger.costFor(c) : null,
  };
}

export function toRunRecord(
  spec: RerunSpec,
  r: StrategyResult,
  index: number,
  batchId: string,
  cancelled: boolean,
  wallMs: number,
): RunRecord {
  const calls = r.calls.map((c) => callRecord(c, spec.summarizer?.ledger ?? null));
  let diagnostics: Diagnostic[];
  try {
    diagnostics = candidateDiagnostics(spec.source.view, r, spec.budget.window, spec.count);
  } catch (err) {
    diagnostics = [
      {
        rule: 'INTERNAL_RULE_ERROR',
        severity: 'warning',
        message: `The diagnostics could not run on this candidate: ${(err as Error).message}`,
        file: null,
        line: null,
        seqs: [],
      },
    ];
  }
  return {
    format: RUNS_FORMAT,
    v: RUNS_VERSION,
    runId: randomUUID(),
    batchId,
    repeat: { index, of: spec.repeat },
    at: (spec.now?.() ?? new Date()).toISOString(),
    source: spec.identity,
    captures: [...(spec.captures ?? [])],
    branch: spec.branch,
    target: spec.target,
    strategy: r.strategy,
    options: { ...spec.options },
    models: spec.summarizer ? [...spec.summarizer.models] : [],
    mock: spec.summarizer?.mock ?? false,
    budget: { window: spec.budget.window, maxOutput: spec.budget.maxOutput },
    outcome: cancelled ? 'cancelled' : r.outcome,
    error: r.error,
    summary: r.summary,
    view: r.view
      ? { system: r.view.system ? [...r.view.system] : null, tools: r.view.tools ? [...r.view.tools] : null, items: [...r.view.items] }
      : null,
    notes: [...r.notes],
    tokens: { before: r.tokens.before, after: r.tokens.after, counter: spec.counterName },
    calls,
    totals: totals(calls, wallMs),
    mapreduce: r.mapreduce,
    diagnostics,
  };
}

/** A failure before the strategy could run (bad options, a thrown bug) as a result, never a throw. */
function failedResult(spec: RerunSpec, message: string): StrategyResult {
  return {
    strategy: spec.strategy.id,
    outcome: 'failed',
    view: null,
    summary: null,
    calls: [],
    error: message,
    notes: [],
    mapreduce: null,
    tokens: { before: viewTokens(spec.source.view, spec.count), after: null },
  };
}

export async function runRerun(spec: RerunSpec): Promise<RunRecord[]> {
  if (spec.strategy.needsModel && !spec.summarizer) throw new Error(`Strategy ${spec.strategy.id} needs a summarization model.`);
  const batchId = randomUUID();
  const runs: RunRecord[] = [];
  for (let i = 0; i < spec.repeat; i++) {
    if (spec.signal.aborted) break;
    const t0 = performance.now();
    let result: StrategyResult;
    try {
      result = await spec.strategy.run({
        source: spec.source.view,
        budget: spec.budget,
        count: spec.count,
        summarizer: spec.summarizer?.summarizer ?? null,
        signal: spec.signal,
        options: spec.options,
        onProgress: (p) => spec.onProgress?.({ ...p, repeat: i, of: spec.repeat }),
      });
    } catch (err) {
      result = failedResult(spec, `The strategy threw (a bug in Palimpsest): ${(err as Error).message}`);
    }
    const run = toRunRecord(spec, result, i, batchId, spec.signal.aborted && result.outcome === 'failed', performance.now() - t0);
    runs.push(run);
    await spec.onRun?.(run);
  }
  return runs;
}
