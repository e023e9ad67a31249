import type { Block, LeafBlock, ToolSchema } from '../../shared/model/content';
import type { Route } from '../../shared/model/event';
import type { ModelView, ViewItem } from '../../shared/model/view';
import { MAX_CONTENT_DEPTH, textDepthExceeds } from '../../shared/json-depth';

/*
 * The reconstructed request of a model view in a provider's own wire shape: Anthropic Messages
 * `{model, max_tokens, system, tools, messages}`, OpenAI Responses `{model, max_output_tokens,
 * instructions, tools, input}` or Chat Completions `{model, max_tokens, messages, tools}`.
 *
 * Pure functions of a full view (every elided text re-read: `SessionInspector.fullView`). What the
 * log does not know is never guessed: it is left out of the body and named in `unknowns` (the
 * system prompt or tools a log does not record, a masked item whose reference is not recorded,
 * opaque content, redacted reasoning, image bytes, a summarizer instruction not recorded, request
 * parameters the route does not carry).
 *
 * Mapping, as the real clients send it (fixtures/fidelity/logs/*):
 *  - Anthropic (Claude Code 2.1.332): consecutive same-role items are one message; tool results are
 *    `tool_result` blocks of a user message; `system` items stay `system` messages (Claude Code
 *    sends its environment block that way); tool inputs are the parsed JSON the model wrote; a
 *    user or system message whose content is one text block is sent as a plain string, except the
 *    last message (Claude Code puts a cache breakpoint there and keeps it a block list); assistant
 *    messages always keep a block list. cache_control itself
 *    is not written: the view does not carry it.
 *  - Responses (Codex 0.171.0): message items with input_text (output_text for the assistant),
 *    `developer` role for system items of origin "developer", function_call /
 *    function_call_output items, reasoning items with their summary text.
 *  - Chat Completions: system/user/assistant messages, assistant `tool_calls`, `tool` messages
 *    with `tool_call_id`.
 */

export type WireShape = 'anthropic' | 'responses' | 'chat';
export const WIRE_SHAPES: readonly WireShape[] = ['anthropic', 'responses', 'chat'];

export type Json = Record<string, unknown>;

export interface WireContext {
  /** The harness (or log format) that wrote the log: claude-code, codex, dsh, … */
  readonly harness?: string | null;
  /** Each item's `origin` (the harness's own name of what produced it), by item id. */
  readonly origins?: ReadonlyMap<string, string | undefined>;
  /**
   * A summarizer request's instruction, sent after the items: undefined, the request has none;
   * null, it has one the log does not record.
   */
  readonly instruction?: readonly Block[] | null;
}

export interface WireRequest {
  readonly shape: WireShape;
  readonly body: Json;
  /** What the log cannot know, left out of the body, one line each. */
  readonly unknowns: readonly string[];
}

/** The wire shape a view's route (or its harness) speaks. */
export function defaultShape(route: Route, harness?: string | null): WireShape {
  const p = route.provider?.toLowerCase();
  if (p === 'anthropic') return 'anthropic';
  if (p === 'openai') return 'responses';
  if (harness === 'claude-code') return 'anthropic';
  if (harness === 'codex') return 'responses';
  return 'chat';
}

export function toWire(shape: WireShape, view: ModelView, ctx: WireContext = {}): WireRequest {
  switch (shape) {
    case 'anthropic':
      return toAnthropic(view, ctx);
    case 'responses':
      return toResponses(view, ctx);
    case 'chat':
      return toChat(view, ctx);
  }
}

/** The view's items, plus the summarizer instruction as a last user item. */
function itemsOf(
  view: ModelView,
  ctx: WireContext,
  unknowns: string[],
): { id: string; role: ViewItem['role']; blocks: readonly Block[] | null }[] {
  const items: { id: string; role: ViewItem['role']; blocks: readonly Block[] | null }[] = view.items.map((i) => ({
    id: i.id,
    role: i.role,
    blocks: i.blocks,
  }));
  if (ctx.instruction === null) unknowns.push('the summarizer instruction (the log does not record it)');
  else if (ctx.instruction) items.push({ id: '(instruction)', role: 'user', blocks: ctx.instruction });
  return items;
}

