import type { Usage } from '../../shared/model/event';
import { isObj, str } from '../importers/json';
import { anthropicFinish } from '../providers/finish';
import { type Assembly, count, emptyAssembly, eventJson, type ProtocolDecoder, usageOrNull } from './assembly';
import type { ExchangeEvent } from './exchange';

/*
 * Anthropic Messages. A stream: message_start (id, model, usage), content_block_start / _delta /
 * _stop per block (text_delta, input_json_delta: a tool call's input as text, thinking_delta),
 * message_delta (stop_reason, final usage), message_stop, and `error` events. A whole body is the
 * message, or {type: "error", error: {type, message}}. Usage: input_tokens already excludes cache
 * reads (cache_read_input_tokens) and writes (cache_creation_input_tokens).
 */

interface Block {
  type: string;
  text: string;
  id: string;
  name: string;
  /** Tool input text from input_json_delta; null until a delta came (then the start's input is used). */
  input: string | null;
  startInput: unknown;
}

function mergeUsage(prev: Usage | null, u: unknown): Usage | null {
  if (!isObj(u)) return prev;
  const out: Usage = { ...prev };
  const set = (k: keyof Usage, v: unknown) => {
    const n = count(v);
    if (n !== undefined) out[k] = n;
  };
  set('input', u.input_tokens);
  set('output', u.output_tokens);
  set('cacheRead', u.cache_read_input_tokens);
  set('cacheWrite', u.cache_creation_input_tokens);
  return usageOrNull(out);
}

function errorOf(e: unknown): { code: string | null; message: string } {
  const err = isObj(e) ? e : {};
  return { code: str(err.type) ?? null, message: str(err.message) ?? 'error' };
}

function finishBlocks(a: Assembly, blocks: readonly Block[]): void {
  for (const b of blocks) {
    if (b.type === 'text') a.text += b.text;
    else if (b.type === 'thinking') a.reasoning += b.text;
    else if (b.type === 'tool_use' || b.type === 'server_tool_use') {
      a.toolCalls.push({ id: b.id, name: b.name, input: b.input ?? JSON.stringify(b.startInput ?? {}) });
    }
  }
}

function events(evs: readonly ExchangeEvent[]): Assembly {
  const a = emptyAssembly();
  // Blocks by index, in the order they started.
  const blocks = new Map<number, Block>();
  for (const ev of evs) {
    const d = eventJson(a, ev.data);
    if (!isObj(d)) continue;
    switch (str(d.type) ?? ev.event) {
      case 'message_start': {
        const m = isObj(d.message) ? d.message : {};
        a.began = true;
        a.responseId = str(m.id) ?? null;
        a.model = str(m.model) ?? null;
        a.usage = mergeUsage(a.usage, m.usage);
        break;
      }
      case 'content_block_start': {
        const cb = isObj(d.content_block) ? d.content_block : {};
        const index = typeof d.index === 'number' ? d.index : blocks.size;
        const text = str(cb.text) ?? str(cb.thinking) ?? '';
        blocks.set(index, {
          type: str(cb.type) ?? 'unknown',
          text,
          id: str(cb.id) ?? '',
          name: str(cb.name) ?? '',
          input: null,
          startInput: cb.input,
        });
        break;
      }
      case 'content_block_delta': {
        const b = typeof d.index === 'number' ? blocks.get(d.index) : undefined;
        const delta = isObj(d.delta) ? d.delta : {};
        if (b === undefined) break;
        if (delta.type === 'text_delta') b.text += str(delta.text) ?? '';
        else if (delta.type === 'thinking_delta') b.text += str(delta.thinking) ?? '';
        else if (delta.type === 'input_json_delta') b.input = (b.input ?? '') + (str(delta.partial_json) ?? '');
        break;
      }
      case 'message_delta': {
        const delta = isObj(d.delta) ? d.delta : {};
        const stop = str(delta.stop_reason);
        if (stop !== undefined) a.finish = anthropicFinish(stop);
        a.usage = mergeUsage(a.usage, d.usage);
        break;
      }
      case 'message_stop':
        a.ended = true;
        break;
      case 'error':
        a.error = errorOf(d.error);
        break;
      default:
        break;
    }
  }
  finishBlocks(a, [...blocks.values()]);
  return a;
}

function whole(body: unknown): Assembly {
  const a = emptyAssembly();
  a.ended = true;
  if (!isObj(body)) return a;
  if (body.type === 'error') {
    a.error = errorOf(body.error);
    return a;
  }
  a.began = true;
  a.responseId = str(body.id) ?? null;
  a.model = str(body.model) ?? null;
  a.usage = mergeUsage(null, body.usage);
  const stop = str(body.stop_reason);
  if (stop !== undefined) a.finish = anthropicFinish(stop);
  const blocks: Block[] = [];
  for (const c of Array.isArray(body.content) ? body.content : []) {
    if (!isObj(c)) continue;
    const input = c.input === undefined ? null : JSON.stringify(c.input);
    blocks.push({
      type: str(c.type) ?? 'unknown',
      text: str(c.text) ?? str(c.thinking) ?? '',
      id: str(c.id) ?? '',
      name: str(c.name) ?? '',
      input,
      startInput: undefined,
    });
  }
  finishBlocks(a, blocks);
  return a;
}

export const anthropicDecoder: ProtocolDecoder = { finalEvent: 'message_stop', events, whole };
