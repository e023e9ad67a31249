import type { Block, LeafBlock, ToolSchema } from '../../shared/model/content';
import type { Role } from '../../shared/model/item';
import { itemKind } from '../../shared/model/item';
import type { ModelView, RequestInfo, ViewItem } from '../../shared/model/view';
import type { JoinedRequest } from '../../shared/model/wire-join';
import type { WireCall } from './exchange';
import { fromGemini } from './wire-gemini';

/*
 * A model view read from a captured request body: the system prompt, tools and messages exactly as
 * sent (Anthropic Messages or OpenAI Responses; Chat Completions and Gemini (./wire-gemini.ts) too). Items have no log
 * provenance — only the wire has them — and ids of the form `wire:<exchange>:<n>`. Content a body
 * carries that a block cannot hold (an image's bytes, encrypted reasoning) is named, never guessed.
 *
 * `mergeWire` gives a request both the log and the wire know its view from the wire where the log
 * does not record something (the system prompt, the tools) and keeps the log's items, with their
 * provenance and fates, when the wire carried exactly those items.
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const json = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v ?? {}));

function leaf(p: Obj): LeafBlock {
  switch (p.type) {
    case 'text':
    case 'input_text':
    case 'output_text':
      return { type: 'text', text: str(p.text) };
    case 'image':
    case 'input_image':
      return { type: 'image', mediaType: isObj(p.source) ? str(p.source.media_type) || undefined : undefined };
    default:
      return { type: 'opaque', label: `${str(p.type) || 'content'} (as sent: ${JSON.stringify(p).length} chars)` };
  }
}

function anthropicBlocks(content: unknown): Block[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  const out: Block[] = [];
  for (const p of arr(content).filter(isObj)) {
    if (p.type === 'tool_use' || p.type === 'server_tool_use')
      out.push({ type: 'tool_call', id: str(p.id), name: str(p.name), input: json(p.input) });
    else if (p.type === 'tool_result') {
      const c = typeof p.content === 'string' ? [{ type: 'text' as const, text: p.content }] : arr(p.content).filter(isObj).map(leaf);
      out.push({ type: 'tool_result', callId: str(p.tool_use_id), content: c, isError: p.is_error === true ? true : undefined });
    } else if (p.type === 'thinking') out.push({ type: 'reasoning', text: str(p.thinking) });
    else if (p.type === 'redacted_thinking') out.push({ type: 'reasoning', text: '', redacted: true });
    else out.push(leaf(p));
  }
  return out;
}

interface Raw {
  readonly role: Role;
  readonly blocks: Block[];
}

function roleOf(r: unknown): Role {
  return r === 'assistant' ? 'assistant' : r === 'system' || r === 'developer' ? 'system' : r === 'tool' ? 'tool' : 'user';
}

function fromAnthropic(b: Obj): { system: Block[]; tools: ToolSchema[]; items: Raw[] } {
  const system =
    typeof b.system === 'string'
      ? [{ type: 'text' as const, text: b.system }]
      : arr(b.system)
          .filter(isObj)
          .map((s) => ({ type: 'text' as const, text: str(s.text) }));
  const tools = arr(b.tools)
    .filter(isObj)
    .map((t) => ({
      name: str(t.name) || str(t.type),
      description: typeof t.description === 'string' ? t.description : undefined,
      inputSchema: t.input_schema,
    }));
  const items = arr(b.messages)
    .filter(isObj)
    .map((m) => ({ role: roleOf(m.role), blocks: anthropicBlocks(m.content) }));
  return { system, tools, items };
}

function fromResponses(b: Obj): { system: Block[]; tools: ToolSchema[]; items: Raw[] } {
  const system = typeof b.instructions === 'string' && b.instructions !== '' ? [{ type: 'text' as const, text: b.instructions }] : [];
  const tools = arr(b.tools)
    .filter(isObj)
    .map((t) => ({
      name: str(t.name) || str(t.type),
      description: typeof t.description === 'string' ? t.description : undefined,
      inputSchema: t.parameters ?? t.format,
    }));
  const input = typeof b.input === 'string' ? [{ type: 'message', role: 'user', content: b.input }] : arr(b.input).filter(isObj);
  const items: Raw[] = [];
  for (const it of input) {
    const type = it.type ?? (typeof it.role === 'string' ? 'message' : undefined);
    if (type === 'message') {
      const blocks =
        typeof it.content === 'string' ? [{ type: 'text' as const, text: it.content }] : arr(it.content).filter(isObj).map(leaf);
      items.push({ role: roleOf(it.role), blocks });
    } else if (type === 'function_call' || type === 'custom_tool_call') {
      items.push({
        role: 'assistant',
        blocks: [
          {
            type: 'tool_call',
            id: str(it.call_id),
            name: str(it.name),
            input: type === 'function_call' ? str(it.arguments) : str(it.input),
          },
        ],
      });
    } else if (type === 'function_call_output' || type === 'custom_tool_call_output') {
      const out = typeof it.output === 'string' ? [{ type: 'text' as const, text: it.output }] : arr(it.output).filter(isObj).map(leaf);
      items.push({ role: 'tool', blocks: [{ type: 'tool_result', callId: str(it.call_id), content: out }] });
    } else if (type === 'reasoning') {
      const text = arr(it.summary)
        .filter(isObj)
        .map((s) => str(s.text))
        .join('\n\n');
      items.push({
        role: 'assistant',
        blocks: [{ type: 'reasoning', text, redacted: text === '' && typeof it.encrypted_content === 'string' ? true : undefined }],
      });
    } else
      items.push({
        role: 'user',
        blocks: [{ type: 'opaque', label: `${str(type) || 'item'} (as sent: ${JSON.stringify(it).length} chars)` }],
      });
  }
  return { system, tools, items };
}

function fromChat(b: Obj): { system: Block[]; tools: ToolSchema[]; items: Raw[] } {
  const system: Block[] = [];
  const items: Raw[] = [];
  for (const m of arr(b.messages).filter(isObj)) {
    const role = roleOf(m.role);
    const text = typeof m.content === 'string' ? [{ type: 'text' as const, text: m.content }] : arr(m.content).filter(isObj).map(leaf);
    if (role === 'system' && items.length === 0) {
      system.push(...text);
      continue;
    }
    if (role === 'tool') {
      items.push({ role, blocks: [{ type: 'tool_result', callId: str(m.tool_call_id), content: text }] });
      continue;
    }
    const calls = arr(m.tool_calls)
      .filter(isObj)
      .map((c): Block => ({
        type: 'tool_call',
        id: str(c.id),
        name: isObj(c.function) ? str(c.function.name) : '',
        input: isObj(c.function) ? str(c.function.arguments) : '',
      }));
    items.push({ role, blocks: [...text, ...calls] });
  }
  const tools = arr(b.tools)
    .filter(isObj)
    .map((t) => {
      const f = isObj(t.function) ? t.function : t;
      return { name: str(f.name), description: typeof f.description === 'string' ? f.description : undefined, inputSchema: f.parameters };
    });
  return { system, tools, items };
}

/** The system prompt, tools and items a captured request carried; null when its body is not a model request we read. */
export function wireContent(call: WireCall): { system: Block[]; tools: ToolSchema[]; items: Raw[] } | null {
  const b = call.body;
  if (!b) return null;
  if (call.protocol === 'anthropic-messages') return fromAnthropic(b);
  if (call.protocol === 'openai-responses') return fromResponses(b);
  if (call.protocol === 'openai-chat') return fromChat(b);
  if (call.protocol === 'gemini') return fromGemini(b);
  return null;
}

