import type { PinnedModel } from '../../shared/rerun/pinned';
import { modelLabel } from '../../shared/rerun/pinned';
import { runAttempt } from './attempt';
import { EndpointApprovals } from './endpoints';
import type { StoreResult } from './key-store';
import { type Env, type KeyReader, type ResolvedKey, missingKeyMessage, needsKey, resolveKey } from './keys';
import { ProviderLimiters } from './limiter';
import { type Clock, DEFAULT_RETRY_POLICY, type RetryPolicy, attemptSignal, retrying, systemClock } from './retry';
import type { AttemptError, AttemptResult, Fetch, ProviderRequest } from './types';

/*
 * One model, asked with our retry policy: resolve the key, then for each attempt take a slot from
 * the endpoint's limiter (released before any backoff sleep), arm the per-attempt timeout, and run
 * the adapter. Every attempt is reported through onAttempt (the exact body sent, the status, the
 * finish and usage) so re-run records can keep them. Never throws.
 */

export type KeyLookup = (model: PinnedModel) => Promise<StoreResult<ResolvedKey | null>>;

/**
 * Keys from the environment, then the store (keys.ts), each sent only where `endpoints` allows
 * (endpoints.ts): a key found for an endpoint nobody approved is an error, not a request.
 */
export function keyLookup(env: Env, store: KeyReader | null, endpoints: EndpointApprovals): KeyLookup {
  return async (model) => {
    const key = await resolveKey(model, env, store);
    if (!key.ok || key.value === null) return key;
    if (await endpoints.allows(model, key.value.from)) return key;
    return { ok: false, error: EndpointApprovals.refusal(model, key.value.from) };
  };
}

export interface AttemptRecord {
  /** The pinned model asked (its prices price the attempt). */
  readonly pinned: PinnedModel;
  readonly label: string;
  /** 1-based, per model. */
  readonly attempt: number;
  readonly result: AttemptResult;
}

export interface CallOptions {
  readonly keys: KeyLookup;
  /** Per-endpoint concurrency; default SHARED_LIMITERS. */
  readonly limiters?: ProviderLimiters;
  readonly policy?: Partial<RetryPolicy>;
  readonly clock?: Clock;
  /** The fetch under the recorder (tests; default global fetch). */
  readonly fetch?: Fetch;
  readonly onAttempt?: (record: AttemptRecord) => void;
}

export interface ModelCall {
  readonly model: string;
  readonly results: readonly AttemptResult[];
  /** The last attempt (null when none was sent). */
  readonly last: AttemptResult | null;
  /** The final error (null: answered), including failures before sending (no key) and cancellation. */
  readonly error: AttemptError | null;
  readonly delays: readonly number[];
  readonly cancelled: boolean;
}

/** The process-wide limits (4 per endpoint) used when a caller brings none: an endpoint's limit holds across runs. */
export const SHARED_LIMITERS = new ProviderLimiters();

const settled = (kind: AttemptError['kind'], message: string): AttemptError => ({ kind, message, retryable: false, retryAfterMs: null });

export async function callModel(
  model: PinnedModel,
  request: ProviderRequest,
  signal: AbortSignal,
  opts: CallOptions,
  label = '',
): Promise<ModelCall> {
  const name = modelLabel(model);
  const none = (error: AttemptError, cancelled = false): ModelCall => ({
    model: name,
    results: [],
    last: null,
    error,
    delays: [],
    cancelled,
  });
  if (signal.aborted) return none(settled('cancelled', 'cancelled'), true);
  const key = await opts
    .keys(model)
    .catch((e: unknown) => ({ ok: false as const, error: `Key lookup failed: ${e instanceof Error ? e.message : String(e)}` }));
  if (!key.ok) return none(settled('http', key.error));
  if (key.value === null && needsKey(model)) return none(settled('http', missingKeyMessage(model)));
  const policy = { ...DEFAULT_RETRY_POLICY, ...opts.policy };
  const clock = opts.clock ?? systemClock;
  const limiter = (opts.limiters ?? SHARED_LIMITERS).for(model);
  const apiKey = key.value?.key ?? null;

  const outcome = await retrying<AttemptResult>(
    async (i) => {
      const release = await limiter.acquire(signal);
      if (!release) return null;
      const att = attemptSignal(signal, policy.attemptTimeoutMs);
      try {
        const result = await runAttempt(model, request, {
          apiKey,
          signal: att.signal,
          timeoutMs: policy.attemptTimeoutMs,
          now: () => clock.now(),
          ...(opts.fetch ? { fetch: opts.fetch } : {}),
        });
        opts.onAttempt?.({ pinned: model, label, attempt: i + 1, result });
        return result;
      } finally {
        att.dispose();
        release();
      }
    },
    { policy, clock, signal },
  );
  const last = outcome.results.at(-1) ?? null;
  let error = last?.error ?? null;
  if (outcome.cancelled) error = settled('cancelled', 'cancelled');
  else if (error && outcome.gaveUp) error = { ...error, message: `${error.message} (${outcome.gaveUp})` };
  return { model: name, results: outcome.results, last, error, delays: outcome.delays, cancelled: outcome.cancelled };
}
