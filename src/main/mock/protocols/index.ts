import { anthropicMessages } from './anthropic';
import { openaiResponses } from './openai-responses';
import type { ProtocolAdapter } from './types';

export { anthropicMessages, ANTHROPIC_ID } from './anthropic';
export { openaiResponses, RESPONSES_ID } from './openai-responses';
export type { Answer, ProtocolAdapter, RenderContext, Route, SseEvent } from './types';

/**
 * The protocols the mock speaks, tried in order for each request. Chat Completions
 * (POST /v1/chat/completions) and Gemini (POST /v1beta/models/{model}:streamGenerateContent) are
 * added by writing a ProtocolAdapter and listing it here.
 */
export const PROTOCOLS: readonly ProtocolAdapter[] = [anthropicMessages, openaiResponses];
