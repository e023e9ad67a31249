import { createHash } from 'node:crypto';
import { canonicalJson } from '../../src/main/wire/normalize';

/*
 * A reference reconstruction of the requests a Claude Code 2.1.332 transcript records, written
 * from the real logs and the wire captures of the fidelity suite (fixtures/fidelity/logs/
 * claude-code-2.1.332/*): an executable statement of the record semantics for the importer, and
 * the suite's check that the log is complete for agent calls. It works on parsed lines and keeps
 * everything in memory (test-sized files).
 *
 * Records (one model call = one `api-request`):
 *  - `api-request-shape {shapeHash, shape: {system: [text blocks], tools: [Anthropic tool schemas]}}`
 *    — the envelope, written when it changes; an api-request names it by `shapeHash`.
 *  - `api-request-blob {hash, message}` — a message that no transcript record holds verbatim
 *    (the prompt merged with attachment reminders, attachments rendered as a `system` message,
 *    the compact summary with its reminders). `message` may carry fields besides role and
 *    content (`output_config` on a system message).
 *  - `api-request {id, querySource, shapeHash, params, base, keep, tail[], cacheControl[],
 *    requestDigest, thread, echoWireToolInputs}` — its messages are the first `keep` messages of
 *    the api-request `base` (none when base is absent) followed by the messages whose hashes are
 *    in `tail`.
 *  - A message hash is sha256 of the canonical JSON (keys sorted, no spaces, UTF-8) of the
 *    message with a string `content` written as one text block. Besides blobs, hashes resolve to
 *    transcript records: a `user` record's message; the `assistant` records sharing one
 *    message.id, their content concatenated in file order (role and content only); a run of
 *    consecutive `user` records made only of tool_result blocks (parallel tool results), merged.
 *  - `cacheControl [{path, value}]` places cache_control breakpoints; `path` indexes the logged
 *    request (["system", i] counts shape.system blocks, ["messages", i, "content", j]).
 *
 * On the wire the request also has a first system block `x-anthropic-billing-header: …` that no
 * record holds, and a message whose content is a single text block without a cache_control
 * breakpoint is sent as a plain string.
 */

export type Json = Record<string, unknown>;

export interface ClaudeMessage {
  readonly role: string;
  readonly content: unknown[];
  readonly [field: string]: unknown;
}

export interface ClaudeApiRequest {
  readonly id: string;
  /** 1-based line of the api-request record. */
  readonly line: number;
  readonly querySource: string | null;
  readonly shapeHash: string | null;
  readonly base: string | null;
  readonly keep: number;
  readonly tail: readonly string[];
  readonly params: Json;
  readonly system: readonly unknown[] | null;
  readonly tools: readonly unknown[] | null;
  /** null where a hash does not resolve (listed in `unresolved`). */
  readonly messages: readonly (ClaudeMessage | null)[];
  readonly unresolved: readonly string[];
  readonly cacheControl: readonly { path: readonly (string | number)[]; value: unknown }[];
}

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The message as it is hashed: a string content becomes one text block. */
export function hashableMessage(m: Json): ClaudeMessage {
  const content = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : Array.isArray(m.content) ? m.content : [];
  return { ...m, role: String(m.role), content };
}

export function messageHash(m: Json): string {
  return createHash('sha256')
    .update(canonicalJson(hashableMessage(m)), 'utf8')
    .digest('hex');
}

function isToolResultRecord(l: Json): boolean {
  const msg = l.message;
  return (
    l.type === 'user' &&
    isObj(msg) &&
    Array.isArray(msg.content) &&
    msg.content.length > 0 &&
    msg.content.every((b) => isObj(b) && b.type === 'tool_result')
  );
}

/** Every message a hash can name in this file. */
export function messageIndex(lines: readonly Json[]): Map<string, ClaudeMessage> {
  const index = new Map<string, ClaudeMessage>();
  const add = (m: Json, hash?: string): void => {
    const h = hash ?? messageHash(m);
    if (!index.has(h)) index.set(h, hashableMessage(m));
  };
  const assistants = new Map<string, unknown[]>();
  let run: Json[] = [];
  const flush = (): void => {
    if (run.length > 1) add({ role: 'user', content: run.flatMap((r) => (r.message as { content: unknown[] }).content) });
    run = [];
  };
  for (const l of lines) {
    if (l.type === 'api-request-blob' && isObj(l.message)) add(l.message, typeof l.hash === 'string' ? l.hash : undefined);
    if (l.type === 'user' && isObj(l.message)) {
      add({ role: 'user', content: l.message.content });
      if (isToolResultRecord(l)) run.push(l);
      else flush();
    } else if (l.type === 'assistant' && isObj(l.message)) {
      flush();
      const id = String(l.message.id ?? '');
      const content = Array.isArray(l.message.content) ? l.message.content : [];
      assistants.set(id, [...(assistants.get(id) ?? []), ...content]);
    }
  }
  flush();
  for (const content of assistants.values()) add({ role: 'assistant', content });
  return index;
}

/** Rebuild every api-request of a transcript (parsed lines, in file order). */
export function rebuildApiRequests(lines: readonly Json[]): ClaudeApiRequest[] {
  const index = messageIndex(lines);
  const shapes = new Map<string, Json>();
  const byId = new Map<string, ClaudeApiRequest>();
  const out: ClaudeApiRequest[] = [];
  lines.forEach((l, i) => {
    if (l.type === 'api-request-shape' && typeof l.shapeHash === 'string' && isObj(l.shape)) shapes.set(l.shapeHash, l.shape);
    if (l.type !== 'api-request') return;
    const base = typeof l.base === 'string' ? l.base : null;
    const keep = typeof l.keep === 'number' ? l.keep : 0;
    const tail = Array.isArray(l.tail) ? l.tail.map(String) : [];
    const prefix = base ? (byId.get(base)?.messages ?? []) : [];
    const unresolved = tail.filter((h) => !index.has(h));
    if (base && !byId.has(base)) unresolved.unshift(`base:${base}`);
    const shape = typeof l.shapeHash === 'string' ? shapes.get(l.shapeHash) : undefined;
    const r: ClaudeApiRequest = {
      id: String(l.id ?? ''),
      line: i + 1,
      querySource: typeof l.querySource === 'string' ? l.querySource : null,
      shapeHash: typeof l.shapeHash === 'string' ? l.shapeHash : null,
      base,
      keep,
      tail,
      params: isObj(l.params) ? l.params : {},
      system: shape && Array.isArray(shape.system) ? shape.system : null,
      tools: shape && Array.isArray(shape.tools) ? shape.tools : null,
      messages: [...prefix.slice(0, keep), ...tail.map((h) => index.get(h) ?? null)],
      unresolved,
      cacheControl: Array.isArray(l.cacheControl)
        ? l.cacheControl.filter(isObj).map((c) => ({ path: Array.isArray(c.path) ? (c.path as (string | number)[]) : [], value: c.value }))
        : [],
    };
    byId.set(r.id, r);
    out.push(r);
  });
  return out;
}

/** The request body the api-request stands for (without the billing-header block and the cache breakpoints). */
export function requestBody(r: ClaudeApiRequest): Json {
  return { ...r.params, system: r.system ?? [], tools: r.tools ?? [], messages: r.messages.filter((m): m is ClaudeMessage => m !== null) };
}
