import type { Block, ImageBlock, LeafBlock } from '../../../shared/model/content';
import type { Usage } from '../../../shared/model/event';
import type { Role } from '../../../shared/model/item';
import { type Obj, isObj, jsonChars, jsonText, nat, str } from './json';
import { CONTEXT_PREFIXES, SUMMARY_PREFIX_HEAD } from './known';
import { shown } from '../shown';

/**
 * Pure mappings from Codex `ResponseItem` payloads (Responses API items) to canonical item shapes.
 * The importer and `rehydrate` both use them, so a re-read line maps exactly as it did at import.
 * `notes`, when given, collects what could not be mapped faithfully.
 */

type Notes = string[] | undefined;

/**
 * Which way an item flows: `output` the model produced it (it belongs to a model call), `input`
 * it is sent to the model (user turns, harness context, tool outputs), `log` it never reaches the
 * model (`ghost_snapshot`, kept for /undo and filtered out of every prompt).
 */
export type Flow = 'output' | 'input' | 'log';

export interface MappedItem {
  readonly type: string;
  readonly role: Role;
  readonly blocks: Block[];
  readonly flow: Flow;
  readonly origin: string | undefined;
  /** A user message Codex injects as context (AGENTS.md, environment context, …), by its opening. */
  readonly contextual: boolean;
  /** Content fingerprint of messages and compaction items, to recognise copies in a replacement history. */
  readonly key: string | undefined;
  /** The text of a user message that is a user turn (not contextual, not a summary): Codex's `message()`. */
  readonly userText: string | undefined;
  /** A user message carrying a local compaction summary (starts with SUMMARY_PREFIX). */
  readonly summary: boolean;
  /** An encrypted `compaction` item (remote compaction summary). */
  readonly compaction: boolean;
  /** The message's role as written (`developer`, …). */
  readonly role0: string | undefined;
}

/** A mapped item; every field is set, so all mapped items share one shape. */
export function mappedItem(type: string, role: Role, blocks: Block[], flow: Flow, extra?: Partial<MappedItem>): MappedItem {
  return {
    type,
    role,
    blocks,
    flow,
    origin: extra?.origin,
    contextual: extra?.contextual ?? false,
    key: extra?.key,
    userText: extra?.userText,
    summary: extra?.summary ?? false,
    compaction: extra?.compaction ?? false,
    role0: extra?.role0,
  };
}

export type Mapped =
  { readonly ok: true; readonly item: MappedItem } | { readonly ok: false; readonly problem: string; readonly unknownType?: string };

// ---------------------------------------------------------------------------------------------
// Fingerprints. Two independent FNV-1a hashes over UTF-16 units plus the length: collisions are
// negligible for matching copies of messages, and the text itself need not be kept in memory.

function fnv(s: string, h1: number, h2: number): [number, number] {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995) ^ (h2 >>> 15);
  }
  return [h1, h2];
}

export function fingerprint(parts: readonly string[]): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x27d4eb2f;
  let len = 0;
  for (const p of parts) {
    [h1, h2] = fnv(p, h1, h2);
    [h1, h2] = fnv('\u0000', h1, h2);
    len += p.length + 1;
  }
  return `${(h1 >>> 0).toString(36)}.${(h2 >>> 0).toString(36)}.${len}`;
}

// ---------------------------------------------------------------------------------------------
// Content.

const opaque = (label: string, raw: unknown): LeafBlock => {
  const chars = jsonChars(raw);
  return chars === undefined ? { type: 'opaque', label } : { type: 'opaque', label, chars };
};

