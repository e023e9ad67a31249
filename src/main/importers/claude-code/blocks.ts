import type { Block, LeafBlock, ToolSchema } from '../../../shared/model/content';
import type { Finish, FinishReason, Usage } from '../../../shared/model/event';
import { depthExceeds, jsonText, MAX_CONTENT_DEPTH } from '../../../shared/json-depth';
import { isObj, jsonChars, nat, str } from './json';
import { KNOWN_BLOCK_TYPES } from './known';

/**
 * Pure mappings from Claude Code (Anthropic Messages API) payload pieces to canonical shapes. The
 * importer and `rehydrate` both use these, so a re-read event is mapped exactly as it was at
 * import. `unknown`, when given, collects block types this importer does not know (reported per
 * file as format health).
 */

type Unknown = ((what: string) => void) | undefined;

/** What `unknown` is told of a tool input too deep to keep as structure; the importer reports it on its own. */
export const TOO_DEEP_INPUT = 'tool input too deep';

/**
 * A tool input's JSON. JSON.stringify recurses and overflows the stack on input nested many
 * thousand levels deep; such input is written without recursion, and said to `unknown`.
 */
function inputText(input: unknown, unknown: Unknown): string {
  if (!depthExceeds(input, MAX_CONTENT_DEPTH)) return JSON.stringify(input) ?? '{}';
  unknown?.(TOO_DEEP_INPUT);
  return jsonText(input);
}

function opaque(type: string, raw: unknown): LeafBlock {
  const chars = jsonChars(raw);
  return chars === undefined ? { type: 'opaque', label: `claude-code:${type}` } : { type: 'opaque', label: `claude-code:${type}`, chars };
}

/** Decoded size of base64 data, without decoding it. */
function base64Bytes(data: string): number {
  let pad = 0;
  if (data.endsWith('==')) pad = 2;
  else if (data.endsWith('=')) pad = 1;
  return Math.max(0, Math.floor((data.length * 3) / 4) - pad);
}

function image(raw: Record<string, unknown>): LeafBlock {
  const b: LeafBlock = { type: 'image' };
  const source = isObj(raw.source) ? raw.source : undefined;
  const mediaType = str(source?.media_type);
  if (mediaType !== undefined) b.mediaType = mediaType;
  const data = str(source?.data);
  if (data !== undefined && source?.type === 'base64') b.bytes = base64Bytes(data);
  return b;
}

/** A block inside a `tool_result`: text, image; anything else is opaque. */
export function mapLeaf(raw: unknown, unknown?: Unknown): LeafBlock {
  if (typeof raw === 'string') return { type: 'text', text: raw };
  if (!isObj(raw)) {
    unknown?.('content block that is not an object');
    return opaque('invalid', raw);
  }
  const type = str(raw.type) ?? '?';
  switch (type) {
    case 'text': {
      const text = str(raw.text);
      return text === undefined ? opaque('text', raw) : { type: 'text', text };
    }
    case 'image':
      return image(raw);
    default:
      if (!KNOWN_BLOCK_TYPES.has(type)) unknown?.(`content block type "${type}"`);
      return opaque(type, raw);
  }
}

/** `tool_result.content`: a string, an array of blocks, or nothing. */
export function mapResultContent(raw: unknown, unknown?: Unknown): LeafBlock[] {
  if (raw === undefined || raw === null) return [];
  if (typeof raw === 'string') return [{ type: 'text', text: raw }];
  if (Array.isArray(raw)) return raw.map((c) => mapLeaf(c, unknown));
  return [mapLeaf(raw, unknown)];
}

export function mapBlock(raw: unknown, unknown?: Unknown): Block {
  if (!isObj(raw)) return mapLeaf(raw, unknown);
  const type = str(raw.type) ?? '?';
  switch (type) {
    case 'thinking': {
      const text = str(raw.thinking);
      return text === undefined ? opaque(type, raw) : { type: 'reasoning', text };
    }
    case 'redacted_thinking':
      return { type: 'reasoning', text: '', redacted: true };
    case 'tool_use':
    case 'server_tool_use':
    case 'mcp_tool_use': {
      const callId = str(raw.id);
      const name = str(raw.name);
      if (callId === undefined || name === undefined) return opaque(type, raw);
      // Claude Code logs the parsed input object; its JSON is the closest thing to what the model wrote.
      const input = typeof raw.input === 'string' ? raw.input : inputText(raw.input ?? {}, unknown);
      return { type: 'tool_call', id: callId, name, input };
    }
    case 'tool_result': {
      const callId = str(raw.tool_use_id);
      if (callId === undefined) return opaque(type, raw);
      const b: Block = { type: 'tool_result', callId, content: mapResultContent(raw.content, unknown) };
      if (typeof raw.is_error === 'boolean') b.isError = raw.is_error;
      return b;
    }
    default:
      return mapLeaf(raw, unknown);
  }
}