function maskedUnknown(id: string): string {
  return `masked item ${id}: its reference is not recorded`;
}

function leafUnknown(where: string, b: Block | LeafBlock): string | null {
  switch (b.type) {
    case 'image':
      return `image in ${where}${b.mediaType ? ` (${b.mediaType})` : ''}: its bytes are not kept`;
    case 'opaque':
      return `opaque content "${b.label}" in ${where}${b.chars !== undefined ? ` (${b.chars} chars)` : ''}`;
    case 'reasoning':
      return b.redacted ? `redacted reasoning in ${where}` : null;
    default:
      return null;
  }
}

function parseInput(s: string): { ok: true; value: unknown } | { ok: false; why: string } {
  // Parsed, too deep a value would overflow the stack of everything that then walks it, starting
  // with the JSON.stringify that prints the request.
  if (textDepthExceeds(s, MAX_CONTENT_DEPTH)) return { ok: false, why: `its input nests more than ${MAX_CONTENT_DEPTH} levels deep` };
  try {
    return { ok: true, value: JSON.parse(s) as unknown };
  } catch {
    return { ok: false, why: 'its input is not JSON' };
  }
}

function commonUnknowns(view: ModelView, unknowns: string[], maxField: string): void {
  if (view.system === null) unknowns.push('the system prompt (the log does not record it)');
  if (view.tools === null) unknowns.push('the tool schemas (the log does not record them)');
  if (view.request.route.model === undefined) unknowns.push('model (the log does not record it)');
  if (view.request.route.maxOutput === undefined) unknowns.push(`${maxField} (the log does not record it)`);
}

// ---------------------------------------------------------------- Anthropic Messages

function anthropicTool(t: ToolSchema): Json {
  return {
    name: t.name,
    ...(t.description !== undefined ? { description: t.description } : {}),
    input_schema: t.inputSchema ?? { type: 'object' },
  };
}

