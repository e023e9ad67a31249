import type { Block, LeafBlock } from '../../../shared/model/content';
import type { Usage } from '../../../shared/model/event';
import { jsonTextOf } from '../../../shared/json-depth';
import { type Obj, isObj, nat } from '../json';

/**
 * Gemini CLI's session records, read the way its chat recording service reads them
 * (google-gemini/gemini-cli, packages/core/src/services/chatRecordingService.ts and
 * chatRecordingTypes.ts): a message `{id, timestamp, type, content, …}` (`type` user, gemini, info,
 * error or warning; `content` a string, a part or a list of parts of the Gemini API), a metadata
 * record `{sessionId, projectHash, startTime, …}` (a whole legacy session adds `messages`), an
 * update `{$set: {…}}` whose `messages`, when present, replaces the whole list, and a rewind
 * `{$rewindTo: id}` that removes that message and every later one.
 */

export const MESSAGE_TYPES: ReadonlySet<string> = new Set(['user', 'gemini', 'info', 'error', 'warning']);

export interface GeminiMessage {
  readonly id: string;
  readonly type: string;
  readonly timestamp: string | undefined;
  readonly value: Obj;
}

/** `isMessageRecord` of the recording service: an object with a string `id` and a `type`. */
export function readMessage(v: unknown): GeminiMessage | null {
  if (!isObj(v) || typeof v.id !== 'string' || v.id === '' || typeof v.type !== 'string') return null;
  return { id: v.id, type: v.type, timestamp: typeof v.timestamp === 'string' ? v.timestamp : undefined, value: v };
}

export function isMetadata(v: Obj): boolean {
  return typeof v.sessionId === 'string' && !('type' in v) && !('$set' in v) && !('$rewindTo' in v);
}

/** The parts of a `PartListUnion`: a string is one text part, one part a list of one. */
export function partsOf(content: unknown): Obj[] {
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  if (Array.isArray(content)) return content.flatMap((p) => (typeof p === 'string' ? [{ text: p }] : isObj(p) ? [p] : []));
  return isObj(content) ? [content] : [];
}

/** The plain text of a content (text parts joined), as `partListUnionToString` gives it for the checks below. */
export function textOf(content: unknown): string {
  return partsOf(content)
    .map((p) => (typeof p.text === 'string' && p.thought !== true ? p.text : ''))
    .join('');
}

function responseText(r: Obj): string {
  const resp = r.response;
  if (isObj(resp)) {
    if (typeof resp.output === 'string') return resp.output;
    if (typeof resp.error === 'string') return resp.error;
    if (typeof resp.content === 'string') return resp.content;
  }
  if (typeof resp === 'string') return resp;
  return resp === undefined ? '' : jsonTextOf(resp);
}

function leafOf(p: Obj): LeafBlock | null {
  if (typeof p.text === 'string') return p.thought === true ? { type: 'reasoning', text: p.text } : { type: 'text', text: p.text };
  const inline = isObj(p.inlineData) ? p.inlineData : null;
  if (inline) {
    const data = typeof inline.data === 'string' ? inline.data : '';
    const img: LeafBlock = { type: 'image', bytes: Math.floor((data.length * 3) / 4) };
    if (typeof inline.mimeType === 'string') img.mediaType = inline.mimeType;
    return img;
  }
  if (isObj(p.fileData))
    return { type: 'opaque', label: `file ${typeof p.fileData.fileUri === 'string' ? p.fileData.fileUri : '(no uri)'}` };
  if (isObj(p.executableCode) && typeof p.executableCode.code === 'string') return { type: 'text', text: p.executableCode.code };
  if (isObj(p.codeExecutionResult) && typeof p.codeExecutionResult.output === 'string')
    return { type: 'text', text: p.codeExecutionResult.output };
  return null;
}

/**
 * The blocks of a list of parts. A `thoughtSignature` alone carries nothing readable and is left
 * out; a function call keeps its arguments as JSON text; a function response becomes a result of
 * its call (`isError` when the response is an `error`).
 */
export function blocksOf(parts: readonly Obj[]): Block[] {
  const out: Block[] = [];
  for (const p of parts) {
    const call = isObj(p.functionCall) ? p.functionCall : null;
    if (call) {
      out.push({
        type: 'tool_call',
        id: typeof call.id === 'string' ? call.id : '',
        name: typeof call.name === 'string' ? call.name : '',
        input: call.args === undefined ? '{}' : jsonTextOf(call.args),
      });
      continue;
    }
    const resp = isObj(p.functionResponse) ? p.functionResponse : null;
    if (resp) {
      const b: Block = {
        type: 'tool_result',
        callId: typeof resp.id === 'string' ? resp.id : '',
        content: [{ type: 'text', text: responseText(resp) }],
      };
      if (isObj(resp.response) && 'error' in resp.response && !('output' in resp.response)) b.isError = true;
      out.push(b);
      continue;
    }
    const leaf = leafOf(p);
    if (leaf) out.push(leaf);
  }
  return out;
}

/**
 * A message's `tokens` as reported usage. `input` is the prompt (`promptTokenCount`, cached tokens
 * included), `cached` the cached part, `output` the candidates and `thoughts` the thinking tokens,
 * which Gemini bills as output. A record whose every count is 0 is what the recorder writes when
 * the response carried no usage metadata: unknown, not zero.
 */
export function usageOf(tokens: unknown): Usage | undefined {
  if (!isObj(tokens)) return undefined;
  const input = nat(tokens.input);
  const output = nat(tokens.output);
  const cached = nat(tokens.cached);
  const thoughts = nat(tokens.thoughts);
  const tool = nat(tokens.tool);
  const total = nat(tokens.total);
  if (input === undefined && output === undefined) return undefined;
  if (!input && !output && !cached && !thoughts && !tool && !total) return undefined;
  const u: Usage = {};
  if (input !== undefined) {
    const c = cached !== undefined && cached <= input ? cached : 0;
    u.input = input - c + (tool ?? 0);
    if (cached !== undefined && cached <= input) u.cacheRead = cached;
    u.context = input + (tool ?? 0);
  }
  if (output !== undefined) u.output = output + (thoughts ?? 0);
  if (thoughts !== undefined && thoughts > 0) u.reasoning = thoughts;
  return u;
}

/**
 * The messages of a written-back list, in order; an entry that is not a message is left out. A
 * repeated id is still a message the CLI sends: 0.61 writes a resumed chat's function responses
 * back under their gemini message's id, once more at every resume, and sends each one (the wire of
 * fixtures/fidelity/logs/gemini-cli-0.61.0/tools-resume). It gets an id of its own, `<id>#<n>`.
 */
export function listMessages(list: readonly unknown[]): GeminiMessage[] {
  const out: GeminiMessage[] = [];
  const seen = new Map<string, number>();
  for (const raw of list) {
    const m = readMessage(raw);
    if (!m || !MESSAGE_TYPES.has(m.type)) continue;
    const n = (seen.get(m.id) ?? 0) + 1;
    seen.set(m.id, n);
    out.push(n === 1 ? m : { ...m, id: `${m.id}#${n}` });
  }
  return out;
}

/** The `messages` of a `$set`, when it has a list; null otherwise. */
export function setMessages(v: Obj): unknown[] | null {
  const set = isObj(v.$set) ? v.$set : null;
  return set && Array.isArray(set.messages) ? set.messages : null;
}
