import type { Block, LeafBlock, ToolSchema } from '../../shared/model/content';
import type { ModelView } from '../../shared/model/view';
import type { UserSeam } from '../dialects/claude-user-seam';
import { geminiRequest } from './gemini';

/*
 * The common shape both sides of a fidelity comparison are brought to: what was sent on the wire
 * (an Anthropic Messages, OpenAI Responses or Gemini request body: ./gemini.ts) and what Palimpsest rebuilt (a
 * ModelView). A request is a system part list, a flat list of message parts in order, and tools.
 *
 * Normalisations, each one a representation the API treats as the same thing (docs/fidelity.md):
 *  - message boundaries are dropped: a part carries its role (consecutive same-role messages are
 *    one turn to the model; Claude Code itself merges consecutive user records on the wire);
 *  - a string content is one text block; a run of consecutive text parts of one role is compared
 *    as its texts joined by a blank line ("\n\n"), which is how Claude Code 2.1.332 itself turns a
 *    text-only system message into a string on the wire;
 *  - Anthropic tool_result blocks and Responses function_call_output items are parts of role
 *    `tool`; Responses `developer` messages are role `system`;
 *  - `cache_control` and other transport fields (ids of output items, `status`, signatures) are
 *    not compared; tool-call inputs are compared as canonical JSON (sorted keys) for Anthropic,
 *    whose wire carries an object, and as the exact argument string for Responses;
 *  - Claude Code's `x-anthropic-billing-header:` system block (an attribution header the client
 *    adds to every request and no log records) is left out of the system prompt and counted.
 */

export type Role = 'system' | 'user' | 'assistant' | 'tool';

export type Part =
  | { readonly role: Role; readonly type: 'text'; readonly text: string }
  | { readonly role: Role; readonly type: 'reasoning'; readonly text: string; readonly redacted: boolean }
  | { readonly role: Role; readonly type: 'tool_call'; readonly id: string; readonly name: string; readonly input: string }
  | { readonly role: Role; readonly type: 'tool_result'; readonly callId: string; readonly content: string; readonly isError: boolean }
  | { readonly role: Role; readonly type: 'image' }
  | { readonly role: Role; readonly type: 'opaque'; readonly label: string }
  /**
   * Something the log does not say (a masked item without its reference, an unrecorded instruction).
   * It stands for one wire part in place, or, with `span: 'any'`, for what a client adds by rules the
   * log does not hold: any number of user or system texts (none included), and the start of the
   * next text of its role up to a blank line (./compare.ts aligns the parts after it). With `maybe`,
   * it is that part or nothing (a part the client may have left out); a tool result may also be
   * another result for the same call (one the client made up in its place). With `named`, its reason is
   * named with the others even where the first unknown's reason is given (a client's rule, not a gap).
   * With `span: 'history'`, the parts after it up to a user turn may have been replaced by parts the
   * log does not hold (a summary the client put in their place unlogged): the wire is either these
   * parts as they are, or any parts followed by the view's parts from a user turn (or from the
   * message being sent) on.
   */
  | {
      readonly role: Role;
      readonly type: 'unknown';
      readonly why: string;
      readonly span?: 'any' | 'history';
      readonly maybe?: Part;
      readonly named?: true;
    }
  | { readonly role: Role; readonly type: 'other'; readonly kind: string; readonly json: string };

export interface NormTool {
  readonly name: string;
  readonly description: string | null;
  readonly schema: string | null;
}

