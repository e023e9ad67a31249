import { type GenerateContentParameters, type GenerateContentResponseUsageMetadata, GoogleGenAI, ThinkingLevel } from '@google/genai';
import type { Usage } from '../../shared/model/event';
import type { ReasoningEffort } from '../../shared/rerun/pinned';
import { geminiFinish } from './finish';
import type { Protocol, ProtocolContext, StreamAccumulator } from './types';

/*
 * Gemini over @google/genai's generateContentStream. Three SDK behaviours are switched off so a
 * pinned request is one request: `vertexai: false` (GOOGLE_GENAI_USE_VERTEXAI cannot reroute it),
 * no `retryOptions` (the SDK then does not retry), and `automaticContinuation: false` (the SDK
 * would otherwise re-send the request after a dropped stream or a CONTINUATION finish).
 * Thought parts are reasoning, not summary text; Gemini counts them apart from candidates, so
 * output = candidates + thoughts (as OpenAI and Anthropic count output) and reasoning = thoughts.
 */

export const GEMINI_BASE_URL = 'https://generativelanguage.googleapis.com';

const LEVEL: Record<ReasoningEffort, ThinkingLevel> = { low: ThinkingLevel.LOW, medium: ThinkingLevel.MEDIUM, high: ThinkingLevel.HIGH };

export function geminiParams(
  ctx: Pick<ProtocolContext, 'model' | 'request' | 'maxOutput'> & { signal?: AbortSignal },
): GenerateContentParameters {
  const { model, request } = ctx;
  const config: NonNullable<GenerateContentParameters['config']> = { automaticContinuation: false };
  if (ctx.signal) config.abortSignal = ctx.signal;
  if (request.system !== null) config.systemInstruction = request.system;
  if (ctx.maxOutput !== null) config.maxOutputTokens = ctx.maxOutput;
  if (model.params.temperature !== undefined) config.temperature = model.params.temperature;
  if (model.params.reasoning) config.thinkingConfig = { thinkingLevel: LEVEL[model.params.reasoning] };
  return {
    model: model.model,
    contents: request.messages.map((m) => ({ role: m.role === 'assistant' ? 'model' : 'user', parts: [{ text: m.text }] })),
    config,
  };
}

/** promptTokenCount includes cached content; Usage.input excludes it. */
export function geminiUsage(u: GenerateContentResponseUsageMetadata): Usage {
  const cached = u.cachedContentTokenCount ?? 0;
  const thoughts = u.thoughtsTokenCount ?? 0;
  const out: Usage = {
    input: Math.max(0, (u.promptTokenCount ?? 0) - cached),
    output: (u.candidatesTokenCount ?? 0) + thoughts,
    cacheRead: cached,
  };
  if (u.thoughtsTokenCount !== undefined) out.reasoning = thoughts;
  return out;
}

async function run(ctx: ProtocolContext, acc: StreamAccumulator): Promise<void> {
  const ai = new GoogleGenAI({
    apiKey: ctx.apiKey,
    vertexai: false,
    httpOptions: { baseUrl: ctx.model.baseUrl ?? GEMINI_BASE_URL, fetch: ctx.fetch },
  });
  const stream = await ai.models.generateContentStream(geminiParams(ctx));
  for await (const chunk of stream) {
    if (chunk.usageMetadata) acc.usage = geminiUsage(chunk.usageMetadata);
    const block = chunk.promptFeedback?.blockReason;
    // A blocked prompt gets no candidates at all: that is a refusal, not a missing finish.
    if (block) acc.finish = { raw: `blocked:${block}`, reason: 'refusal' };
    const cand = chunk.candidates?.[0];
    if (!cand) continue;
    for (const part of cand.content?.parts ?? []) {
      if (typeof part.text === 'string' && part.thought !== true) acc.text += part.text;
    }
    if (cand.finishReason) acc.finish = geminiFinish(cand.finishReason);
  }
}

export const gemini: Protocol = { id: 'gemini', defaultMaxOutput: null, run };
