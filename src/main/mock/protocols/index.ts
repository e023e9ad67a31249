import { anthropicMessages } from './anthropic';
import { gemini } from './gemini';
import { openaiChat } from './openai-chat';
import { openaiResponses } from './openai-responses';
import type { ProtocolAdapter } from './types';

export type { ProtocolAdapter } from './types';

/** The protocols the mock speaks, tried in order for each request (their routes do not overlap). */
export const PROTOCOLS: readonly ProtocolAdapter[] = [anthropicMessages, openaiResponses, openaiChat, gemini];