export interface NormRequest {
  /** null: not known (the log does not record it). */
  readonly system: readonly Part[] | null;
  readonly parts: readonly Part[];
  readonly tools: readonly NormTool[] | null;
  readonly model: string | null;
  /** Notes on what was left out by a documented normalisation. */
  readonly notes: readonly string[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** JSON with sorted keys and no spaces (the same canonical form Claude Code hashes messages with). */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (isObj(v)) {
    return `{${Object.keys(v)
      .sort()
      .filter((k) => v[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

function canonicalInput(s: string): string {
  try {
    return canonicalJson(JSON.parse(s));
  } catch {
    return s;
  }
}

/** Merge runs of same-role text parts into one (joined by a blank line). */
export function joinTextRuns(parts: readonly Part[]): Part[] {
  const out: Part[] = [];
  for (const p of parts) {
    const last = out.at(-1);
    if (p.type === 'text' && last?.type === 'text' && last.role === p.role) {
      out[out.length - 1] = { role: p.role, type: 'text', text: `${last.text}\n\n${p.text}` };
    } else out.push(p);
  }
  return out;
}

// ---------------------------------------------------------------- wire: Anthropic Messages

const BILLING = 'x-anthropic-billing-header:';

function anthropicToolResultText(c: unknown): string {
  if (typeof c === 'string') return c;
  return arr(c)
    .filter(isObj)
    .map((b) => (b.type === 'text' ? str(b.text) : `[${str(b.type)}]`))
    .join('\n\n');
}

function anthropicParts(role: Role, content: unknown): Part[] {
  if (typeof content === 'string') return [{ role, type: 'text', text: content }];
  const out: Part[] = [];
  for (const b of arr(content)) {
    if (!isObj(b)) continue;
    switch (b.type) {
      case 'text':
        out.push({ role, type: 'text', text: str(b.text) });
        break;
      case 'thinking':
        out.push({ role, type: 'reasoning', text: str(b.thinking), redacted: false });
        break;
      case 'redacted_thinking':
        out.push({ role, type: 'reasoning', text: '', redacted: true });
        break;
      case 'tool_use':
        out.push({ role, type: 'tool_call', id: str(b.id), name: str(b.name), input: canonicalJson(b.input ?? {}) });
        break;
      case 'tool_result':
        out.push({
          role: 'tool',
          type: 'tool_result',
          callId: str(b.tool_use_id),
          content: anthropicToolResultText(b.content),
          isError: b.is_error === true,
        });
        break;
      case 'image':
        out.push({ role, type: 'image' });
        break;
      default: {
        const { cache_control: _cc, ...rest } = b;
        out.push({ role, type: 'other', kind: str(b.type), json: canonicalJson(rest) });
      }
    }
  }
  return out;
}

function wireRole(r: unknown): Role {
  return r === 'assistant' ? 'assistant' : r === 'system' || r === 'developer' ? 'system' : r === 'tool' ? 'tool' : 'user';
}

/** An Anthropic Messages request body (or a log's rebuilt one) in the common shape. */
export function anthropicRequest(b: Obj): NormRequest {
  const notes: string[] = [];
  const system: Part[] = [];
  if (typeof b.system === 'string') system.push({ role: 'system', type: 'text', text: b.system });
  for (const s of arr(b.system).filter(isObj)) {
    const text = str(s.text);
    if (text.startsWith(BILLING)) {
      notes.push('billing-header system block left out');
      continue;
    }
    system.push({ role: 'system', type: 'text', text });
  }
  const parts: Part[] = [];
  for (const m of arr(b.messages).filter(isObj)) parts.push(...anthropicParts(wireRole(m.role), m.content));
  const tools = arr(b.tools)
    .filter(isObj)
    .map((t) => ({
      name: str(t.name) || str(t.type),
      description: typeof t.description === 'string' ? t.description : null,
      schema: t.input_schema !== undefined ? canonicalJson(t.input_schema) : null,
    }));
  return { system: joinTextRuns(system), parts: joinTextRuns(parts), tools, model: typeof b.model === 'string' ? b.model : null, notes };
}

// ---------------------------------------------------------------- wire: OpenAI Responses

function responsesOutputText(o: unknown): string {
  if (typeof o === 'string') return o;
  if (isObj(o) && typeof o.content === 'string') return o.content;
  return arr(o)
    .filter(isObj)
    .map((p) => str(p.text))
    .join('\n\n');
}

function responsesItem(it: Obj): Part[] {
  const type = it.type ?? (typeof it.role === 'string' ? 'message' : undefined);
  switch (type) {
    case 'message': {
      const role = wireRole(it.role);
      if (typeof it.content === 'string') return [{ role, type: 'text', text: it.content }];
      const out: Part[] = [];
      for (const p of arr(it.content).filter(isObj)) {
        if (p.type === 'input_text' || p.type === 'output_text' || p.type === 'text') out.push({ role, type: 'text', text: str(p.text) });
        else if (p.type === 'refusal') out.push({ role, type: 'text', text: str(p.refusal) });
        else if (p.type === 'input_image') out.push({ role, type: 'image' });
        else out.push({ role, type: 'other', kind: str(p.type), json: canonicalJson(p) });
      }
      return out;
    }
    case 'function_call':
      return [{ role: 'assistant', type: 'tool_call', id: str(it.call_id), name: str(it.name), input: str(it.arguments) }];
    case 'custom_tool_call':
      return [{ role: 'assistant', type: 'tool_call', id: str(it.call_id), name: str(it.name), input: str(it.input) }];
    case 'function_call_output':
    case 'custom_tool_call_output':
      return [{ role: 'tool', type: 'tool_result', callId: str(it.call_id), content: responsesOutputText(it.output), isError: false }];
    case 'reasoning': {
      const text = arr(it.summary)
        .filter(isObj)
        .map((s) => str(s.text))
        .join('\n\n');
      return [{ role: 'assistant', type: 'reasoning', text, redacted: text === '' && typeof it.encrypted_content === 'string' }];
    }
    case 'compaction':
    case 'compaction_summary':
      return [{ role: 'assistant', type: 'opaque', label: 'compaction' }];
    default: {
      const { id: _id, status: _status, ...rest } = it;
      return [{ role: 'user', type: 'other', kind: str(type), json: canonicalJson(rest) }];
    }
  }
}

/** An OpenAI Responses request body in the common shape. */
export function responsesRequest(b: Obj): NormRequest {
  const system: Part[] =
    typeof b.instructions === 'string' && b.instructions !== '' ? [{ role: 'system', type: 'text', text: b.instructions }] : [];
  const input = typeof b.input === 'string' ? [{ type: 'message', role: 'user', content: b.input }] : arr(b.input).filter(isObj);
  const parts: Part[] = [];
  for (const it of input) parts.push(...responsesItem(it));
  const tools = arr(b.tools)
    .filter(isObj)
    .map((t) => ({
      name: str(t.name) || str(t.type),
      description: typeof t.description === 'string' ? t.description : null,
      schema: t.parameters !== undefined ? canonicalJson(t.parameters) : t.format !== undefined ? canonicalJson(t.format) : null,
    }));
  return { system, parts: joinTextRuns(parts), tools, model: typeof b.model === 'string' ? b.model : null, notes: [] };
}

// ---------------------------------------------------------------- wire: OpenAI Chat Completions

function chatContentParts(role: Role, content: unknown): Part[] {
  if (typeof content === 'string') return content === '' ? [] : [{ role, type: 'text', text: content }];
  const out: Part[] = [];
  for (const p of arr(content).filter(isObj)) {
    if (p.type === 'text') out.push({ role, type: 'text', text: str(p.text) });
    else if (p.type === 'image_url') out.push({ role, type: 'image' });
    else out.push({ role, type: 'other', kind: str(p.type), json: canonicalJson(p) });
  }
  return out;
}

/**
 * An OpenAI Chat Completions request body in the common shape: `system` (and `developer`)
 * messages are the system part list, an assistant message's `reasoning_content` is a reasoning
 * part before its text, its `tool_calls` are tool calls (the exact argument string), and `tool`
 * messages are tool results.
 */
export function chatRequest(b: Obj): NormRequest {
  const system: Part[] = [];
  const parts: Part[] = [];
  for (const m of arr(b.messages).filter(isObj)) {
    const role = wireRole(m.role);
    if (role === 'system') system.push(...chatContentParts('system', m.content));
    else if (role === 'tool')
      parts.push({ role: 'tool', type: 'tool_result', callId: str(m.tool_call_id), content: chatText(m.content), isError: false });
    else {
      if (role === 'assistant' && typeof m.reasoning_content === 'string' && m.reasoning_content !== '')
        parts.push({ role, type: 'reasoning', text: m.reasoning_content, redacted: false });
      parts.push(...chatContentParts(role, m.content));
      for (const c of arr(m.tool_calls).filter(isObj)) {
        const f = isObj(c.function) ? c.function : {};
        parts.push({ role: 'assistant', type: 'tool_call', id: str(c.id), name: str(f.name), input: str(f.arguments) });
      }
    }
  }
  const tools = arr(b.tools)
    .filter(isObj)
    .map((t) => (isObj(t.function) ? t.function : t))
    .map((f) => ({
      name: str(f.name),
      description: typeof f.description === 'string' ? f.description : null,
      schema: f.parameters !== undefined ? canonicalJson(f.parameters) : null,
    }));
  return {
    system: joinTextRuns(system),
    parts: joinTextRuns(parts),
    tools,
    model: typeof b.model === 'string' ? b.model : null,
    notes: [],
  };
}

function chatText(c: unknown): string {
  if (typeof c === 'string') return c;
  return arr(c)
    .filter(isObj)
    .map((p) => str(p.text))
    .join('\n\n');
}

/** A wire request body in the common shape; null when it is not a model request this knows. */
export function normalizeBody(protocol: string | null, b: unknown): NormRequest | null {
  if (!isObj(b)) return null;
  if (protocol === 'anthropic-messages') return anthropicRequest(b);
  if (protocol === 'openai-responses') return responsesRequest(b);
  if (protocol === 'openai-chat') return chatRequest(b);
  if (protocol === 'gemini') return geminiRequest(b);
  return null;
}

// ---------------------------------------------------------------- the view

function leafText(l: LeafBlock): string {
  switch (l.type) {
    case 'text':
      return l.text;
    case 'reasoning':
      return l.text;
    case 'image':
      return '[image]';
    case 'opaque':
      return `[${l.label}]`;
  }
}

function viewRole(r: string): Role {
  return r === 'assistant' ? 'assistant' : r === 'system' ? 'system' : r === 'tool' ? 'tool' : 'user';
}

export function blockParts(role: Role, blocks: readonly Block[], protocol: string): Part[] {
  const out: Part[] = [];
  for (const b of blocks) {
    switch (b.type) {
      case 'text':
        out.push({ role, type: 'text', text: b.text });
        break;
      case 'reasoning':
        out.push({ role, type: 'reasoning', text: b.redacted ? '' : b.text, redacted: b.redacted === true });
        break;
      case 'image':
        out.push({ role, type: 'image' });
        break;
      case 'opaque':
        out.push({ role, type: 'opaque', label: b.label });
        break;
      case 'tool_call':
        out.push({
          role: role === 'tool' ? 'assistant' : role,
          type: 'tool_call',
          // Gemini pairs a response with its call by name and order: ids are not compared (./gemini.ts).
          id: protocol === 'gemini' ? '' : b.id,
          name: b.name,
          input: protocol === 'anthropic-messages' || protocol === 'gemini' ? canonicalInput(b.input) : b.input,
        });
        break;
      case 'tool_result':
        out.push({
          role: 'tool',
          type: 'tool_result',
          callId: protocol === 'gemini' ? '' : b.callId,
          content: b.content.map(leafText).join('\n\n'),
          isError: b.isError === true,
        });
        break;
    }
  }
  return out;
}

/**
 * What a client adds to the messages by rules the log does not hold (src/main/dialects/
 * claude-unrecorded.ts): why the start of the first user message is unknown, and, per item, why
 * its text on the wire is (null: the item is sent as the log says). Such an item is unknown at the
 * start of the run of user records it belongs to and after that run (`userRun` below).
 * `seam`: how the client joins consecutive user records into one message (src/main/dialects/
 * claude-user-seam.ts); absent: as they are.
 */
export interface UnrecordedRendering {
  readonly firstUser: string;
  readonly item: (it: ModelView['items'][number]) => string | null;
  readonly seam?: UserSeam;
  /** Tool calls the client may have left out (with their results), and why (src/main/dialects/claude-resume.ts). */
  readonly mayDrop?: { readonly calls: ReadonlySet<string>; readonly why: string };
  /** Tool results the client may have replaced by a note of its own, by call, and why (RequestEvent.unlogged). */
  readonly mayClear?: ReadonlyMap<string, string>;
  /** Text the client may have added to the user message holding an item, by item, and why (RequestEvent.unlogged). */
  readonly mayAdd?: ReadonlyMap<string, string>;
  /** Text the client may have added to every user message from the one holding an item on, and why (RequestEvent.unlogged). */
  readonly mayAddFrom?: { readonly item: string; readonly why: string };
  /** Why the items masked in this request by the client's unlogged rule are masked (RequestEvent.unlogged). */
  readonly cleared?: string;
}

type ViewItem = ModelView['items'][number];

function itemParts(it: ViewItem, role: Role, protocol: string, r?: UnrecordedRendering): Part[] {
  if (it.blocks === null)
    return [
      r?.cleared !== undefined
        ? { role, type: 'unknown', why: r.cleared, named: true }
        : { role, type: 'unknown', why: `masked item ${it.id}: its reference is not recorded` },
    ];
  const parts = blockParts(role, it.blocks, protocol);
  const mayDrop = r?.mayDrop;
  const mayClear = r?.mayClear;
  if ((!mayDrop || mayDrop.calls.size === 0) && (!mayClear || mayClear.size === 0)) return parts;
  return parts.map((p): Part => {
    const call = p.type === 'tool_call' ? p.id : p.type === 'tool_result' ? p.callId : null;
    if (call === null) return p;
    if (mayDrop?.calls.has(call)) return { role: p.role, type: 'unknown', why: mayDrop.why, maybe: p };
    // A result the client may have cleared: this one, or its note for the same call.
    const cleared = p.type === 'tool_result' ? mayClear?.get(call) : undefined;
    return cleared !== undefined ? { role: p.role, type: 'unknown', why: cleared, maybe: p } : p;
  });
}

/**
 * A run of consecutive user items as the client sends it: one message. Its tool results go first
 * (Claude Code moves them to the front of a merged message), then what the client adds (the
 * context block, the attachments it renders by its own rules: unknown, at the start of the
 * message and after it, the two places they travel), then the recorded texts, each joined to the
 * next by the seam rule.
 */
function userRun(run: readonly ViewItem[], r: UnrecordedRendering, first: boolean, protocol: string, onward: string | null): Part[] {
  const lead: Part[] = first ? [{ role: 'user', type: 'unknown', why: r.firstUser, span: 'any' }] : [];
  const after: Part[] = [];
  if (onward !== null) {
    // Text the client may have added to every message from an earlier one on: at both places.
    const unknown: Part = { role: 'user', type: 'unknown', why: onward, span: 'any' };
    lead.push(unknown);
    after.push(unknown);
  }
  const tools: Part[] = [];
  let rest: Part[] = [];
  let seams = 0;
  for (const it of run) {
    const mayAdd = r.mayAdd?.get(it.id);
    if (mayAdd !== undefined) {
      // Added by the client's rule, before or after what the message holds: named at both places.
      const unknown: Part = { role: 'user', type: 'unknown', why: mayAdd, span: 'any' };
      lead.push(unknown);
      after.push(unknown);
    }
    const why = r.item(it);
    if (why !== null) {
      const unknown: Part = { role: 'user', type: 'unknown', why, span: 'any' };
      lead.push(unknown);
      after.push(unknown);
      // Right after tool results, some versions (2.1.97 on the wire) append the rendered text to
      // the last result's content: that result is then known by its call only.
      const last = tools.at(-1);
      if (rest.length === 0 && last?.type === 'tool_result')
        tools[tools.length - 1] = {
          role: 'tool',
          type: 'unknown',
          why: `${why}; it may be appended to the tool result before it`,
          maybe: last,
        };
      continue;
    }
    const own = itemParts(it, 'user', protocol, r);
    const last = rest.at(-1);
    // The seam: the message so far ends with a text (its tool results moved to the front) and
    // this record starts with one.
    if (last?.type === 'text' && own[0]?.type === 'text') {
      seams++;
      if (r.seam?.kind === 'newline') rest[rest.length - 1] = { ...last, text: `${last.text}\n` };
    }
    tools.push(...own.filter((p) => p.role === 'tool'));
    rest.push(...own.filter((p) => p.role !== 'tool'));
  }
  if (seams > 0 && r.seam?.kind === 'unknown') rest = [{ role: 'user', type: 'unknown', why: r.seam.why }];
  return [...tools, ...lead, ...rest, ...(rest.length > 0 ? after : [])];
}

/**
 * The view in the common shape. `instruction`: a summarizer request's instruction (undefined: the
 * request has none; null: it has one the log does not record). `unrecorded`: what the client adds
 * that the log does not hold, each marked unknown at its place.
 */
export function normalizeView(
  v: ModelView,
  protocol: string,
  instruction?: readonly Block[] | null,
  unrecorded?: UnrecordedRendering,
): NormRequest {
  const parts: Part[] = [];
  let firstUser = unrecorded !== undefined;
  // From this item on, every user message may carry text the client added (null: none named).
  const from = unrecorded?.mayAddFrom;
  let onward: string | null = null;
  for (let k = 0; k < v.items.length;) {
    const it = v.items[k] as ViewItem;
    const role = viewRole(it.role);
    if (unrecorded && role === 'user') {
      // Claude Code sends consecutive user records as one user message.
      let end = k + 1;
      while (end < v.items.length && viewRole((v.items[end] as ViewItem).role) === 'user') end++;
      const run = v.items.slice(k, end);
      if (from && run.some((x) => x.id === from.item)) onward = from.why;
      parts.push(...userRun(run, unrecorded, firstUser, protocol, onward));
      firstUser = false;
      k = end;
      continue;
    }
    const rendered = unrecorded?.item(it) ?? null;
    parts.push(
      ...(rendered === null
        ? itemParts(it, role, protocol, unrecorded)
        : [{ role, type: 'unknown' as const, why: rendered, span: 'any' as const }]),
    );
    k++;
  }
  let joined: Part[];
  if (instruction === null) {
    // The wire joins a trailing user text and the instruction into one text run (joinTextRuns), so
    // an unrecorded instruction makes that whole run unknown, not a mismatch.
    joined = joinTextRuns(parts);
    const last = joined.at(-1);
    if (last?.role === 'user' && last.type === 'text') {
      joined.pop();
      joined.push({
        role: 'user',
        type: 'unknown',
        why: 'summarizer instruction not recorded (the wire joins it to the last user text, which is not compared)',
      });
    } else joined.push({ role: 'user', type: 'unknown', why: 'summarizer instruction not recorded' });
  } else {
    if (instruction) parts.push(...blockParts('user', instruction, protocol));
    joined = joinTextRuns(parts);
  }
  // The billing block is left out on both sides: a view read from the wire carries it as sent.
  const system =
    v.system === null
      ? null
      : joinTextRuns(
          blockParts(
            'system',
            v.system.filter((b) => !(b.type === 'text' && b.text.startsWith(BILLING))),
            protocol,
          ),
        );
  return {
    system,
    parts: joined,
    tools: v.tools === null ? null : v.tools.map(normTool),
    model: v.request.route.model ?? null,
    notes: [],
  };
}

function normTool(t: ToolSchema): NormTool {
  return { name: t.name, description: t.description ?? null, schema: t.inputSchema !== undefined ? canonicalJson(t.inputSchema) : null };
}

/** A short, one-line rendering of a part for reports. */
export function describePart(p: Part | undefined, max = 160): string {
  if (!p) return '(nothing)';
  const cut = (s: string): string => {
    const one = s.replace(/\s+/g, ' ');
    return one.length > max ? `${one.slice(0, max)}… (${s.length} chars)` : one;
  };
  switch (p.type) {
    case 'text':
      return `${p.role} text "${cut(p.text)}"`;
    case 'reasoning':
      return `${p.role} reasoning${p.redacted ? ' (redacted)' : ''} "${cut(p.text)}"`;
    case 'tool_call':
      return `${p.role} tool_call ${p.name}#${p.id} ${cut(p.input)}`;
    case 'tool_result':
      return `tool_result #${p.callId}${p.isError ? ' (error)' : ''} "${cut(p.content)}"`;
    case 'image':
      return `${p.role} image`;
    case 'opaque':
      return `${p.role} opaque ${p.label}`;
    case 'unknown':
      return `${p.role} unknown (${p.why})`;
    case 'other':
      return `${p.role} ${p.kind} ${cut(p.json)}`;
  }
}
