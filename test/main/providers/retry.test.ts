import { describe, expect, it } from 'vitest';
import { type CallOptions, callModel } from '../../../src/main/providers/call';
import { DEFAULT_RETRY_POLICY, backoffMs, decideRetry } from '../../../src/main/providers/retry';
import { parseRetryAfter } from '../../../src/main/providers/retry-after';
import type { AttemptError } from '../../../src/main/providers/types';
import type { ProviderId } from '../../../src/shared/rerun/pinned';
import { PROTOCOL_PROVIDERS, fixedKey, pin, recordingClock, request, startMock } from './helpers';

/*
 * Our one retry policy, against the real SDKs and the mock: which failures are retried, how long
 * it waits (the injected sleep receives the delay), that retries are bounded, and that one signal
 * stops everything, backoff included.
 */

const ok = { reply: { content: [{ type: 'text' as const, text: 'Objective: done.' }] } };
const req = request();

function opts(clock = recordingClock(), over: Partial<CallOptions> = {}): CallOptions {
  return { keys: fixedKey(), clock, ...over };
}

describe('retry decisions', () => {
  const err = (over: Partial<AttemptError>): AttemptError => ({ kind: 'http', message: 'x', retryable: true, retryAfterMs: null, ...over });

  it('backs off exponentially with jitter, capped', () => {
    const p = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 1000, maxDelayMs: 4000 };
    expect([0, 1, 2, 3].map((i) => backoffMs(i, p, () => 0))).toEqual([500, 1000, 2000, 2000]);
    expect([0, 1, 2, 3].map((i) => backoffMs(i, p, () => 0.999999))).toEqual([1000, 2000, 4000, 4000]);
  });

  it('honours retry-after, refuses one longer than the cap, stops after the bound', () => {
    const p = DEFAULT_RETRY_POLICY;
    expect(decideRetry(err({ retryAfterMs: 2500 }), 0, p, () => 0.5)).toEqual({ retry: true, delayMs: 2500 });
    const long = decideRetry(err({ retryAfterMs: 3_600_000 }), 0, p, () => 0.5);
    expect(long.retry).toBe(false);
    expect(!long.retry && long.reason).toContain('3600 s');
    expect(decideRetry(err({}), 3, p, () => 0.5)).toEqual({ retry: false, reason: 'gave up after 4 attempts' });
    expect(decideRetry(err({ kind: 'overflow', retryable: false }), 0, p, () => 0.5)).toEqual({ retry: false, reason: null });
  });

  it('parses retry-after-ms, delta-seconds and HTTP dates', () => {
    const now = Date.parse('2026-09-13T02:14:00Z');
    expect(parseRetryAfter('7', '1500', now)).toBe(1500);
    expect(parseRetryAfter('2', null, now)).toBe(2000);
    expect(parseRetryAfter('0.5', null, now)).toBe(500);
    expect(parseRetryAfter('Sun, 13 Sep 2026 02:14:03 GMT', null, now)).toBe(3000);
    expect(parseRetryAfter('Sun, 13 Sep 2026 02:13:00 GMT', null, now)).toBe(0);
    expect(parseRetryAfter('soon', null, now)).toBeNull();
    expect(parseRetryAfter(null, null, now)).toBeNull();
  });
});

