import { type MockProvider, bodyJson } from '../../../src/main/mock';
import type { KeyLookup } from '../../../src/main/providers/call';
import type { Clock } from '../../../src/main/providers/retry';
import { type PinnedModel, type PinnedModelInput, type ProviderId, PinnedModel as PinnedSchema } from '../../../src/shared/rerun/pinned';
import type { SummaryRequest } from '../../../src/shared/strategies/types';

/*
 * Shared by the provider tests: a mock provider per test (closed after it), pinned models pointed
 * at it for each protocol, a fixed key, and a clock whose sleeps return at once but are recorded,
 * so a test asserts the exact backoff our policy chose without waiting for it.
 */

// A mock per test, closed after it: the mock provider tests' own helper.
export { startMock } from '../mock/helpers';

/** A key shaped like a real one, so pattern redaction would catch it too. */
export const KEY = 'sk-ant-api03-TESTKEY0123456789abcdefghijklmnop';

export const fixedKey =
  (key: string = KEY): KeyLookup =>
  async () => ({ ok: true, value: { key, source: 'env', from: 'TEST_KEY' } });

/** The base URL each SDK needs to reach the mock's routes. */
export function baseUrlFor(provider: ProviderId, url: string): string {
  return provider === 'openai' || provider === 'openai-responses' ? `${url}/v1` : url;
}

export function pin(provider: ProviderId, m: MockProvider, extra: Partial<PinnedModelInput> = {}): PinnedModel {
  return PinnedSchema.parse({ provider, model: `${provider}-model`, baseUrl: baseUrlFor(provider, m.url), ...extra });
}

export const PROTOCOL_PROVIDERS: readonly ProviderId[] = ['anthropic', 'openai-responses', 'openai', 'gemini'];

export function request(over: Partial<SummaryRequest> = {}): SummaryRequest {
  return {
    stage: 'one-shot',
    label: 'one-shot',
    system: 'You write handoff summaries.',
    messages: [{ role: 'user', text: 'Summarise the session so far.' }],
    maxOutput: null,
    ...over,
  };
}

export interface RecordingClock extends Clock {
  readonly sleeps: number[];
}

/** Sleeps are recorded and return at once; `onSleep` may act (cancel the job) before a sleep returns. */
export function recordingClock(onSleep?: (ms: number) => void): RecordingClock {
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => Date.now(),
    random: () => 0.5,
    sleep: async (ms, signal) => {
      sleeps.push(ms);
      onSleep?.(ms);
      if (signal.aborted) return;
      await Promise.resolve();
    },
  };
}

/** The output-ceiling field each protocol sends, read from the body the mock received. */
export function sentMaxOutput(m: MockProvider, i: number): unknown {
  const b = bodyJson(m.requests[i] as MockProvider['requests'][number]) as Record<string, unknown> | null;
  if (!b) return undefined;
  const gen = b.generationConfig as Record<string, unknown> | undefined;
  return b.max_tokens ?? b.max_completion_tokens ?? b.max_output_tokens ?? gen?.maxOutputTokens;
}
