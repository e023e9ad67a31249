import type { ProviderId, PinnedModel } from '../../shared/rerun/pinned';
import { modelLabel } from '../../shared/rerun/pinned';
import { anthropicMessages } from './anthropic';
import { abortError, classifyThrown } from './errors';
import { judgeCompletion } from './finish';
import { gemini } from './gemini';
import { openaiChat } from './openai-chat';
import { openaiResponses } from './openai-responses';
import { redactSecrets } from './redact';
import type { AttemptError, AttemptResult, Fetch, Protocol, ProviderRequest, SentRequest, StreamAccumulator } from './types';
import { type WireRecord, recordingFetch } from './wire';

/*
 * One HTTP attempt against one pinned model: builds the SDK client with a recording fetch, streams,
 * classifies whatever went wrong, applies completion integrity and redacts keys. Never throws.
 * Retries, the per-attempt timeout and concurrency are the caller's (call.ts).
 */

/**
 * Which protocol serves each provider. `mock` is Palimpsest's local mock server, spoken to over the
 * Anthropic Messages protocol (the first protocol it serves) at the model's baseUrl.
 */
export const PROTOCOL_OF: Record<ProviderId, Protocol> = {
  openai: openaiChat,
  'openai-responses': openaiResponses,
  anthropic: anthropicMessages,
  gemini,
  mock: anthropicMessages,
};

/** SDKs refuse an empty key; keyless local endpoints (Ollama, the mock) get this instead. */
export const NO_KEY = 'no-key';

/** The output ceiling an attempt sends: the request's, else the pinned one, else the protocol's default. */
export function maxOutputFor(model: PinnedModel, request: Pick<ProviderRequest, 'maxOutput'>): number | null {
  return request.maxOutput ?? model.params.maxOutput ?? PROTOCOL_OF[model.provider].defaultMaxOutput;
}

export interface AttemptOptions {
  readonly apiKey: string | null;
  /** Aborted with ABORT_TIMEOUT or ABORT_CANCELLED (errors.ts) by the caller. */
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  /** The fetch under the recorder (default: global fetch). */
  readonly fetch?: Fetch;
  readonly now?: () => number;
}

function sentOf(wire: WireRecord, keys: readonly (string | null)[]): SentRequest | null {
  if (wire.url === null) return null;
  return {
    url: redactSecrets(wire.url, keys),
    method: wire.method ?? 'GET',
    body: wire.body === null ? null : redactSecrets(wire.body, keys),
    bodyBytes: wire.bodyBytes,
  };
}

function failure(model: PinnedModel, message: string): AttemptResult {
  const error: AttemptError = { kind: 'http', message, retryable: false, retryAfterMs: null };
  return {
    model: modelLabel(model),
    text: null,
    received: '',
    finish: null,
    usage: null,
    latencyMs: 0,
    sent: null,
    status: null,
    maxOutputSent: null,
    error,
  };
}

export async function runAttempt(model: PinnedModel, request: ProviderRequest, opts: AttemptOptions): Promise<AttemptResult> {
  const protocol = PROTOCOL_OF[model.provider];
  if (model.provider === 'mock' && model.baseUrl === undefined) return failure(model, 'the mock provider needs a baseUrl');
  const refused = protocol.unsupported?.(model) ?? null;
  if (refused !== null) return failure(model, refused);
  const now = opts.now ?? Date.now;
  const keys = [opts.apiKey];
  const { fetch, wire } = recordingFetch(opts.fetch);
  const acc: StreamAccumulator = { text: '', finish: null, usage: null };
  const maxOutput = maxOutputFor(model, request);
  const started = performance.now();
  let error: AttemptError | null;
  try {
    await protocol.run(
      { model, request, apiKey: opts.apiKey ?? NO_KEY, fetch, signal: opts.signal, timeoutMs: opts.timeoutMs, maxOutput },
      acc,
    );
    // Some SDKs end the iteration quietly when their signal aborts: an early end is still an abort.
    error = abortError({ wire, signal: opts.signal, keys, now: now() }, opts.timeoutMs);
  } catch (e) {
    error = classifyThrown(e, { wire, signal: opts.signal, keys, now: now() }, opts.timeoutMs);
  }
  const base = {
    model: modelLabel(model),
    received: redactSecrets(acc.text, keys),
    usage: acc.usage,
    latencyMs: Math.round(performance.now() - started),
    sent: sentOf(wire, keys),
    status: wire.status,
    maxOutputSent: maxOutput,
  };
  if (error) return { ...base, text: null, finish: acc.finish, error };
  const judged = judgeCompletion(acc.text, acc.finish);
  const judgedError: AttemptError | null = judged.error ? { ...judged.error, retryable: false, retryAfterMs: null } : null;
  return { ...base, text: judged.text === null ? null : redactSecrets(judged.text, keys), finish: judged.finish, error: judgedError };
}