describe('callModel retries against the mock', () => {
  it('429 with retry-after: waits exactly what the provider asked, then succeeds', async () => {
    const m = await startMock({ steps: [{ fault: { kind: 'rate_limit', retryAfter: 2 } }, ok] });
    const clock = recordingClock();
    const c = await callModel(pin('anthropic', m), req, new AbortController().signal, opts(clock));
    expect(c.error).toBeNull();
    expect(c.last?.text).toBe('Objective: done.');
    expect(clock.sleeps).toEqual([2000]);
    expect(c.results.map((r) => r.status)).toEqual([429, 200]);
    expect(m.requests).toHaveLength(2);
  });

  it('retry-after-ms wins over retry-after; an HTTP date is measured against the clock', async () => {
    const m = await startMock({
      steps: [
        { fault: { kind: 'rate_limit', retryAfter: 9, headers: { 'retry-after-ms': '1250' } } },
        { fault: { kind: 'http', status: 503, headers: { 'retry-after': 'Sun, 13 Sep 2026 02:14:04 GMT' } } },
        ok,
      ],
    });
    const clock = { ...recordingClock(), now: () => Date.parse('2026-09-13T02:14:00Z') };
    const c = await callModel(pin('openai', m), req, new AbortController().signal, opts(clock));
    expect(c.error).toBeNull();
    expect(clock.sleeps).toEqual([1250, 4000]);
  });

  it('500 then success: one backoff from our policy (the SDK does not retry on its own)', async () => {
    const m = await startMock({ steps: [{ fault: { kind: 'http', status: 500 } }, ok] });
    const clock = recordingClock();
    const c = await callModel(pin('openai-responses', m), req, new AbortController().signal, opts(clock));
    expect(c.error).toBeNull();
    // random 0.5, base 500: 250 + 125.
    expect(clock.sleeps).toEqual([375]);
    expect(m.requests.map((r) => r.answer.status)).toEqual([500, 200]);
  });

  it.each(PROTOCOL_PROVIDERS)('%s: an overloaded provider is retried', async (provider) => {
    const m = await startMock({ steps: [{ fault: { kind: 'overloaded' } }, ok] });
    const c = await callModel(pin(provider, m), req, new AbortController().signal, opts());
    expect(c.error).toBeNull();
    expect(c.results[0]?.error).toMatchObject({ kind: 'http', retryable: true });
    expect([529, 503]).toContain(c.results[0]?.status);
    expect(m.requests).toHaveLength(2);
  });

  it.each(PROTOCOL_PROVIDERS)('%s: a stream cut mid-way is retried and its partial text discarded', async (provider) => {
    // Gemini sends one chunk per delta, the last with the finish: cut after the first to break it.
    const after = provider === 'gemini' ? 1 : 3;
    const m = await startMock({
      steps: [{ fault: { kind: 'cut', after, reply: { content: [{ type: 'text', text: 'Objective: partial partial partial' }] } } }, ok],
    });
    const c = await callModel(pin(provider, m), req, new AbortController().signal, opts());
    expect(c.results[0]?.error).toMatchObject({ kind: 'network', retryable: true });
    expect(c.results[0]?.text).toBeNull();
    expect(c.error).toBeNull();
    expect(c.last?.text).toBe('Objective: done.');
  });

  it('bounded: a provider failing every time gets 1 + 3 requests, backing off 375, 750, 1500', async () => {
    const m = await startMock({ steps: [{ fault: { kind: 'http', status: 502 }, times: 0 }] });
    const clock = recordingClock();
    const c = await callModel(pin('anthropic', m), req, new AbortController().signal, opts(clock));
    expect(m.requests).toHaveLength(4);
    expect(clock.sleeps).toEqual([375, 750, 1500]);
    expect(c.error).toMatchObject({ kind: 'http', status: 502 });
    expect(c.error?.message).toContain('gave up after 4 attempts');
  });

  it.each([400, 401, 403, 404])('does not retry HTTP %i', async (status) => {
    const m = await startMock({ steps: [{ fault: { kind: 'http', status }, times: 0 }] });
    const c = await callModel(pin('anthropic', m), req, new AbortController().signal, opts());
    expect(m.requests).toHaveLength(1);
    expect(c.error).toMatchObject({ kind: 'http', status, retryable: false });
  });

  it.each([408, 409])('retries HTTP %i', async (status) => {
    const m = await startMock({ steps: [{ fault: { kind: 'http', status } }, ok] });
    const c = await callModel(pin('openai', m), req, new AbortController().signal, opts());
    expect(c.error).toBeNull();
    expect(m.requests).toHaveLength(2);
  });

  it('a retry-after longer than we wait ends the call instead of sleeping for it', async () => {
    const m = await startMock({ steps: [{ fault: { kind: 'rate_limit', retryAfter: 3600 }, times: 0 }] });
    const clock = recordingClock();
    const c = await callModel(pin('anthropic', m), req, new AbortController().signal, opts(clock));
    expect(m.requests).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
    expect(c.error?.message).toContain('asked to wait 3600 s');
  });

  it('per-attempt timeout: a stream slower than the budget is aborted, retried, and reported as timeout', async () => {
    const slow = { reply: { content: [{ type: 'text' as const, text: 'Objective: slowly written.' }], eventDelayMs: 400 } };
    const m = await startMock({ steps: [{ ...slow, times: 0 }] });
    const t0 = Date.now();
    const c = await callModel(
      pin('anthropic', m),
      req,
      new AbortController().signal,
      opts(recordingClock(), { policy: { attemptTimeoutMs: 250, retries: 1 } }),
    );
    expect(c.error).toMatchObject({ kind: 'timeout' });
    expect(c.results.map((r) => r.error?.kind)).toEqual(['timeout', 'timeout']);
    expect(m.requests).toHaveLength(2);
    expect(Date.now() - t0).toBeLessThan(3000);
  });

  it('cancelling during a backoff sleep ends the call at once, with no further request', async () => {
    const m = await startMock({ steps: [{ fault: { kind: 'http', status: 500 }, times: 0 }] });
    const ctl = new AbortController();
    const clock = recordingClock(() => ctl.abort());
    const c = await callModel(pin('gemini', m), req, ctl.signal, opts(clock));
    expect(c.cancelled).toBe(true);
    expect(c.error?.kind).toBe('cancelled');
    expect(clock.sleeps).toHaveLength(1);
    expect(m.requests).toHaveLength(1);
  });

  it('the real sleep wakes on abort instead of running its course', async () => {
    const m = await startMock({ steps: [{ fault: { kind: 'rate_limit', retryAfter: 30 }, times: 0 }] });
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 150);
    const t0 = Date.now();
    const c = await callModel(pin('anthropic', m), req, ctl.signal, { keys: fixedKey() });
    expect(c.error?.kind).toBe('cancelled');
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it.each(PROTOCOL_PROVIDERS)('%s: cancelling mid-stream stops the request at once', async (provider) => {
    const m = await startMock({
      steps: [{ reply: { content: [{ type: 'text', text: 'Objective: a long and slow answer' }], eventDelayMs: 500 } }],
    });
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 150);
    const t0 = Date.now();
    const c = await callModel(pin(provider, m), req, ctl.signal, opts());
    expect(c.error?.kind).toBe('cancelled');
    expect(c.last?.text ?? null).toBeNull();
    expect(Date.now() - t0).toBeLessThan(1500);
    expect(m.requests).toHaveLength(1);
  });
});

