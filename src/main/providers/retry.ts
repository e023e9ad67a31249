import { pause } from '../async/pause';
import { ABORT_CANCELLED, ABORT_TIMEOUT } from './errors';
import type { AttemptError } from './types';

/*
 * Our one retry policy (every SDK's own retries are off, so there is exactly one place that decides
 * how often a provider is asked again). Bounded attempts; exponential backoff with jitter; the
 * provider's retry-after / retry-after-ms honoured; retries only for errors classified retryable
 * (errors.ts: connection errors, cut streams, timeouts, 408, 409, 429, 5xx incl. 529). Answers the
 * model gave (incomplete, empty) and context overflows are never retried on the same model: the
 * same request would get the same answer (cosh's regression is exactly such a loop).
 * One AbortSignal cancels everything at once, backoff sleeps included. Clock, sleep and randomness
 * are injectable for tests.
 */

export interface RetryPolicy {
  /** Retries after the first attempt. */
  readonly retries: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** A provider's retry-after longer than this is not waited for; the error stands. */
  readonly maxRetryAfterMs: number;
  /** Budget of one attempt, from sending to the end of the stream. */
  readonly attemptTimeoutMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  retries: 3,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
  attemptTimeoutMs: 600_000,
};

export interface Clock {
  now(): number;
  /** Resolves after ms, or as soon as the signal aborts. Never rejects. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** In [0, 1). */
  random(): number;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  random: () => Math.random(),
  sleep: pause,
};

/** Exponential backoff with "equal jitter": half the step is fixed, half random, so retries spread but never collapse to 0. */
export function backoffMs(retryIndex: number, policy: RetryPolicy, random: () => number): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retryIndex);
  return Math.round(step / 2 + (step / 2) * random());
}

export type RetryDecision = { readonly retry: true; readonly delayMs: number } | { readonly retry: false; readonly reason: string | null };

/** Whether to try the same model again after an attempt that ended with `error`, and after how long. */
export function decideRetry(error: AttemptError | null, retriesDone: number, policy: RetryPolicy, random: () => number): RetryDecision {
  if (!error) return { retry: false, reason: null };
  if (!error.retryable) return { retry: false, reason: null };
  if (retriesDone >= policy.retries) return { retry: false, reason: `gave up after ${retriesDone + 1} attempts` };
  if (error.retryAfterMs !== null) {
    if (error.retryAfterMs > policy.maxRetryAfterMs) {
      return {
        retry: false,
        reason: `the provider asked to wait ${Math.ceil(error.retryAfterMs / 1000)} s, longer than the ${Math.ceil(policy.maxRetryAfterMs / 1000)} s we wait`,
      };
    }
    return { retry: true, delayMs: error.retryAfterMs };
  }
  return { retry: true, delayMs: backoffMs(retriesDone, policy, random) };
}

/** A signal for one attempt: aborts with ABORT_CANCELLED when the job does, with ABORT_TIMEOUT when the attempt runs out of time. */
export function attemptSignal(job: AbortSignal, timeoutMs: number): { signal: AbortSignal; dispose(): void } {
  const ctl = new AbortController();
  const onJob = (): void => ctl.abort(ABORT_CANCELLED);
  if (job.aborted) ctl.abort(ABORT_CANCELLED);
  else job.addEventListener('abort', onJob, { once: true });
  const timer = setTimeout(() => ctl.abort(ABORT_TIMEOUT), timeoutMs);
  return {
    signal: ctl.signal,
    dispose: () => {
      clearTimeout(timer);
      job.removeEventListener('abort', onJob);
    },
  };
}

export interface RetryOutcome<T> {
  /** Every attempt made, in order. Empty when cancelled before the first was sent. */
  readonly results: readonly T[];
  /** The delay slept before each retry. */
  readonly delays: readonly number[];
  /** Why retrying stopped while the last attempt still failed (null: succeeded, not retryable, or cancelled). */
  readonly gaveUp: string | null;
  readonly cancelled: boolean;
}

/**
 * Runs `attempt` until it succeeds, fails for good, runs out of retries or the signal aborts.
 * `attempt` returns null when it was cancelled before sending (e.g. while queued for a slot).
 */
export async function retrying<T extends { readonly error: AttemptError | null }>(
  attempt: (index: number) => Promise<T | null>,
  opts: {
    readonly policy: RetryPolicy;
    readonly clock: Clock;
    readonly signal: AbortSignal;
    readonly onRetry?: (failed: T, delayMs: number) => void;
  },
): Promise<RetryOutcome<T>> {
  const results: T[] = [];
  const delays: number[] = [];
  for (let i = 0; ; i++) {
    if (opts.signal.aborted) return { results, delays, gaveUp: null, cancelled: true };
    const r = await attempt(i);
    if (r === null) return { results, delays, gaveUp: null, cancelled: true };
    results.push(r);
    // An answer that completed stands even if cancellation arrived just after it.
    if (r.error === null) return { results, delays, gaveUp: null, cancelled: false };
    if (r.error.kind === 'cancelled' || opts.signal.aborted) return { results, delays, gaveUp: null, cancelled: true };
    const d = decideRetry(r.error, i, opts.policy, () => opts.clock.random());
    if (!d.retry) return { results, delays, gaveUp: d.reason, cancelled: false };
    opts.onRetry?.(r, d.delayMs);
    delays.push(d.delayMs);
    await opts.clock.sleep(d.delayMs, opts.signal);
  }
}
