import type OpenAI from 'openai';
import type { Usage } from '../../shared/model/event';
import { StreamFailure } from './errors';
import { responsesFinish } from './finish';
import { openaiClient } from './openai-chat';
import type { Protocol, ProtocolContext, StreamAccumulator } from './types';

/*
 * The OpenAI Responses API over the official `openai` SDK, streaming. `store: false`: a re-run's
 * summary requests carry a user's session, and nothing needs them kept server-side (we never chain
 * with previous_response_id). The finish is the terminal event's status (completed / incomplete
 * with its reason / failed); a refusal part or a function call turns a `completed` into a
 * non-natural finish.
 */

type ResponsesParams = OpenAI.Responses.ResponseCreateParamsStreaming;

export function responsesBody(ctx: Pick<ProtocolContext, 'model' | 'request' | 'maxOutput'>): ResponsesParams {
  const { model, request } = ctx;
  const body: ResponsesParams = {
    model: model.model,
    input: request.messages.map((m) => ({ type: 'message' as const, role: m.role, content: m.text })),
    stream: true,
    store: false,
  };
  if (request.system !== null) body.instructions = request.system;
  if (ctx.maxOutput !== null) body.max_output_tokens = ctx.maxOutput;
  if (model.params.temperature !== undefined) body.temperature = model.params.temperature;
  if (model.params.reasoning) body.reasoning = { effort: model.params.reasoning };
  return body;
}

/** Responses counts cached tokens inside input_tokens; Usage.input excludes them. */
export function responsesUsage(u: OpenAI.Responses.ResponseUsage): Usage {
  const cached = u.input_tokens_details?.cached_tokens ?? 0;
  const out: Usage = { input: Math.max(0, u.input_tokens - cached), output: u.output_tokens, cacheRead: cached };
  const reasoning = u.output_tokens_details?.reasoning_tokens;
  if (typeof reasoning === 'number') out.reasoning = reasoning;
  return out;
}

async function run(ctx: ProtocolContext, acc: StreamAccumulator): Promise<void> {
  const stream = await openaiClient(ctx).responses.create(responsesBody(ctx), { signal: ctx.signal });
  let refused = false;
  let toolCall = false;
  for await (const ev of stream) {
    switch (ev.type) {
      case 'response.output_text.delta':
        acc.text += ev.delta;
        break;
      case 'response.refusal.delta':
        // Kept as received text (for the record); the finish rejects it.
        refused = true;
        acc.text += ev.delta;
        break;
      case 'response.output_item.added':
        if (ev.item.type === 'function_call' || ev.item.type === 'custom_tool_call') toolCall = true;
        break;
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed': {
        const r = ev.response;
        if (r.usage) acc.usage = responsesUsage(r.usage);
        acc.finish = responsesFinish(r.status ?? 'missing', r.incomplete_details?.reason ?? null, refused, toolCall);
        if (ev.type === 'response.failed') {
          const code = r.error?.code ?? 'server_error';
          throw new StreamFailure(code, r.error?.message ?? 'the response failed');
        }
        break;
      }
      default:
        break;
    }
  }
}

export const openaiResponses: Protocol = { id: 'openai-responses', defaultMaxOutput: null, run };