export function toAnthropic(view: ModelView, ctx: WireContext = {}): WireRequest {
  const unknowns: string[] = [];
  commonUnknowns(view, unknowns, 'max_tokens');
  const body: Json = {};
  if (view.request.route.model !== undefined) body.model = view.request.route.model;
  if (view.request.route.maxOutput !== undefined) body.max_tokens = view.request.route.maxOutput;
  if (view.system !== null) {
    const system: Json[] = [];
    for (const b of view.system) {
      if (b.type === 'text') system.push({ type: 'text', text: b.text });
      else unknowns.push(leafUnknown('the system prompt', b) ?? `${b.type} block in the system prompt`);
    }
    if (ctx.harness === 'claude-code') unknowns.push('Claude Code\'s "x-anthropic-billing-header:" system block (no log records it)');
    body.system = system;
  }
  if (ctx.harness === 'claude-code')
    unknowns.push('cache_control breakpoints and message fields besides role and content (output_config): the view does not carry them');
  if (view.tools !== null) body.tools = view.tools.map(anthropicTool);

  const messages: { role: string; content: Json[] }[] = [];
  for (const it of itemsOf(view, ctx, unknowns)) {
    if (it.blocks === null) {
      unknowns.push(maskedUnknown(it.id));
      continue;
    }
    const content: Json[] = [];
    const where = `item ${it.id}`;
    for (const b of it.blocks) {
      switch (b.type) {
        case 'text':
          content.push({ type: 'text', text: b.text });
          break;
        case 'reasoning':
          if (b.redacted) unknowns.push(`redacted reasoning in ${where}`);
          else {
            content.push({ type: 'thinking', thinking: b.text });
            unknowns.push(`the signature of the thinking block in ${where}`);
          }
          break;
        case 'tool_call': {
          const parsed = parseInput(b.input);
          if (parsed.ok) content.push({ type: 'tool_use', id: b.id, name: b.name, input: parsed.value });
          else unknowns.push(`tool call ${b.id} in ${where}: ${parsed.why}`);
          break;
        }
        case 'tool_result': {
          const parts: Json[] = [];
          for (const l of b.content) {
            if (l.type === 'text') parts.push({ type: 'text', text: l.text });
            else unknowns.push(leafUnknown(`the result of ${b.callId}`, l) ?? `${l.type} in the result of ${b.callId}`);
          }
          const only = parts.length === 1 ? parts[0] : undefined;
          const resultContent = only && typeof only.text === 'string' ? only.text : parts;
          content.push({ type: 'tool_result', tool_use_id: b.callId, content: resultContent, is_error: b.isError === true });
          break;
        }
        default:
          unknowns.push(leafUnknown(where, b) ?? `${b.type} block in ${where}`);
      }
    }
    // An item left empty by what is unknown is left out; one the log records empty is sent empty (as Claude Code does).
    if (content.length === 0 && it.blocks.length > 0) continue;
    const role = it.role === 'tool' ? 'user' : it.role;
    const last = messages.at(-1);
    if (last && last.role === role) last.content.push(...content);
    else messages.push({ role, content });
  }
  body.messages = messages.map((m, i) => {
    const only = m.content.length === 1 ? m.content[0] : undefined;
    const plain = i < messages.length - 1 && m.role !== 'assistant' && only?.type === 'text' && typeof only.text === 'string';
    return { role: m.role, content: plain ? only.text : m.content };
  });
  return { shape: 'anthropic', body, unknowns };
}

// ---------------------------------------------------------------- OpenAI Responses

function responsesRole(it: { id: string; role: string }, ctx: WireContext): string {
  if (it.role === 'system') return ctx.origins?.get(it.id) === 'developer' ? 'developer' : 'system';
  return it.role === 'assistant' ? 'assistant' : 'user';
}

function leafText(l: LeafBlock): string | null {
  return l.type === 'text' ? l.text : null;
}

export function toResponses(view: ModelView, ctx: WireContext = {}): WireRequest {
  const unknowns: string[] = [];
  commonUnknowns(view, unknowns, 'max_output_tokens');
  const body: Json = {};
  if (view.request.route.model !== undefined) body.model = view.request.route.model;
  if (view.request.route.maxOutput !== undefined) body.max_output_tokens = view.request.route.maxOutput;
  if (view.system !== null) {
    const texts: string[] = [];
    for (const b of view.system) {
      if (b.type === 'text') texts.push(b.text);
      else unknowns.push(leafUnknown('the system prompt', b) ?? `${b.type} block in the system prompt`);
    }
    if (texts.length > 0) body.instructions = texts.join('\n\n');
  }
  if (view.tools !== null) {
    body.tools = view.tools.map((t) => ({
      type: 'function',
      name: t.name,
      ...(t.description !== undefined ? { description: t.description } : {}),
      parameters: t.inputSchema ?? { type: 'object' },
    }));
  }
  const input: Json[] = [];
  for (const it of itemsOf(view, ctx, unknowns)) {
    if (it.blocks === null) {
      unknowns.push(maskedUnknown(it.id));
      continue;
    }
    const role = responsesRole(it, ctx);
    const where = `item ${it.id}`;
    let parts: Json[] = [];
    const flush = (): void => {
      if (parts.length > 0) input.push({ type: 'message', role, content: parts });
      parts = [];
    };
    for (const b of it.blocks) {
      switch (b.type) {
        case 'text':
          parts.push({ type: role === 'assistant' ? 'output_text' : 'input_text', text: b.text });
          break;
        case 'reasoning':
          flush();
          if (b.redacted) unknowns.push(`redacted reasoning in ${where} (its encrypted content is not kept)`);
          else input.push({ type: 'reasoning', summary: [{ type: 'summary_text', text: b.text }] });
          break;
        case 'tool_call':
          flush();
          input.push({ type: 'function_call', call_id: b.id, name: b.name, arguments: b.input });
          break;
        case 'tool_result': {
          flush();
          const texts: string[] = [];
          for (const l of b.content) {
            const t = leafText(l);
            if (t !== null) texts.push(t);
            else unknowns.push(leafUnknown(`the result of ${b.callId}`, l) ?? `${l.type} in the result of ${b.callId}`);
          }
          input.push({ type: 'function_call_output', call_id: b.callId, output: texts.join('\n\n') });
          break;
        }
        default:
          unknowns.push(leafUnknown(where, b) ?? `${b.type} block in ${where}`);
      }
    }
    flush();
  }
  body.input = input;
  return { shape: 'responses', body, unknowns };
}

