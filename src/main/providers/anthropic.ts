import Anthropic from '@anthropic-ai/sdk';
import type {
  MessageCreateParamsStreaming,
  Usage as AnthropicUsage,
  MessageDeltaUsage,
} from '@anthropic-ai/sdk/resources/messages/messages';
import type { Usage } from '../../shared/model/event';
import type { PinnedModel } from '../../shared/rerun/pinned';
import { anthropicFinish } from './finish';
import { SDK_TIMEOUT_MARGIN_MS, type Protocol, type ProtocolContext, type StreamAccumulator } from './types';

/*
 * Anthropic Messages over @anthropic-ai/sdk, streaming. The API requires max_tokens, so when
 * neither the request nor the pinned model sets a ceiling we send ANTHROPIC_DEFAULT_MAX_OUTPUT and
 * the attempt records it (it is also the Summarizer's defaultMaxOutput, so a strategy sizes its
 * request against the ceiling actually sent). 8,192 is accepted by every current Claude model and
 * is ample for a handoff summary; pin params.maxOutput to change it.
 *
 * The Messages API of this SDK (1.10) has no `temperature`: a pinned temperature is refused with a
 * clear error rather than silently dropped, since the record would claim a setting never sent.
 */

export const ANTHROPIC_DEFAULT_MAX_OUTPUT = 8192;
export const ANTHROPIC_BASE_URL = 'https://api.anthropic.com';

export function anthropicBody(ctx: Pick<ProtocolContext, 'model' | 'request' | 'maxOutput'>): MessageCreateParamsStreaming {
  const { model, request } = ctx;
  const body: MessageCreateParamsStreaming = {
    model: model.model,
    max_tokens: ctx.maxOutput ?? ANTHROPIC_DEFAULT_MAX_OUTPUT,
    messages: request.messages.map((m) => ({ role: m.role, content: m.text })),
    stream: true,
  };
  if (request.system !== null) body.system = request.system;
  if (model.params.reasoning) body.output_config = { effort: model.params.reasoning };
  return body;
}

function usageOf(u: AnthropicUsage | MessageDeltaUsage, prev: Usage | null): Usage {
  const out: Usage = { ...prev };
  if (typeof u.input_tokens === 'number') out.input = u.input_tokens;
  if (typeof u.output_tokens === 'number') out.output = u.output_tokens;
  if (typeof u.cache_read_input_tokens === 'number') out.cacheRead = u.cache_read_input_tokens;
  if (typeof u.cache_creation_input_tokens === 'number') out.cacheWrite = u.cache_creation_input_tokens;
  return out;
}

async function run(ctx: ProtocolContext, acc: StreamAccumulator): Promise<void> {
  const client = new Anthropic({
    apiKey: ctx.apiKey,
    // Explicit, so ANTHROPIC_AUTH_TOKEN / ANTHROPIC_BASE_URL in the environment cannot redirect a pinned model.
    authToken: null,
    baseURL: ctx.model.baseUrl ?? ANTHROPIC_BASE_URL,
    maxRetries: 0,
    // Our per-attempt timeout (retry.ts) fires first and is reported as a timeout; this is a backstop.
    timeout: ctx.timeoutMs + SDK_TIMEOUT_MARGIN_MS,
    fetch: ctx.fetch,
    logLevel: 'off',
  });
  const stream = await client.messages.create(anthropicBody(ctx), { signal: ctx.signal });
  for await (const ev of stream) {
    switch (ev.type) {
      case 'message_start':
        acc.usage = usageOf(ev.message.usage, acc.usage);
        break;
      case 'content_block_delta':
        if (ev.delta.type === 'text_delta') acc.text += ev.delta.text;
        break;
      case 'message_delta':
        acc.usage = usageOf(ev.usage, acc.usage);
        if (ev.delta.stop_reason) acc.finish = anthropicFinish(ev.delta.stop_reason);
        break;
      default:
        break;
    }
  }
}

function unsupported(model: PinnedModel): string | null {
  if (model.params.temperature !== undefined)
    return `${model.provider}:${model.model}: the Anthropic Messages API takes no temperature; remove params.temperature.`;
  return null;
}

export const anthropicMessages: Protocol = { id: 'anthropic-messages', defaultMaxOutput: ANTHROPIC_DEFAULT_MAX_OUTPUT, run, unsupported };