/** `input_image.image_url`: a data URL gives the media type and the decoded size; the bytes are never kept. */
export function imageBlock(url: unknown): ImageBlock {
  const b: ImageBlock = { type: 'image' };
  if (typeof url !== 'string') return b;
  const m = /^data:([^;,]+)(;base64)?,/.exec(url.slice(0, 200));
  if (!m) return b;
  if (m[1]) b.mediaType = m[1];
  if (m[2]) {
    const data = url.length - m[0].length;
    let pad = 0;
    if (url.endsWith('==')) pad = 2;
    else if (url.endsWith('=')) pad = 1;
    b.bytes = Math.max(0, Math.floor((data * 3) / 4) - pad);
  }
  return b;
}

/** One part of a message's or a tool output's content. */
function mapPart(raw: unknown, notes: Notes): LeafBlock {
  if (!isObj(raw)) {
    notes?.push('a content part is not an object');
    return opaque('codex:invalid-part', raw);
  }
  const type = str(raw.type) ?? '?';
  switch (type) {
    case 'input_text':
    case 'output_text':
    case 'text': {
      const text = str(raw.text);
      if (text !== undefined) return { type: 'text', text };
      break;
    }
    case 'refusal': {
      const text = str(raw.refusal);
      if (text !== undefined) return { type: 'text', text };
      break;
    }
    case 'input_image':
      return imageBlock(raw.image_url);
    default:
      notes?.push(`a content part of type "${type}" is kept as opaque content`);
      return opaque(`codex:${type}`, raw);
  }
  notes?.push(`a "${type}" part has no text`);
  return opaque(`codex:${type}`, raw);
}

/**
 * A part's contribution to the fingerprint: its type and text. Images count by their place only:
 * hashing a megabyte of base64 per image would cost more than it tells (and redacted samples
 * rewrite the URL of a copy differently from its original).
 */
function partKey(raw: unknown): string {
  if (!isObj(raw)) return '?';
  return `${str(raw.type) ?? '?'}\u0001${str(raw.text) ?? str(raw.refusal) ?? ''}`;
}

function isContextText(text: string): boolean {
  const head = text.slice(0, 64).trimStart().toLowerCase();
  return CONTEXT_PREFIXES.some((p) => head.startsWith(p));
}

/** Tool output: a string, an array of content parts, or (older) `{content, success}`. */
export function mapOutput(raw: unknown, notes: Notes): { content: LeafBlock[]; isError?: boolean } {
  if (typeof raw === 'string') return { content: [{ type: 'text', text: raw }] };
  if (Array.isArray(raw)) return { content: raw.map((p) => mapPart(p, notes)) };
  if (isObj(raw) && (raw.content !== undefined || raw.success !== undefined)) {
    const inner = mapOutput(raw.content ?? '', notes);
    return raw.success === false ? { content: inner.content, isError: true } : inner;
  }
  if (raw === undefined || raw === null) {
    notes?.push('a tool output has no "output"');
    return { content: [] };
  }
  return { content: [{ type: 'text', text: jsonText(raw) }] };
}

const ROLES: Record<string, { role: Role; origin?: string }> = {
  user: { role: 'user' },
  assistant: { role: 'assistant' },
  // The Responses API's developer role has no canonical counterpart: a system item that says so.
  developer: { role: 'system', origin: 'developer' },
  system: { role: 'system', origin: 'system' },
};

function message(p: Obj, notes: Notes): Mapped {
  const role0 = str(p.role);
  if (!Array.isArray(p.content)) return { ok: false, problem: 'a message without a "content" array' };
  if (role0 === undefined) return { ok: false, problem: 'a message without a string "role"' };
  const known = ROLES[role0];
  if (!known) notes?.push(`a message of role "${role0}" is shown as a user message`);
  const role = known?.role ?? 'user';
  const blocks: Block[] = [];
  const keyParts: string[] = [role0];
  let contextual = false;
  let first: string | undefined;
  let userText: string | undefined;
  for (const part of p.content) {
    const b = mapPart(part, notes);
    blocks.push(b);
    keyParts.push(partKey(part));
    if (b.type === 'text') {
      if (first === undefined) first = b.text;
      if (role === 'user' && isContextText(b.text)) contextual = true;
      userText = userText === undefined ? b.text : `${userText}\n${b.text}`;
    }
  }
  const summary = role === 'user' && first !== undefined && first.startsWith(SUMMARY_PREFIX_HEAD);
  let origin = known?.origin ?? (known ? undefined : `role:${role0}`);
  const phase = str(p.phase);
  if (role === 'assistant' && phase !== undefined) origin = phase;
  if (contextual) origin = 'context';
  const item: MappedItem = {
    type: 'message',
    role,
    blocks,
    flow: role === 'assistant' ? 'output' : 'input',
    origin,
    contextual,
    key: fingerprint(keyParts),
    userText: role === 'user' && !contextual && !summary ? (userText ?? '') : undefined,
    summary,
    compaction: false,
    role0,
  };
  return { ok: true, item };
}

