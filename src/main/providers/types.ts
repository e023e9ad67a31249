import type { Finish, Usage } from '../../shared/model/event';
import type { PinnedModel } from '../../shared/rerun/pinned';
import type { SummaryError, SummaryMessage } from '../../shared/strategies/types';

/*
 * Shapes shared by the provider adapters (one per wire protocol, each over the provider's official
 * SDK), our single retry policy and the summarization-model chain. An adapter never throws: every
 * outcome, failures included, is an AttemptResult.
 */

/** Added to the SDKs' own timeouts so ours (per attempt, with its clear classification) always fires first. */
export const SDK_TIMEOUT_MARGIN_MS = 5_000;

/** The fetch signature the SDKs accept as their `fetch` option. */
export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** A protocol-neutral request (a SummaryRequest without its stage and label). */
export interface ProviderRequest {
  readonly system: string | null;
  readonly messages: readonly SummaryMessage[];
  /** Output ceiling to send; null: the pinned `params.maxOutput`, else none (Anthropic: its default). */
  readonly maxOutput: number | null;
}

/** What went over the wire, as the SDK handed it to fetch. Never headers (they carry the key); secrets redacted. */
export interface SentRequest {
  readonly url: string;
  readonly method: string;
  /** The body as sent (UTF-8), with any secret replaced by [REDACTED]; null when there was none. */
  readonly body: string | null;
  /** Byte length of the body actually sent (before redaction). */
  readonly bodyBytes: number;
}

/** A classified failure of one HTTP attempt. */
export interface AttemptError extends SummaryError {
  /** Whether our retry policy may try the same model again. */
  readonly retryable: boolean;
  /** Delay the provider asked for (retry-after-ms / retry-after), in ms; null when it gave none. */
  readonly retryAfterMs: number | null;
}

/** One HTTP attempt against one pinned model. */
export interface AttemptResult {
  /** "provider:model". */
  readonly model: string;
  /** Only for a natural finish with non-empty text (completion integrity). */
  readonly text: string | null;
  /** Every text delta received, even when rejected (for the record; never checkpoint evidence). */
  readonly received: string;
  readonly finish: Finish | null;
  /** Recorded whenever the provider reported it, rejected answers included. */
  readonly usage: Usage | null;
  readonly latencyMs: number;
  readonly sent: SentRequest | null;
  /** HTTP status of the response; null when none arrived (connection error, cancelled first). */
  readonly status: number | null;
  /** The output ceiling this attempt sent (null: none sent). */
  readonly maxOutputSent: number | null;
  readonly error: AttemptError | null;
}

/** What a protocol implementation fills in while it streams (read even after it throws). */
export interface StreamAccumulator {
  text: string;
  finish: Finish | null;
  usage: Usage | null;
}

export interface ProtocolContext {
  readonly model: PinnedModel;
  readonly request: ProviderRequest;
  /** The key, or a placeholder for keyless local endpoints (SDKs refuse an empty key). */
  readonly apiKey: string;
  /** The recording fetch every SDK request must go through. */
  readonly fetch: Fetch;
  /** Aborts on cancellation or on the per-attempt timeout. */
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  /** The output ceiling to send (already resolved), or null for none. */
  readonly maxOutput: number | null;
}

/** One wire protocol over its official SDK. `run` throws SDK errors; the caller classifies them. */
export interface Protocol {
  readonly id: 'openai-chat' | 'openai-responses' | 'anthropic-messages' | 'gemini';
  /** The ceiling sent when neither the request nor the pinned params set one (null: none is sent). */
  readonly defaultMaxOutput: number | null;
  run(ctx: ProtocolContext, acc: StreamAccumulator): Promise<void>;
  /** Why this protocol cannot send the pinned settings as given; null when it can. */
  unsupported?(model: PinnedModel): string | null;
}
