import type { Block } from '../../../shared/model/content';
import type { Usage } from '../../../shared/model/event';
import { type Obj, isObj, nat } from '../dsh/json';
import { jsonTextOf } from '../../../shared/json-depth';

/**
 * Rind's three JSONL records, read the way Rind itself reads them (Azzurroooo/rind @ dfe87c5,
 * `agent/infrastructure/persistence/`): `messages.jsonl` (message_repository.py),
 * `tool_calls.jsonl` (tool_call_repository.py) and `compactions.jsonl` (compaction_repository.py),
 * joined by message_projector.py. Python truthiness and `str()` keys are reproduced where the
 * projector relies on them: a key is `str(value)` of a truthy value, so `0`, `""` and `null` are
 * no key at all.
 */

/** The projector's fallback continuation text (agent/domain/compaction.py). */
export const COMPACT_CONTINUATION_USER_CONTENT =
  'Continue from the compacted conversation state. Use the compact handoff below as the source of prior context.';

/** Python's `bool(v)` for JSON values. */
export function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isObj(v)) return Object.keys(v).length > 0;
  return true;
}

/** Python's `str(v)` for the scalar JSON values Rind uses as ids. */
export function pyStr(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  // Python prints a float id with its ".0"; JSON.parse no longer tells 1.0 from 1 (a known gap).
  if (typeof v === 'number') return String(v);
  // An id or key may be any JSON a line holds, nested as deep as it likes: written without recursion then.
  return v === undefined ? 'undefined' : jsonTextOf(v);
}

/** `str(v)` of a truthy value, else null: how the projector keys records and looks them up. */
export function key(v: unknown): string | null {
  return truthy(v) ? pyStr(v) : null;
}

// ---------------------------------------------------------------------------------------------
// tool_calls.jsonl
// ---------------------------------------------------------------------------------------------

export interface ToolRecord {
  readonly id: string;
  readonly name: string | null;
  /** `raw_args` as stored; null when absent or null (the projector then drops the call). */
  readonly rawArgs: unknown;
  /** The text the model sees: `model_content` when it is a non-empty string, else null. */
  readonly modelContent: string | null;
  readonly ok: boolean | null;
  readonly errorType: string | null;
  readonly tsEnd: string | null;
}

export function readToolRecord(v: Obj): ToolRecord | null {
  const id = key(v.id);
  if (id === null) return null;
  const mc = v.model_content;
  return {
    id,
    name: typeof v.name === 'string' ? v.name : null,
    rawArgs: v.raw_args,
    modelContent: typeof mc === 'string' && mc !== '' ? mc : null,
    ok: typeof v.ok === 'boolean' ? v.ok : null,
    errorType: typeof v.error_type === 'string' ? v.error_type : null,
    tsEnd: typeof v.ts_end === 'string' ? v.ts_end : typeof v.ts_start === 'string' ? v.ts_start : null,
  };
}

// ---------------------------------------------------------------------------------------------
// compactions.jsonl
// ---------------------------------------------------------------------------------------------

export interface CompactionRecord {
  readonly id: string;
  readonly createdAt: string | null;
  readonly strategy: string | null;
  readonly reason: string | null;
  readonly phase: string | null;
  readonly policyVersion: string | null;
  readonly sourceStart: number | null;
  readonly sourceEnd: number | null;
  /** `handoff_message.content` when the record is valid (`_has_valid_handoff`), else null. */
  readonly handoff: string | null;
  /** `continuation_user_message.content` when valid (`_valid_message`), else null (the default text is used). */
  readonly continuation: string | null;
  readonly usage: Usage | undefined;
  readonly fallbackError: { readonly type: string | null; readonly message: string | null; readonly status: string | null } | null;
}

function validMessage(m: unknown, role: string): string | null {
  if (!isObj(m)) return null;
  return m.role === role && typeof m.content === 'string' ? m.content : null;
}

