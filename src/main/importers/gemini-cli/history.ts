import type { Block } from '../../../shared/model/content';
import type { Item } from '../../../shared/model/item';
import { jsonTextOf } from '../../../shared/json-depth';
import { isObj } from '../json';
import { type GeminiMessage, blocksOf, partsOf, textOf } from './records';

/**
 * The items one recorded message stands for in the history Gemini CLI sends, after its own
 * rebuild of a session (`convertSessionToClientHistory`, packages/core/src/utils/sessionUtils.ts):
 * - `info`, `error` and `warning` messages never reach the model (kept as display-only items);
 * - a user message is one user turn, except a slash command or `?` (the CLI runs those itself) and
 *   an empty one; a `<session_context>` or `<hook_context>` message is the CLI's own context turn;
 * - a gemini message is one model turn: its content parts when they hold function calls or
 *   thoughts (the current recorder), else its thoughts, text and `toolCalls` rebuilt in that order
 *   (the legacy recorder); then one turn `<id>_response` with the results of its tool calls.
 * Two changes from the rebuild, to show the live chat rather than a resumed one: thoughts are a
 * display-only item `<id>_thoughts` (the live chat never sends them back: geminiChat.ts filters
 * `part.thought` out of every response, v0.22 to now; the rebuild of a resumed session does send
 * them); and when the list itself holds the function responses as a user message (a history
 * written back whole), the results are that message's and are not made twice.
 */

export interface TargetItem {
  /** The item's key: the message id, or `<id>_response` for the results of its calls. */
  readonly key: string;
  readonly msgId: string;
  readonly item: Omit<Item, 'id'>;
  /** Display-only: never sent to the model. */
  readonly log: boolean;
  /** What the item says, to tell a rewritten message from an unchanged one. */
  readonly fp: string;
}

export const RESPONSE_SUFFIX = '_response';
/** The key of a gemini message's thoughts, a display-only item of their own. */
export const THOUGHTS_SUFFIX = '_thoughts';

/** The acknowledgement a compression puts after its summary (chatCompressionService.ts). */
export const COMPRESSION_ACK = 'Got it. Thanks for the additional context!';

function target(key: string, msgId: string, item: Omit<Item, 'id'>, log: boolean): TargetItem {
  return { key, msgId, item, log, fp: jsonTextOf({ r: item.role, b: item.blocks, m: item.meta ?? false, l: log }) };
}

function toolResults(m: GeminiMessage): Block[] {
  const calls = Array.isArray(m.value.toolCalls) ? m.value.toolCalls : [];
  const out: Block[] = [];
  for (const tc of calls) {
    if (!isObj(tc) || tc.result === undefined || tc.result === null || tc.result === '') continue;
    const failed = tc.status === 'error';
    const callId = typeof tc.id === 'string' ? tc.id : '';
    const blocks: Block[] =
      typeof tc.result === 'string'
        ? [{ type: 'tool_result', callId, content: [{ type: 'text', text: tc.result }] }]
        : blocksOf(partsOf(tc.result));
    for (const b of blocks) out.push(failed && b.type === 'tool_result' ? { ...b, isError: true } : b);
  }
  return out;
}

function modelBlocks(m: GeminiMessage): Block[] {
  const parts = partsOf(m.value.content);
  if (parts.some((p) => isObj(p.functionCall) || p.thought === true)) return blocksOf(parts);
  const out: Block[] = [];
  const thoughts = Array.isArray(m.value.thoughts) ? m.value.thoughts : [];
  for (const t of thoughts) {
    if (!isObj(t)) continue;
    const d = typeof t.description === 'string' ? t.description : '';
    out.push({ type: 'reasoning', text: typeof t.subject === 'string' && t.subject !== '' ? `**${t.subject}** ${d}` : d });
  }
  out.push(...blocksOf(parts));
  const calls = Array.isArray(m.value.toolCalls) ? m.value.toolCalls : [];
  for (const tc of calls) {
    if (!isObj(tc)) continue;
    out.push({
      type: 'tool_call',
      id: typeof tc.id === 'string' ? tc.id : '',
      name: typeof tc.name === 'string' ? tc.name : '',
      input: tc.args === undefined ? '{}' : jsonTextOf(tc.args),
    });
  }
  return out;
}

