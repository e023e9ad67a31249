import OpenAI from 'openai';
import type { Usage } from '../../shared/model/event';
import { chatFinish } from './finish';
import { SDK_TIMEOUT_MARGIN_MS, type Protocol, type ProtocolContext, type StreamAccumulator } from './types';

/*
 * Chat Completions over the official `openai` SDK, streaming — also every OpenAI-compatible server
 * by baseUrl (Ollama, vLLM, llama.cpp, LM Studio, OpenRouter). Two compatibility choices:
 * - the output ceiling is `max_completion_tokens` on OpenAI's own endpoint (reasoning models
 *   reject `max_tokens`) and `max_tokens` on any other baseUrl, the name every compatible server
 *   understands;
 * - `stream_options.include_usage` is sent so the final chunk carries usage (compatible servers
 *   accept it; without it a stream reports no usage at all).
 */

export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

type ChatParams = OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming;
type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

export function chatBody(ctx: Pick<ProtocolContext, 'model' | 'request' | 'maxOutput'>): ChatParams {
  const { model, request } = ctx;
  const messages: ChatMessage[] = [];
  if (request.system !== null) messages.push({ role: 'system', content: request.system });
  for (const m of request.messages) messages.push({ role: m.role, content: m.text });
  const body: ChatParams = { model: model.model, messages, stream: true, stream_options: { include_usage: true } };
  if (ctx.maxOutput !== null) {
    if (model.baseUrl === undefined) body.max_completion_tokens = ctx.maxOutput;
    else body.max_tokens = ctx.maxOutput;
  }
  if (model.params.temperature !== undefined) body.temperature = model.params.temperature;
  if (model.params.reasoning) body.reasoning_effort = model.params.reasoning;
  return body;
}

/** OpenAI counts cached tokens inside prompt_tokens; Usage.input excludes them. */
export function chatUsage(u: OpenAI.CompletionUsage): Usage {
  const cached = u.prompt_tokens_details?.cached_tokens ?? 0;
  const out: Usage = { input: Math.max(0, u.prompt_tokens - cached), output: u.completion_tokens, cacheRead: cached };
  const reasoning = u.completion_tokens_details?.reasoning_tokens;
  if (typeof reasoning === 'number') out.reasoning = reasoning;
  return out;
}

export function openaiClient(ctx: ProtocolContext): OpenAI {
  return new OpenAI({
    apiKey: ctx.apiKey,
    // Explicit, so OPENAI_BASE_URL / OPENAI_ORG_ID / OPENAI_PROJECT_ID cannot redirect or re-attribute a pinned model.
    baseURL: ctx.model.baseUrl ?? OPENAI_BASE_URL,
    organization: null,
    project: null,
    maxRetries: 0,
    // Our per-attempt timeout (retry.ts) fires first and is reported as a timeout; this is a backstop.
    timeout: ctx.timeoutMs + SDK_TIMEOUT_MARGIN_MS,
    fetch: ctx.fetch,
    logLevel: 'off',
  });
}

async function run(ctx: ProtocolContext, acc: StreamAccumulator): Promise<void> {
  const stream = await openaiClient(ctx).chat.completions.create(chatBody(ctx), { signal: ctx.signal });
  let refused = false;
  for await (const chunk of stream) {
    if (chunk.usage) acc.usage = chatUsage(chunk.usage);
    const choice = chunk.choices[0];
    if (!choice) continue;
    if (typeof choice.delta.content === 'string') acc.text += choice.delta.content;
    // A refusal's words are kept as received text (for the record); the finish rejects them.
    if (typeof choice.delta.refusal === 'string' && choice.delta.refusal !== '') {
      refused = true;
      acc.text += choice.delta.refusal;
    }
    if (choice.finish_reason) acc.finish = chatFinish(choice.finish_reason, refused);
  }
}

export const openaiChat: Protocol = { id: 'openai-chat', defaultMaxOutput: null, run };
