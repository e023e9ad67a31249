/*
 * Providers for re-runs: one adapter per wire protocol over the official SDKs, our single retry
 * policy and per-endpoint limiter, the summarization-model chain, keys and their redaction.
 * Build a Summarizer with:
 *   new ChainSummarizer(resolveSummarizationModels(chain, sessionConnector), { keys: keyLookup(process.env, store) })
 */
export { ChainSummarizer } from './chain';
export { type AttemptRecord, type CallOptions, type KeyLookup, type ModelCall, SHARED_LIMITERS, callModel, keyLookup } from './call';
export { NO_KEY, PROTOCOL_OF, type AttemptOptions, maxOutputFor, runAttempt } from './attempt';
export { ANTHROPIC_DEFAULT_MAX_OUTPUT } from './anthropic';
export { MISSING_FINISH, judgeCompletion } from './finish';
export { type Encryptor, KeyStore, type StoreResult, refusalOf } from './key-store';
export { type Env, type KeySource, type KeyStatus, type ResolvedKey, STANDARD_KEY_ENV, keySlot, keyStatus, needsKey, resolveKey } from './keys';
export { Limiter, type LimiterOptions, ProviderLimiters } from './limiter';
export { parseOverflow } from './overflow';
export { REDACTED, redactSecrets } from './redact';
export { type Clock, DEFAULT_RETRY_POLICY, type RetryPolicy, backoffMs, decideRetry, systemClock } from './retry';
export { parseRetryAfter } from './retry-after';
export type { AttemptError, AttemptResult, Fetch, ProviderRequest, SentRequest } from './types';