export function readCompactionRecord(v: Obj): CompactionRecord | null {
  const id = key(v.id);
  if (id === null) return null;
  const source = isObj(v.source) ? v.source : {};
  const fe = isObj(v.fallback_error) ? v.fallback_error : null;
  const s = (x: unknown): string | null => (typeof x === 'string' ? x : null);
  return {
    id,
    createdAt: s(v.created_at),
    strategy: s(v.strategy),
    reason: s(v.reason),
    phase: s(v.phase),
    policyVersion: s(v.policy_version),
    sourceStart: nat(source.message_start_index) ?? null,
    sourceEnd: nat(source.message_end_index_exclusive) ?? null,
    handoff: validMessage(v.handoff_message, 'assistant'),
    continuation: validMessage(v.continuation_user_message, 'user'),
    usage: mapUsage(v.usage),
    fallbackError: fe
      ? { type: s(fe.type), message: s(fe.message), status: fe.status === undefined || fe.status === null ? null : String(fe.status) }
      : null,
  };
}

// ---------------------------------------------------------------------------------------------
// what the model sees of a joined record (used by the import and by rehydrate alike)
// ---------------------------------------------------------------------------------------------

/** Where a line of the session lives: the file's index among the session's files, and the line in it. */
export interface LineLoc {
  readonly file: number;
  readonly line: number;
  readonly offset: number;
  readonly length: number;
}

/** The block of a tool item whose record has `model_content`: the text the model sees. */
export function toolResultBlock(callId: string, modelContent: string): Block {
  return { type: 'tool_result', callId, content: [{ type: 'text', text: modelContent }] };
}

/** The text of one half of a valid compaction record's pair, as message_projector.py sends it. */
export function checkpointText(rec: CompactionRecord, part: 'continuation' | 'handoff'): string {
  return part === 'continuation' ? (rec.continuation ?? COMPACT_CONTINUATION_USER_CONTENT) : (rec.handoff ?? '');
}

/** Is `id` the compaction id the import gave this record's pair: the record's id, or `id#n` for its n-th marker? */
export function isCompactionOf(id: string, recordId: string): boolean {
  return id === recordId || (id.startsWith(`${recordId}#`) && /^\d+$/.test(id.slice(recordId.length + 1)));
}

// ---------------------------------------------------------------------------------------------
// usage (agent/application/context/token_usage.py: normalize_sampling_usage)
// ---------------------------------------------------------------------------------------------

/**
 * Rind's normalised usage: `input_tokens` is the prompt as an OpenAI-style provider counts it
 * (`prompt_tokens`, cached tokens included) and `cached_input_tokens` the cached part. Canonical
 * usage counts input without cache reads, so `input = input_tokens − cached_input_tokens` and
 * `context` keeps the whole prompt. An empty dict (a deterministic handoff) is no usage.
 */
export function mapUsage(u: unknown): Usage | undefined {
  if (!isObj(u)) return undefined;
  const input = nat(u.input_tokens);
  const cached = nat(u.cached_input_tokens);
  const output = nat(u.output_tokens);
  const reasoning = nat(u.reasoning_output_tokens);
  if (input === undefined && output === undefined) return undefined;
  const out: Usage = {};
  if (input !== undefined) {
    const c = cached !== undefined && cached <= input ? cached : 0;
    out.input = input - c;
    if (cached !== undefined && cached <= input) out.cacheRead = cached;
    out.context = input;
  }
  if (output !== undefined) out.output = output;
  if (reasoning !== undefined && reasoning > 0) out.reasoning = reasoning;
  return out;
}

// ---------------------------------------------------------------------------------------------
// messages.jsonl
// ---------------------------------------------------------------------------------------------

export const MESSAGE_ROLES: ReadonlySet<string> = new Set(['system', 'user', 'assistant', 'tool']);

export function isCompactBoundary(v: Obj): boolean {
  return isObj(v.meta) && v.meta.kind === 'compact_boundary';
}

/** `meta.tool_calls` when the message has tool calls (`_has_tool_calls_meta`), else null. */
export function toolCallsMeta(v: Obj): unknown[] | null {
  const meta = v.meta;
  if (!isObj(meta) || !truthy(meta.tool_calls)) return null;
  return Array.isArray(meta.tool_calls) ? meta.tool_calls : null;
}

/** Milliseconds of an ISO timestamp, or null. */
export function timeOf(ts: unknown): number | null {
  if (typeof ts !== 'string') return null;
  const t = Date.parse(ts);
  return Number.isFinite(t) ? t : null;
}