function reasoning(p: Obj, notes: Notes): Mapped {
  const blocks: Block[] = [];
  const add = (arr: unknown, what: string): void => {
    if (arr === undefined || arr === null) return;
    if (!Array.isArray(arr)) {
      notes?.push(`reasoning "${what}" is not an array`);
      return;
    }
    for (const s of arr) {
      const text = isObj(s) ? str(s.text) : undefined;
      if (text === undefined) notes?.push(`a reasoning ${what} part has no text`);
      else blocks.push({ type: 'reasoning', text });
    }
  };
  add(p.summary, 'summary');
  add(p.content, 'content');
  // The provider's encrypted reasoning: sent back with the item, readable by nobody here.
  if (typeof p.encrypted_content === 'string') blocks.push({ type: 'reasoning', text: '', redacted: true });
  if (blocks.length === 0) blocks.push({ type: 'reasoning', text: '' });
  return { ok: true, item: mappedItem('reasoning', 'assistant', blocks, 'output') };
}

function toolCall(type: string, id: string | undefined, name: string, input: string): Mapped {
  if (id === undefined) return { ok: false, problem: `a ${type} without a string "call_id"` };
  return { ok: true, item: mappedItem(type, 'assistant', [{ type: 'tool_call', id, name, input }], 'output') };
}

function toolOutput(type: string, p: Obj, raw: unknown, notes: Notes): Mapped {
  const callId = str(p.call_id);
  if (callId === undefined) return { ok: false, problem: `a ${type} without a string "call_id"` };
  const out = mapOutput(raw, notes);
  const b: Block = { type: 'tool_result', callId, content: out.content };
  if (out.isError !== undefined) b.isError = out.isError;
  return { ok: true, item: mappedItem(type, 'tool', [b], 'input') };
}

/**
 * One `ResponseItem` → the canonical item shape. `fallbackId` names calls that carry no id of their
 * own (a `web_search_call` without `id`): the item's own id, so a re-read gives the same block.
 */