// ---------------------------------------------------------------- Chat Completions

export function toChat(view: ModelView, ctx: WireContext = {}): WireRequest {
  const unknowns: string[] = [];
  commonUnknowns(view, unknowns, 'max_tokens');
  const body: Json = {};
  if (view.request.route.model !== undefined) body.model = view.request.route.model;
  if (view.request.route.maxOutput !== undefined) body.max_tokens = view.request.route.maxOutput;
  const messages: Json[] = [];
  const textContent = (texts: string[]): unknown => (texts.length === 1 ? texts[0] : texts.map((text) => ({ type: 'text', text })));
  if (view.system !== null) {
    const texts: string[] = [];
    for (const b of view.system) {
      if (b.type === 'text') texts.push(b.text);
      else unknowns.push(leafUnknown('the system prompt', b) ?? `${b.type} block in the system prompt`);
    }
    if (texts.length > 0) messages.push({ role: 'system', content: textContent(texts) });
  }
  for (const it of itemsOf(view, ctx, unknowns)) {
    if (it.blocks === null) {
      unknowns.push(maskedUnknown(it.id));
      continue;
    }
    const where = `item ${it.id}`;
    const texts: string[] = [];
    const calls: Json[] = [];
    const results: Json[] = [];
    for (const b of it.blocks) {
      switch (b.type) {
        case 'text':
          texts.push(b.text);
          break;
        case 'reasoning':
          unknowns.push(b.redacted ? `redacted reasoning in ${where}` : `reasoning in ${where} (Chat Completions has no field for it)`);
          break;
        case 'tool_call':
          calls.push({ id: b.id, type: 'function', function: { name: b.name, arguments: b.input } });
          break;
        case 'tool_result': {
          const out: string[] = [];
          for (const l of b.content) {
            const t = leafText(l);
            if (t !== null) out.push(t);
            else unknowns.push(leafUnknown(`the result of ${b.callId}`, l) ?? `${l.type} in the result of ${b.callId}`);
          }
          results.push({ role: 'tool', tool_call_id: b.callId, content: out.join('\n\n') });
          break;
        }
        default:
          unknowns.push(leafUnknown(where, b) ?? `${b.type} block in ${where}`);
      }
    }
    messages.push(...results);
    if (it.role === 'assistant') {
      if (texts.length > 0 || calls.length > 0)
        messages.push({
          role: 'assistant',
          content: texts.length > 0 ? texts.join('\n\n') : null,
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
        });
    } else if (texts.length > 0) {
      messages.push({ role: it.role === 'tool' ? 'user' : it.role, content: textContent(texts) });
    }
  }
  body.messages = messages;
  if (view.tools !== null) {
    body.tools = view.tools.map((t) => ({
      type: 'function',
      function: {
        name: t.name,
        ...(t.description !== undefined ? { description: t.description } : {}),
        parameters: t.inputSchema ?? { type: 'object' },
      },
    }));
  }
  return { shape: 'chat', body, unknowns };
}
