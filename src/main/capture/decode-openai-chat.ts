import type { Usage } from '../../shared/model/event';
import { isObj, str, type Obj } from '../importers/json';
import { chatFinish } from '../providers/finish';
import { type Assembly, count, emptyAssembly, eventJson, type ProtocolDecoder, usageOrNull } from './assembly';
import type { ExchangeEvent } from './exchange';

/*
 * OpenAI Chat Completions. A stream: `data:` chunks (no event names) whose choices[0].delta holds
 * content, refusal, reasoning_content (OpenAI-compatible servers) and tool_calls pieces by index,
 * a chunk with finish_reason, a usage chunk when asked for, then `data: [DONE]`. A whole body has
 * choices[0].message. Usage: prompt_tokens counts cached tokens, Usage.input does not.
 */

interface Call {
  id: string;
  name: string;
  args: string;
}

function usageOf(u: unknown): Usage | null {
  if (!isObj(u)) return null;
  const prompt = count(u.prompt_tokens);
  const cached = isObj(u.prompt_tokens_details) ? count(u.prompt_tokens_details.cached_tokens) : undefined;
  const reasoning = isObj(u.completion_tokens_details) ? count(u.completion_tokens_details.reasoning_tokens) : undefined;
  return usageOrNull({
    input: prompt === undefined ? undefined : Math.max(0, prompt - (cached ?? 0)),
    cacheRead: cached,
    output: count(u.completion_tokens),
    reasoning,
  });
}

function errorOf(e: unknown): { code: string | null; message: string } | null {
  if (!isObj(e)) return null;
  return { code: str(e.type) ?? str(e.code) ?? null, message: str(e.message) ?? 'error' };
}

/** Text, reasoning, refusal and tool-call pieces of a delta or a whole message. */
function take(m: Obj, a: Assembly, calls: Map<number, Call>, state: { refused: boolean }): void {
  a.text += str(m.content) ?? '';
  const refusal = str(m.refusal);
  if (refusal !== undefined) {
    a.text += refusal;
    state.refused = true;
  }
  a.reasoning += str(m.reasoning_content) ?? str(m.reasoning) ?? '';
  const list = Array.isArray(m.tool_calls) ? m.tool_calls : [];
  list.forEach((tc, pos) => {
    if (!isObj(tc)) return;
    const index = typeof tc.index === 'number' ? tc.index : pos;
    let c = calls.get(index);
    if (c === undefined) {
      c = { id: '', name: '', args: '' };
      calls.set(index, c);
    }
    c.id = str(tc.id) ?? c.id;
    const fn = isObj(tc.function) ? tc.function : {};
    c.name = str(fn.name) ?? c.name;
    c.args += str(fn.arguments) ?? '';
  });
}

function end(a: Assembly, calls: Map<number, Call>, raw: string | undefined, refused: boolean): Assembly {
  for (const [, c] of [...calls.entries()].sort((x, y) => x[0] - y[0])) a.toolCalls.push({ id: c.id, name: c.name, input: c.args });
  if (raw !== undefined) a.finish = chatFinish(raw, refused);
  return a;
}

function events(evs: readonly ExchangeEvent[]): Assembly {
  const a = emptyAssembly();
  const calls = new Map<number, Call>();
  const state = { refused: false };
  let finish: string | undefined;
  for (const ev of evs) {
    if (ev.data.trim() === '[DONE]') {
      a.ended = true;
      continue;
    }
    const d = eventJson(a, ev.data);
    if (!isObj(d)) continue;
    if (isObj(d.error)) {
      a.error = errorOf(d.error);
      continue;
    }
    a.began = true;
    a.responseId = str(d.id) ?? a.responseId;
    a.model = str(d.model) ?? a.model;
    a.usage = usageOf(d.usage) ?? a.usage;
    const choice = Array.isArray(d.choices) ? d.choices[0] : undefined;
    if (!isObj(choice)) continue;
    if (isObj(choice.delta)) take(choice.delta, a, calls, state);
    finish = str(choice.finish_reason) ?? finish;
  }
  return end(a, calls, finish, state.refused);
}

function whole(body: unknown): Assembly {
  const a = emptyAssembly();
  a.ended = true;
  if (!isObj(body)) return a;
  if (isObj(body.error)) {
    a.error = errorOf(body.error);
    return a;
  }
  a.began = true;
  a.responseId = str(body.id) ?? null;
  a.model = str(body.model) ?? null;
  a.usage = usageOf(body.usage);
  const calls = new Map<number, Call>();
  const state = { refused: false };
  const choice = Array.isArray(body.choices) ? body.choices[0] : undefined;
  if (!isObj(choice)) return a;
  if (isObj(choice.message)) take(choice.message, a, calls, state);
  return end(a, calls, str(choice.finish_reason), state.refused);
}

export const openaiChatDecoder: ProtocolDecoder = { finalEvent: '[DONE]', events, whole };
