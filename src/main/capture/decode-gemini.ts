import type { Usage } from '../../shared/model/event';
import { isObj, str, type Obj } from '../importers/json';
import { geminiFinish } from '../providers/finish';
import { type Assembly, count, emptyAssembly, eventJson, type ProtocolDecoder, usageOrNull } from './assembly';
import type { ExchangeEvent } from './exchange';

/*
 * Gemini generateContent / streamGenerateContent. Each chunk (an SSE `data:` with ?alt=sse, else
 * one element of a JSON array) is a GenerateContentResponse: candidates[0].content.parts (text,
 * thought text, whole functionCall {id?, name, args}), finishReason, usageMetadata (the last one
 * is the total), responseId, modelVersion, promptFeedback.blockReason. Gemini sends no final event:
 * a stream is cut only when the capture says so. Usage: promptTokenCount counts cached content;
 * candidatesTokenCount leaves out thoughts, so output = candidates + thoughts, as the other
 * protocols count it.
 */

function usageOf(u: unknown): Usage | null {
  if (!isObj(u)) return null;
  const prompt = count(u.promptTokenCount);
  const cached = count(u.cachedContentTokenCount);
  const candidates = count(u.candidatesTokenCount);
  const thoughts = count(u.thoughtsTokenCount);
  return usageOrNull({
    input: prompt === undefined ? undefined : Math.max(0, prompt - (cached ?? 0)),
    cacheRead: cached,
    output: candidates === undefined && thoughts === undefined ? undefined : (candidates ?? 0) + (thoughts ?? 0),
    reasoning: thoughts,
  });
}

function chunk(a: Assembly, d: Obj): void {
  if (isObj(d.error)) {
    a.error = { code: str(d.error.status) ?? null, message: str(d.error.message) ?? 'error' };
    return;
  }
  a.began = true;
  a.responseId = str(d.responseId) ?? a.responseId;
  a.model = str(d.modelVersion) ?? a.model;
  a.usage = usageOf(d.usageMetadata) ?? a.usage;
  const block = isObj(d.promptFeedback) ? str(d.promptFeedback.blockReason) : undefined;
  // A blocked prompt gets no candidates: a refusal, as the live Gemini client reads it.
  if (block !== undefined) a.finish = { raw: `blocked:${block}`, reason: 'refusal' };
  const cand = Array.isArray(d.candidates) ? d.candidates[0] : undefined;
  if (!isObj(cand)) return;
  const parts = isObj(cand.content) && Array.isArray(cand.content.parts) ? cand.content.parts : [];
  for (const p of parts) {
    if (!isObj(p)) continue;
    if (typeof p.text === 'string') {
      if (p.thought === true) a.reasoning += p.text;
      else a.text += p.text;
    } else if (isObj(p.functionCall)) {
      const fc = p.functionCall;
      a.toolCalls.push({ id: str(fc.id) ?? '', name: str(fc.name) ?? '', input: JSON.stringify(fc.args ?? {}) });
    }
  }
  const finish = str(cand.finishReason);
  if (finish !== undefined) a.finish = geminiFinish(finish);
}

function events(evs: readonly ExchangeEvent[]): Assembly {
  const a = emptyAssembly();
  a.ended = true;
  for (const ev of evs) {
    const d = eventJson(a, ev.data);
    if (isObj(d)) chunk(a, d);
  }
  return a;
}

function whole(body: unknown): Assembly {
  const a = emptyAssembly();
  a.ended = true;
  // streamGenerateContent without ?alt=sse answers a JSON array of chunks.
  for (const d of Array.isArray(body) ? body : [body]) if (isObj(d)) chunk(a, d);
  return a;
}

export const geminiDecoder: ProtocolDecoder = { finalEvent: null, events, whole };