/** Whether a user message is the CLI's own context turn rather than something the user typed. */
export function isContextText(text: string): boolean {
  const t = text.trim();
  return t.startsWith('<session_context>') || t.startsWith('<hook_context>');
}

/** The items of one message; `listed` says whether the list holds the message `<id>_response` itself. */
export function itemsOf(m: GeminiMessage, listed: (id: string) => boolean): TargetItem[] {
  switch (m.type) {
    case 'user': {
      const parts = partsOf(m.value.content);
      const blocks = blocksOf(parts);
      if (blocks.length > 0 && blocks.every((b) => b.type === 'tool_result')) return [target(m.id, m.id, { role: 'tool', blocks }, false)];
      const text = textOf(m.value.content).trim();
      if (blocks.length === 0 || text.startsWith('/') || text.startsWith('?'))
        return [target(m.id, m.id, { role: 'user', blocks, origin: 'command' }, true)];
      if (isContextText(text)) return [target(m.id, m.id, { role: 'user', blocks, meta: true, origin: 'session_context' }, false)];
      return [target(m.id, m.id, { role: 'user', blocks }, false)];
    }
    case 'gemini': {
      const out: TargetItem[] = [];
      const all = modelBlocks(m);
      // The live chat keeps no thought in the history it sends (geminiChat.ts filters
      // `part.thought` out of every response, v0.22 to now): shown, never sent.
      const thoughts = all.filter((b) => b.type === 'reasoning');
      const blocks = all.filter((b) => b.type !== 'reasoning');
      if (thoughts.length > 0)
        out.push(target(`${m.id}${THOUGHTS_SUFFIX}`, m.id, { role: 'assistant', blocks: thoughts, origin: 'thoughts' }, true));
      if (blocks.length > 0) out.push(target(m.id, m.id, { role: 'assistant', blocks }, false));
      const key = `${m.id}${RESPONSE_SUFFIX}`;
      const results = blocks.length > 0 && !listed(key) ? toolResults(m) : [];
      if (results.length > 0) out.push(target(key, m.id, { role: 'tool', blocks: results }, false));
      return out;
    }
    default: {
      const text = textOf(m.value.content);
      return [target(m.id, m.id, { role: 'system', blocks: text === '' ? [] : [{ type: 'text', text }], origin: m.type }, true)];
    }
  }
}

/** Whether a user message is made only of function responses (a history written back as raw parts). */
export function isResponseTurn(m: GeminiMessage): boolean {
  if (m.type !== 'user') return false;
  const parts = partsOf(m.value.content);
  return parts.length > 0 && parts.every((p) => isObj(p.functionResponse));
}

/**
 * The items of a whole list of messages, in order. A user message of function responses right
 * after a gemini message stands for that message's results: it takes the key `<id>_response` the
 * results had, so that a list written back as raw parts is compared item for item with the list
 * as it was recorded.
 */
export function itemsOfList(list: readonly GeminiMessage[]): TargetItem[] {
  const ids = new Set(list.map((m) => m.id));
  const answeredBy = new Map<string, string>();
  for (let i = 1; i < list.length; i++) {
    const m = list[i] as GeminiMessage;
    const prev = list[i - 1] as GeminiMessage;
    if (prev.type === 'gemini' && isResponseTurn(m)) answeredBy.set(prev.id, m.id);
  }
  const answering = new Set(answeredBy.values());
  const listed = (id: string): boolean =>
    ids.has(id) || (id.endsWith(RESPONSE_SUFFIX) && answeredBy.has(id.slice(0, -RESPONSE_SUFFIX.length)));
  const out: TargetItem[] = [];
  for (let i = 0; i < list.length; i++) {
    const m = list[i] as GeminiMessage;
    const items = itemsOf(m, listed);
    if (answering.has(m.id)) {
      const g = list[i - 1] as GeminiMessage;
      for (const t of items) out.push({ ...t, key: `${g.id}${RESPONSE_SUFFIX}` });
    } else out.push(...items);
  }
  return out;
}