describe('context overflow is classified, with the window, and never retried', () => {
  const WINDOW: Record<ProviderId, number | null> = {
    anthropic: 200_000,
    openai: 128_000,
    gemini: 1_048_576,
    'openai-responses': null,
    mock: 200_000,
  };

  it.each(PROTOCOL_PROVIDERS)('%s', async (provider) => {
    const m = await startMock({ steps: [{ fault: { kind: 'context_overflow', window: WINDOW[provider] ?? 400_000 }, times: 0 }] });
    const clock = recordingClock();
    const c = await callModel(pin(provider, m), req, new AbortController().signal, opts(clock));
    expect(m.requests).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
    expect(c.error).toMatchObject({ kind: 'overflow', status: 400, retryable: false });
    // The Responses API words its overflow without numbers: the window stays unknown.
    expect(c.error?.window ?? null).toBe(WINDOW[provider]);
  });

  it('Responses: an overflow delivered mid-stream (response.failed) is an overflow too', async () => {
    const m = await startMock({ steps: [{ fault: { kind: 'context_overflow', window: 272_000, inStream: true }, times: 0 }] });
    const c = await callModel(pin('openai-responses', m), req, new AbortController().signal, opts());
    expect(m.requests).toHaveLength(1);
    expect(c.error).toMatchObject({ kind: 'overflow', retryable: false });
  });
});