export function mapResponseItem(p: Obj, fallbackId: string, notes?: Notes): Mapped {
  const type = str(p.type);
  switch (type) {
    case 'message':
      return message(p, notes);
    case 'reasoning':
      return reasoning(p, notes);
    case 'function_call': {
      const name = str(p.name);
      if (name === undefined) return { ok: false, problem: 'a function_call without a string "name"' };
      return toolCall(type, str(p.call_id), name, jsonText(p.arguments));
    }
    case 'custom_tool_call': {
      const name = str(p.name);
      if (name === undefined) return { ok: false, problem: 'a custom_tool_call without a string "name"' };
      return toolCall(type, str(p.call_id), name, jsonText(p.input));
    }
    case 'local_shell_call':
      return toolCall(type, str(p.call_id) ?? str(p.id), 'local_shell', jsonText(p.action));
    case 'tool_search_call':
      return toolCall(type, str(p.call_id) ?? str(p.id), 'tool_search', jsonText(p.arguments));
    case 'web_search_call':
      // Hosted search: the call is in the history, its results are not (the provider keeps them).
      return toolCall(type, str(p.id) ?? `${fallbackId}:web_search`, 'web_search', jsonText(p.action ?? {}));
    case 'function_call_output':
    case 'custom_tool_call_output':
      return toolOutput(type, p, p.output, notes);
    case 'tool_search_output':
      return toolOutput(type, p, p.tools === undefined ? p.output : jsonText(p.tools), notes);
    case 'image_generation_call': {
      const blocks: Block[] = [];
      const prompt = str(p.revised_prompt);
      if (prompt !== undefined) blocks.push({ type: 'text', text: prompt });
      const result = str(p.result);
      const img: ImageBlock = { type: 'image', mediaType: 'image/png' };
      if (result !== undefined) img.bytes = Math.floor((result.length * 3) / 4);
      blocks.push(img);
      return { ok: true, item: mappedItem(type, 'assistant', blocks, 'output') };
    }
    case 'compaction':
    case 'compaction_summary': {
      // A remote compaction's summary: encrypted by the provider, shown as opaque, never guessed.
      const enc = str(p.encrypted_content);
      const block: LeafBlock =
        enc === undefined
          ? opaque('codex:compaction (encrypted)', p)
          : { type: 'opaque', label: 'codex:compaction (encrypted)', chars: enc.length };
      return {
        ok: true,
        item: mappedItem(type, 'assistant', [block], 'input', {
          compaction: true,
          origin: 'compaction',
          key: `cmp:${fingerprint([enc ?? jsonText(p)])}`,
        }),
      };
    }
    case 'ghost_snapshot':
      return {
        ok: true,
        item: mappedItem(type, 'system', [opaque('codex:ghost_snapshot', p.ghost_commit ?? p)], 'log', { origin: 'ghost_snapshot' }),
      };
    default:
      return { ok: false, problem: `a response item of type ${shown(type ?? null)}`, unknownType: type ?? '(no type)' };
  }
}

// ---------------------------------------------------------------------------------------------
// Usage.

/** The numbers of a `TokenUsage` object, or undefined when it is not one. */
export interface TokenUsage {
  readonly input: number | undefined;
  readonly cached: number | undefined;
  readonly output: number | undefined;
  readonly reasoning: number | undefined;
  readonly total: number | undefined;
}

export function readTokenUsage(raw: unknown): TokenUsage | undefined {
  if (!isObj(raw)) return undefined;
  return {
    input: nat(raw.input_tokens),
    cached: nat(raw.cached_input_tokens),
    output: nat(raw.output_tokens),
    reasoning: nat(raw.reasoning_output_tokens),
    total: nat(raw.total_tokens),
  };
}

/**
 * `last_token_usage` → canonical usage. OpenAI counts cached tokens inside `input_tokens`; the
 * canonical `input` excludes cache reads, so `input = input_tokens − cached_input_tokens`,
 * `cacheRead = cached_input_tokens`, and `context = input_tokens` (the whole prompt as counted).
 */
export function mapUsage(u: TokenUsage): Usage | undefined {
  const out: Usage = {};
  if (u.input !== undefined) {
    out.input = Math.max(0, u.input - (u.cached ?? 0));
    out.context = u.input;
  }
  if (u.cached !== undefined) out.cacheRead = u.cached;
  if (u.output !== undefined) out.output = u.output;
  if (u.reasoning !== undefined) out.reasoning = u.reasoning;
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * Codex's local re-estimate after a compaction (`recompute_token_usage`): every count 0 but
 * `total_tokens`. Not a provider report.
 */
export function isEstimate(u: TokenUsage): boolean {
  return (u.input ?? 0) === 0 && (u.cached ?? 0) === 0 && (u.output ?? 0) === 0 && (u.reasoning ?? 0) === 0 && (u.total ?? 0) > 0;
}

export function usageKey(u: TokenUsage | undefined): string {
  return u ? `${u.input}/${u.cached}/${u.output}/${u.reasoning}/${u.total}` : '';
}
