import type { Block, LeafBlock, ToolSchema } from '../../../shared/model/content';
import { jsonTextOf } from '../../../shared/json-depth';
import type { Finish, FinishReason, Usage } from '../../../shared/model/event';
import { isObj, nat, str } from './json';
import { shown } from '../shown';

/**
 * Pure mappings from DSH payload pieces to canonical shapes. The importer and `rehydrate` both use
 * these, so a re-read event is mapped exactly as it was at import. `notes`, when given, collects
 * what could not be mapped faithfully (the importer turns them into diagnostics).
 */

type Notes = string[] | undefined;

function opaque(type: string, raw: unknown): LeafBlock {
  let chars: number | undefined;
  try {
    chars = JSON.stringify(raw)?.length;
  } catch {
    chars = undefined;
  }
  return chars === undefined ? { type: 'opaque', label: `dsh:${type}` } : { type: 'opaque', label: `dsh:${type}`, chars };
}

/** A block that may sit inside a tool result: text, reasoning, image; anything else is opaque. */
export function mapLeaf(raw: unknown, notes?: Notes): LeafBlock {
  if (!isObj(raw)) {
    notes?.push(`a content block is not an object (${shown(raw).slice(0, 40)})`);
    return opaque('invalid', raw);
  }
  const type = str(raw.type) ?? '?';
  switch (type) {
    case 'text':
    case 'reasoning': {
      const text = str(raw.text);
      if (text === undefined) {
        notes?.push(`a "${type}" block has no string "text"`);
        return opaque(type, raw);
      }
      return { type, text };
    }
    case 'image': {
      // DSH keeps a reference to a stored attachment, never the bytes (ImageAttachmentRef).
      const a = isObj(raw.attachment) ? raw.attachment : raw;
      const b: LeafBlock = { type: 'image' };
      const mediaType = str(a.mediaType);
      const bytes = nat(a.bytes);
      if (mediaType !== undefined) b.mediaType = mediaType;
      if (bytes !== undefined) b.bytes = bytes;
      return b;
    }
    default:
      notes?.push(`a block of type "${type}" is kept as opaque content`);
      return opaque(type, raw);
  }
}

export function mapBlock(raw: unknown, notes?: Notes): Block {
  if (!isObj(raw)) return mapLeaf(raw, notes);
  switch (raw.type) {
    case 'tool-call': {
      const id = str(raw.id);
      const name = str(raw.name);
      if (id === undefined || name === undefined) {
        notes?.push('a "tool-call" block lacks a string "id" or "name"');
        return opaque('tool-call', raw);
      }
      // DSH logs the raw arguments string exactly as the model produced it.
      const args = raw.arguments;
      const input = typeof args === 'string' ? args : args === undefined ? '' : jsonTextOf(args);
      return { type: 'tool_call', id, name, input };
    }
    case 'tool-result': {
      const callId = str(raw.toolCallId);
      if (callId === undefined || !Array.isArray(raw.content)) {
        notes?.push('a "tool-result" block lacks a string "toolCallId" or a "content" array');
        return opaque('tool-result', raw);
      }
      const b: Block = { type: 'tool_result', callId, content: raw.content.map((c) => mapLeaf(c, notes)) };
      if (typeof raw.isError === 'boolean') b.isError = raw.isError;
      return b;
    }
    default:
      return mapLeaf(raw, notes);
  }
}

/** Blocks of a DSH `ContentBlock[]`; undefined when `raw` is not an array. */
export function mapBlocks(raw: unknown, notes?: Notes): Block[] | undefined {
  return Array.isArray(raw) ? raw.map((b) => mapBlock(b, notes)) : undefined;
}

/** `"{{tools}}"`-like strings: normalised test snapshots replace big values with placeholders. */
export function isPlaceholder(v: unknown): v is string {
  return typeof v === 'string' && /^\{\{[\w.-]+\}\}$/.test(v);
}

/**
 * `header.system`: a rendered string → one text block; absent → undefined (nothing said: newer
 * logs carry the system prompt as a `system/message` surface event instead); a placeholder or any
 * other value → null (not recorded).
 */
export function mapSystem(raw: unknown): Block[] | null | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw === 'string' && !isPlaceholder(raw)) return [{ type: 'text', text: raw }];
  if (Array.isArray(raw)) return mapBlocks(raw);
  return null;
}

/**
 * `header.tools`: an array of `{name, description, parameters}` → ToolSchema[]; absent → [] (DSH
 * drops empty tools from the snapshot, and a request/header is a full snapshot, so absence means
 * a tool-less request); anything else (a placeholder such as `"{{tools}}"`) → null: not recorded.
 */
export function mapTools(raw: unknown, notes?: Notes): ToolSchema[] | null {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) return null;
  const out: ToolSchema[] = [];
  for (const t of raw) {
    const name = isObj(t) ? str(t.name) : undefined;
    if (!isObj(t) || name === undefined) {
      notes?.push('a tool schema without a string "name" is left out');
      continue;
    }
    const s: ToolSchema = { name };
    const description = str(t.description);
    if (description !== undefined) s.description = description;
    const schema = t.parameters ?? t.inputSchema;
    if (schema !== undefined) s.inputSchema = schema;
    out.push(s);
  }
  return out;
}

/**
 * DSH `TokenUsage` → canonical usage. DSH counts are disjoint: the DeepSeek adapter computes
 * `inputTokens = prompt_tokens - cached_tokens` (llm-deepseek/src/translate.ts, mapUsage), and the
 * packed-chunks sample agrees: its second request reports inputTokens 167 + cacheReadTokens 2816
 * after a first request of 2878 input tokens, which only adds up if inputTokens excludes cache
 * reads. That is the canonical convention too, so the numbers are copied, not adjusted.
 */
export function mapUsage(raw: unknown): Usage | undefined {
  if (!isObj(raw)) return undefined;
  const u: Usage = {};
  const pairs: [keyof Usage, unknown][] = [
    ['input', raw.inputTokens],
    ['output', raw.outputTokens],
    ['cacheRead', raw.cacheReadTokens],
    ['cacheWrite', raw.cacheWriteTokens],
    ['reasoning', raw.reasoningTokens],
  ];
  let any = false;
  for (const [k, v] of pairs) {
    const n = nat(v);
    if (n !== undefined) {
      u[k] = n;
      any = true;
    }
  }
  return any ? u : undefined;
}

const FINISH: Record<string, FinishReason> = {
  stop: 'stop',
  'tool-calls': 'tool_calls',
  'max-tokens': 'length',
  length: 'length',
  error: 'error',
  // DSH's `aborted` finish carries a failure like `error`, but it is a cancellation.
  aborted: 'cancelled',
};

export interface MappedFinish {
  readonly finish: Finish;
  readonly error?: { code?: string; message: string };
}

/** A `finish` chunk's `reason` ({kind, failure?}) → canonical finish and error. */
export function mapFinish(reason: unknown): MappedFinish {
  const r = isObj(reason) ? reason : {};
  const raw = str(r.kind) ?? (typeof reason === 'string' ? reason : 'unknown');
  const finish: Finish = { raw, reason: FINISH[raw] ?? 'unknown' };
  const failure = isObj(r.failure) ? r.failure : undefined;
  if (!failure) return { finish };
  const code = str(failure.code);
  const message = str(failure.message) ?? code ?? 'failure without a message';
  return { finish, error: code === undefined ? { message } : { code, message } };
}