/** `message.content`: a string (one text block) or an array of blocks; undefined when neither. */
export function mapContent(raw: unknown, unknown?: Unknown): Block[] | undefined {
  if (typeof raw === 'string') return [{ type: 'text', text: raw }];
  if (!Array.isArray(raw)) return undefined;
  const out: Block[] = new Array<Block>(raw.length);
  for (let i = 0; i < raw.length; i++) out[i] = mapBlock(raw[i], unknown);
  return out;
}

/** Ids of the tool calls answered by `tool_result` blocks of a raw content array. */
export function answeredCalls(raw: unknown): string[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  let out: string[] | undefined;
  for (const b of raw) {
    if (isObj(b) && b.type === 'tool_result' && typeof b.tool_use_id === 'string') (out ??= []).push(b.tool_use_id);
  }
  return out;
}

/**
 * Anthropic usage → canonical. `input_tokens` excludes cache reads and writes, as the canonical
 * `input` does; the context the provider counted is input + cache reads + cache writes.
 */
export function mapUsage(raw: unknown): Usage | undefined {
  if (!isObj(raw)) return undefined;
  const u: Usage = {};
  let any = false;
  const set = (k: keyof Usage, v: unknown): void => {
    const n = nat(v);
    if (n !== undefined) {
      u[k] = n;
      any = true;
    }
  };
  set('input', raw.input_tokens);
  set('cacheRead', raw.cache_read_input_tokens);
  set('cacheWrite', raw.cache_creation_input_tokens);
  // The split by lifetime (5 minutes, 1 hour) says how long the written prefix stays cached.
  if (isObj(raw.cache_creation)) set('cacheWrite1h', raw.cache_creation.ephemeral_1h_input_tokens);
  set('output', raw.output_tokens);
  return any ? u : undefined;
}

const FINISH: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  refusal: 'refusal',
  pause_turn: 'pause',
};

/** `stop_reason` → finish; undefined when Claude Code did not log one (2.1.x writes null on every line). */
export function mapFinish(raw: unknown): Finish | undefined {
  if (typeof raw !== 'string') return undefined;
  return { raw, reason: FINISH[raw] ?? 'unknown' };
}

/** An `api-request-shape`'s system prompt: a string or an array of text blocks. */
export function mapSystem(raw: unknown): Block[] | undefined {
  if (typeof raw === 'string') return [{ type: 'text', text: raw }];
  if (!Array.isArray(raw)) return undefined;
  return raw.map((b) => mapBlock(b));
}

/** An `api-request-shape`'s tools: Anthropic `{name, description, input_schema}`. */
export function mapTools(raw: unknown): ToolSchema[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  const out: ToolSchema[] = [];
  for (const t of raw) {
    if (!isObj(t)) continue;
    const name = str(t.name);
    if (name === undefined) continue;
    const s: ToolSchema = { name };
    const description = str(t.description);
    if (description !== undefined) s.description = description;
    const schema = t.input_schema ?? t.inputSchema;
    if (schema !== undefined) s.inputSchema = schema;
    out.push(s);
  }
  return out;
}

/**
 * An `attachment` record (2.1.332, no sample yet): content Claude Code renders into the
 * conversation. Read as `message.content` when the record carries a rendered message, else the
 * attachment's own `content`/`text`; anything else is kept as opaque content of its size.
 */
export function attachmentBlocks(v: Record<string, unknown>, unknown?: Unknown): Block[] {
  const message = isObj(v.message) ? mapContent(v.message.content, unknown) : undefined;
  if (message) return message;
  const a = isObj(v.attachment) ? v.attachment : undefined;
  const raw = a?.content ?? a?.text;
  // Only text or content blocks are content: a `todo_reminder`'s `content` is the plan's entries
  // ({content, status, activeForm}), data Claude Code renders in its own words, which the log
  // does not hold. Read as blocks, each entry was an unknown block of type "?".
  const content = isBlockContent(raw) ? mapContent(raw, unknown) : undefined;
  if (content) return content;
  return [opaque(`attachment:${str(a?.type) ?? '?'}`, a ?? null)];
}

/** A string, or a non-empty array of strings and objects that name their block type. */
function isBlockContent(raw: unknown): boolean {
  if (typeof raw === 'string') return true;
  return Array.isArray(raw) && raw.length > 0 && raw.every((b) => typeof b === 'string' || (isObj(b) && typeof b.type === 'string'));
}
