import { costOf, sumCosts } from '../../shared/rerun/cost';
import type { PinnedModel } from '../../shared/rerun/pinned';
import { modelLabel } from '../../shared/rerun/pinned';
import type { SummaryCall, SummaryError, SummaryRequest, Summarizer } from '../../shared/strategies/types';
import { maxOutputFor } from './attempt';
import { type AttemptRecord, type CallOptions, type ModelCall, callModel } from './call';
import type { AttemptError } from './types';

/*
 * The Summarizer a re-run hands to a strategy: cosh's summarization-model chain over the
 * provider adapters.
 * - The models are given resolved: a non-empty configured chain as is, or — for an empty one — the
 *   session's own connector (pinned.ts resolveSummarizationModels). No model is ever added here.
 * - Each summarize() walks the chain from the first model. On one model, our bounded retries run
 *   first (call.ts); a model that still fails (transport errors, HTTP errors, or an answer that is
 *   incomplete or empty) hands over to the next.
 * - Cancellation stops the chain ('cancelled'). A context overflow goes straight back to the
 *   strategy ('overflow', with the reported window): it repartitions, and the next model would
 *   not fit either. Running out of models is 'exhausted', naming every model tried; a one-model
 *   chain reports that model's own error instead, which says more.
 * - `window` and `defaultMaxOutput` are those of the model that answers next (the first), the
 *   window lowered or raised to what that provider reported in an overflow (provider reports are
 *   authoritative).
 * Every SummaryCall names the model that answered (or failed last); usage is that model's. The
 * HTTP attempts behind a call (bodies sent, statuses, usage of rejected answers) are kept for it:
 * attemptsOf / sentFor / costFor, the ledger a re-run record is written from.
 */

function summaryError(e: AttemptError | SummaryError): SummaryError {
  return {
    kind: e.kind,
    message: e.message,
    ...(e.status !== undefined ? { status: e.status } : {}),
    ...(e.window !== undefined ? { window: e.window } : {}),
  };
}

/**
 * What one attempt cost: its reported usage, priced. No response or an error status is not billed
 * (0); a 2xx stream that broke off before reporting usage may have been, so its cost is unknown.
 */
function attemptCost(a: AttemptRecord): number | null {
  if (a.result.usage) return costOf(a.result.usage, a.pinned.prices);
  const status = a.result.status;
  return status === null || status >= 400 ? 0 : null;
}

export class ChainSummarizer implements Summarizer {
  private readonly reportedWindows = new Map<string, number>();
  private readonly ledger = new WeakMap<SummaryCall, readonly AttemptRecord[]>();

  constructor(
    readonly models: readonly PinnedModel[],
    private readonly opts: CallOptions,
  ) {}

  get window(): number | null {
    const head = this.models[0];
    if (!head) return null;
    return this.reportedWindows.get(modelLabel(head)) ?? head.window;
  }

  get defaultMaxOutput(): number | null {
    const head = this.models[0];
    return head ? maxOutputFor(head, { maxOutput: null }) : null;
  }

  /** Every HTTP attempt made for a call this summarizer returned, in order (retries and models tried included). */
  attemptsOf(call: SummaryCall): readonly AttemptRecord[] {
    return this.ledger.get(call) ?? [];
  }

  /** The exact requests sent for a call (keys never included). */
  sentFor(call: SummaryCall): readonly { url: string; method: string; body: string }[] {
    return this.attemptsOf(call).flatMap((a) =>
      a.result.sent ? [{ url: a.result.sent.url, method: a.result.sent.method, body: a.result.sent.body ?? '' }] : [],
    );
  }

  /** USD for all attempts of a call under the pinned prices; null when any part is unknown. */
  costFor(call: SummaryCall): number | null {
    return sumCosts(this.attemptsOf(call).map(attemptCost));
  }

  async summarize(request: SummaryRequest, signal: AbortSignal): Promise<SummaryCall> {
    const records: AttemptRecord[] = [];
    const call = await this.walk(request, signal, {
      ...this.opts,
      onAttempt: (a) => {
        records.push(a);
        this.opts.onAttempt?.(a);
      },
    });
    this.ledger.set(call, records);
    return call;
  }

  private async walk(request: SummaryRequest, signal: AbortSignal, opts: CallOptions): Promise<SummaryCall> {
    const started = performance.now();
    const providerRequest = { system: request.system, messages: request.messages, maxOutput: request.maxOutput };
    const failures: ModelCall[] = [];
    let attempts = 0;
    const call = (c: ModelCall | null, error: SummaryError | null): SummaryCall => ({
      request,
      model: c?.model ?? '',
      text: error ? null : (c?.last?.text ?? null),
      finish: c?.last?.finish ?? null,
      usage: c?.last?.usage ?? null,
      latencyMs: Math.round(performance.now() - started),
      attempts,
      error,
    });
    if (this.models.length === 0) {
      return call(null, {
        kind: 'exhausted',
        message: 'No summarization model: none is configured and the session does not record a connector we can call.',
      });
    }
    for (const model of this.models) {
      const c = await callModel(model, providerRequest, signal, opts, request.label);
      attempts += c.results.length;
      if (c.error === null) return call(c, null);
      if (c.error.kind === 'cancelled') return call(c, summaryError(c.error));
      if (c.error.kind === 'overflow') {
        if (c.error.window !== undefined) this.reportedWindows.set(c.model, c.error.window);
        return call(c, summaryError(c.error));
      }
      failures.push(c);
    }
    const last = failures.at(-1) as ModelCall;
    if (failures.length === 1) return call(last, summaryError(last.error as AttemptError));
    const each = failures.map(
      (f) => `${f.model} (${f.results.length} request${f.results.length === 1 ? '' : 's'}): ${f.error?.message ?? 'failed'}`,
    );
    return call(last, { kind: 'exhausted', message: `Every summarization model failed: ${each.join('; ')}` });
  }
}
