import type { Usage } from '../../shared/model/event';
import { isObj, str, type Obj } from '../importers/json';
import { responsesFinish } from '../providers/finish';
import { type Assembly, count, emptyAssembly, eventJson, type ProtocolDecoder, usageOrNull } from './assembly';
import type { ExchangeEvent } from './exchange';

/*
 * OpenAI Responses. A stream: response.created (id, model), output items announced by
 * response.output_item.added and filled by deltas (output_text, refusal, function_call_arguments,
 * reasoning_summary_text), each closed by response.output_item.done with the whole item, then
 * response.completed, response.incomplete or response.failed with the final response (status,
 * incomplete_details, error, usage); an `error` event reports a failure outside a response. A
 * whole body is the final response object. An item's `done` form replaces what its deltas built.
 * Usage: input_tokens counts cached tokens, Usage.input does not, so input = input_tokens − cached.
 */

interface Item {
  type: string;
  text: string;
  reasoning: string;
  callId: string;
  name: string;
  args: string;
  refused: boolean;
}

const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed', 'response.cancelled']);

function newItem(type: string): Item {
  return { type, text: '', reasoning: '', callId: '', name: '', args: '', refused: false };
}

/** An item from its whole form (output_item.done, or a final response's output). */
function itemOf(it: Obj): Item {
  const item = newItem(str(it.type) ?? 'unknown');
  switch (item.type) {
    case 'message':
      for (const p of Array.isArray(it.content) ? it.content : []) {
        if (!isObj(p)) continue;
        if (p.type === 'output_text') item.text += str(p.text) ?? '';
        else if (p.type === 'refusal') {
          item.text += str(p.refusal) ?? '';
          item.refused = true;
        }
      }
      break;
    case 'reasoning':
      item.reasoning = (Array.isArray(it.summary) ? it.summary : [])
        .filter(isObj)
        .map((s) => str(s.text) ?? '')
        .join('\n\n');
      break;
    case 'function_call':
    case 'custom_tool_call':
      item.callId = str(it.call_id) ?? str(it.id) ?? '';
      item.name = str(it.name) ?? '';
      item.args = str(it.arguments) ?? str(it.input) ?? '';
      break;
    default:
      break;
  }
  return item;
}

function usageOf(u: unknown): Usage | null {
  if (!isObj(u)) return null;
  const input = count(u.input_tokens);
  const cached = isObj(u.input_tokens_details) ? count(u.input_tokens_details.cached_tokens) : undefined;
  const reasoning = isObj(u.output_tokens_details) ? count(u.output_tokens_details.reasoning_tokens) : undefined;
  return usageOrNull({
    input: input === undefined ? undefined : Math.max(0, input - (cached ?? 0)),
    cacheRead: cached,
    output: count(u.output_tokens),
    reasoning,
  });
}

function errorOf(e: unknown): { code: string | null; message: string } | null {
  if (!isObj(e)) return null;
  return { code: str(e.code) ?? str(e.type) ?? null, message: str(e.message) ?? 'error' };
}

/** The final response object: status, finish, usage, error (and output, when no items streamed). */
function finalResponse(a: Assembly, r: Obj, items: Map<number, Item>): void {
  a.began = true;
  a.responseId = str(r.id) ?? a.responseId;
  a.model = str(r.model) ?? a.model;
  a.usage = usageOf(r.usage) ?? a.usage;
  if (items.size === 0 && Array.isArray(r.output)) r.output.filter(isObj).forEach((it, i) => items.set(i, itemOf(it)));
  const status = str(r.status);
  if (status === 'failed' || status === 'cancelled') a.error = errorOf(r.error) ?? a.error;
  if (status !== undefined) {
    const reason = isObj(r.incomplete_details) ? (str(r.incomplete_details.reason) ?? null) : null;
    const all = [...items.values()];
    a.finish = responsesFinish(
      status,
      reason,
      all.some((i) => i.refused),
      all.some((i) => i.type === 'function_call' || i.type === 'custom_tool_call'),
    );
  }
}

function collect(a: Assembly, items: Map<number, Item>): void {
  for (const it of [...items.entries()].sort((x, y) => x[0] - y[0]).map(([, v]) => v)) {
    a.text += it.text;
    if (it.reasoning !== '') a.reasoning += a.reasoning === '' ? it.reasoning : `\n\n${it.reasoning}`;
    if (it.type === 'function_call' || it.type === 'custom_tool_call') a.toolCalls.push({ id: it.callId, name: it.name, input: it.args });
  }
}

function events(evs: readonly ExchangeEvent[]): Assembly {
  const a = emptyAssembly();
  const items = new Map<number, Item>();
  const at = (d: Obj, type = 'unknown'): Item => {
    const i = typeof d.output_index === 'number' ? d.output_index : -1;
    let it = items.get(i);
    if (it === undefined) {
      it = newItem(type);
      items.set(i, it);
    }
    return it;
  };
  for (const ev of evs) {
    const d = eventJson(a, ev.data);
    if (!isObj(d)) continue;
    const type = str(d.type) ?? ev.event ?? '';
    if (TERMINAL.has(type)) {
      a.ended = true;
      if (isObj(d.response)) finalResponse(a, d.response, items);
      continue;
    }
    switch (type) {
      case 'response.created':
      case 'response.in_progress':
        if (isObj(d.response)) {
          a.began = true;
          a.responseId = str(d.response.id) ?? a.responseId;
          a.model = str(d.response.model) ?? a.model;
        }
        break;
      case 'response.output_item.added':
        if (isObj(d.item)) {
          const it = at(d, str(d.item.type));
          it.type = str(d.item.type) ?? it.type;
          it.callId = str(d.item.call_id) ?? it.callId;
          it.name = str(d.item.name) ?? it.name;
        }
        break;
      case 'response.output_text.delta':
        at(d, 'message').text += str(d.delta) ?? '';
        break;
      case 'response.refusal.delta': {
        const it = at(d, 'message');
        it.text += str(d.delta) ?? '';
        it.refused = true;
        break;
      }
      case 'response.function_call_arguments.delta':
      case 'response.custom_tool_call_input.delta':
        at(d, 'function_call').args += str(d.delta) ?? '';
        break;
      case 'response.reasoning_summary_text.delta':
        at(d, 'reasoning').reasoning += str(d.delta) ?? '';
        break;
      case 'response.output_item.done':
        if (isObj(d.item) && typeof d.output_index === 'number') items.set(d.output_index, itemOf(d.item));
        break;
      case 'error':
        a.error = errorOf(isObj(d.error) ? d.error : d);
        break;
      default:
        break;
    }
  }
  collect(a, items);
  return a;
}

function whole(body: unknown): Assembly {
  const a = emptyAssembly();
  a.ended = true;
  if (!isObj(body)) return a;
  if (isObj(body.error) && body.object !== 'response') {
    a.error = errorOf(body.error);
    return a;
  }
  const items = new Map<number, Item>();
  finalResponse(a, body, items);
  collect(a, items);
  return a;
}

export const openaiResponsesDecoder: ProtocolDecoder = { finalEvent: 'response.completed', events, whole };
