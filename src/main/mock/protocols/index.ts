import { anthropicMessages } from './anthropic';
import { gemini } from './gemini';
import { openaiChat } from './openai-chat';
import { openaiResponses } from './openai-responses';
import type { ProtocolAdapter } from './types';

export { anthropicMessages, ANTHROPIC_ID } from './anthropic';
export { gemini, GEMINI_ID } from './gemini';
export { openaiChat, CHAT_ID } from './openai-chat';
export { openaiResponses, RESPONSES_ID } from './openai-responses';
export type { Answer, ProtocolAdapter, RenderContext, Route, SseEvent } from './types';

/** The protocols the mock speaks, tried in order for each request (their routes do not overlap). */
export const PROTOCOLS: readonly ProtocolAdapter[] = [anthropicMessages, openaiResponses, openaiChat, gemini];