function requestInfoOf(j: JoinedRequest, call: WireCall): RequestInfo {
  const maxOutput =
    call.body && typeof (call.body.max_tokens ?? call.body.max_output_tokens) === 'number'
      ? Number(call.body.max_tokens ?? call.body.max_output_tokens)
      : undefined;
  const u = call.usage;
  return {
    index: j.index,
    id: call.responseId ?? `wire:${j.exchange ?? j.index}`,
    seq: j.afterSeq ?? 0,
    purpose: j.purpose,
    compactionId: j.compactionId,
    route: { model: call.model ?? undefined, maxOutput },
    responseSeq: null,
    finish: call.finish,
    usage: u,
    reportedInputTokens: u ? (u.context ?? (u.input ?? 0) + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0)) : null,
    error: call.error ? { code: call.error.code ?? undefined, message: call.error.message } : null,
  };
}

/** A request only the wire shows, as a model view. */
export function wireView(j: JoinedRequest, call: WireCall): ModelView {
  const c = wireContent(call);
  const seq = j.afterSeq ?? 0;
  const items: ViewItem[] = (c?.items ?? []).map((r, n) => ({
    id: `wire:${j.exchange ?? j.index}:${n}`,
    seq,
    role: r.role,
    kind: itemKind({ role: r.role, blocks: r.blocks, derivation: undefined }),
    blocks: r.blocks,
    rendition: 'verbatim',
    meta: false,
    derivation: null,
    provenance: [],
  }));
  return {
    request: requestInfoOf(j, call),
    system: c ? c.system : null,
    headerSeqs: [],
    tools: c ? c.tools : null,
    items,
    todo: null,
    unknowns: c ? [] : ['the captured body is not a model request Palimpsest reads'],
  };
}

/**
 * A request both know: the wire's tools; the log's items (with provenance) when the wire carried
 * exactly those, and then the log's system prompt too when the log records it (the comparison
 * judged system and messages as one sequence: Codex sends its base instructions as an input item);
 * otherwise the wire's system prompt and items.
 */
export function mergeWire(logView: ModelView, j: JoinedRequest, call: WireCall): ModelView {
  const c = wireContent(call);
  if (!c) return logView;
  const itemsFromLog = j.messages === 'match';
  if (!itemsFromLog) return { ...logView, system: c.system, tools: c.tools, items: wireView(j, call).items, unknowns: [] };
  const system = logView.system ?? c.system;
  const unknowns = logView.unknowns.filter((u) => !u.startsWith('system prompt:') && !u.startsWith('tool schemas:'));
  return { ...logView, system, tools: c.tools, unknowns };
}
