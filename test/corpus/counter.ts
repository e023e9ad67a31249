import { readFileSync } from 'node:fs';

/*
 * An independent count of what a real session log holds, to check the importers against: model
 * requests, compactions and their triggers, and the peak reported context. Written apart from the
 * importers on purpose (nothing from src/main/importers or src/shared/replay): it parses the JSONL
 * itself with the plainest rules a reader of the log would use, so that the two disagree where one
 * of them misreads the log.
 *
 * Claude Code: the conversation is a uuid/parentUuid tree; the branch counted is the one that ends
 * at the newest user or assistant record, walked back to its root (through a compact_boundary's
 * logicalParentUuid, which joins the history before a compaction to the one after it). A request
 * is one distinct assistant message.id on that branch (Claude Code writes one response as several
 * records sharing the id). A "<synthetic>" message is written by the client, not a model: it is a
 * request only when it is an API error (isApiErrorMessage: the request was sent and refused). When
 * a boundary's logicalParentUuid names no record of the file, the history before it is taken to end
 * at the newest user or assistant record written before the boundary. A
 * compaction is a compact_boundary record on the branch, its trigger compactMetadata.trigger.
 * Peak context: the largest input_tokens + cache_creation_input_tokens + cache_read_input_tokens.
 *
 * Codex: a model call leaves one event_msg/token_count with new usage. Not a call: a token_count
 * without info (rate limits only), one that repeats the previous total_token_usage, one whose
 * last_token_usage is all zero but total_tokens (Codex's own estimate of the history). A call with
 * no output item of its own (none logged before its usage where Codex writes usage after output,
 * none after it where it writes usage first) whose token_count is followed, before any
 * response_item, by a `compacted` line is the compaction's summarizer, not an agent call. Where Codex writes usage after a call's output
 * items, output items that no token_count closes before the turn ends (an aborted call, a log cut
 * short) are one more call. A compaction is a `compacted` line; Codex logs no trigger, but a
 * `/compact` runs as a turn of its own with no user message: a compaction in a turn that logs the
 * user's message is automatic, one in a turn without is manual, one outside any turn unknown.
 * Peak context: the largest last_token_usage.input_tokens (OpenAI counts cached tokens inside
 * input_tokens).
 */

export type Client = 'claude-code' | 'codex';

export interface Count {
  client: Client;
  /** Claude Code `version` / Codex `cli_version` of the first record that names one. */
  version: string | null;
  /** Model calls of the agent (Codex: without the compaction summarizer's). */
  requests: number;
  /** Codex: calls of a compaction's summarizer that logged usage. Claude Code: 0 (not in the main log). */
  summarizerRequests: number;
  compactions: number;
  /** Per trigger (Codex: read from the turn the compaction ran in). */
  triggers: { auto: number; manual: number; unknown: number };
  /** Largest reported input incl. cache tokens; null when no request reported usage. */
  peakContext: number | null;
  /** Lines that are not a JSON object (skipped). */
  badLines: number;
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

function parseLines(text: string): { records: Obj[]; bad: number } {
  const records: Obj[] = [];
  let bad = 0;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    try {
      const v: unknown = JSON.parse(line);
      if (isObj(v)) records.push(v);
      else bad++;
    } catch {
      bad++;
    }
  }
  return { records, bad };
}

/** Which client wrote the log: Codex rollouts carry `payload`, Claude Code records `sessionId`/`uuid`. */
export function clientOf(records: readonly Obj[]): Client | null {
  for (const r of records.slice(0, 50)) {
    if (r.type === 'session_meta' || r.type === 'response_item' || r.type === 'event_msg' || r.type === 'turn_context') return 'codex';
    if (typeof r.sessionId === 'string' || typeof r.uuid === 'string') return 'claude-code';
  }
  return null;
}

export function countFile(path: string): Count {
  return countText(readFileSync(path, 'utf8'));
}

export function countText(text: string): Count {
  const { records, bad } = parseLines(text);
  const client = clientOf(records);
  if (client === 'codex') return countCodex(records, bad);
  return countClaude(records, bad);
}

function countClaude(records: readonly Obj[], bad: number): Count {
  const byUuid = new Map<string, Obj>();
  // For each boundary, the newest user or assistant record written before it.
  const before = new Map<Obj, Obj>();
  let newest: Obj | undefined;
  let version: string | null = null;
  for (const r of records) {
    if (version === null && typeof r.version === 'string') version = r.version;
    if (typeof r.uuid !== 'string') continue;
    if (!byUuid.has(r.uuid)) byUuid.set(r.uuid, r);
    if (r.type === 'system' && r.subtype === 'compact_boundary' && newest) before.set(r, newest);
    if (r.type === 'user' || r.type === 'assistant') newest = r;
  }
  const ids = new Set<string>();
  const triggers = { auto: 0, manual: 0, unknown: 0 };
  let compactions = 0;
  let peak: number | null = null;
  const seen = new Set<string>();
  let cur = newest;
  while (cur !== undefined && typeof cur.uuid === 'string' && !seen.has(cur.uuid)) {
    seen.add(cur.uuid);
    if (cur.type === 'system' && cur.subtype === 'compact_boundary') {
      compactions++;
      const t = isObj(cur.compactMetadata) ? cur.compactMetadata.trigger : undefined;
      if (t === 'auto' || t === 'manual') triggers[t]++;
      else triggers.unknown++;
    }
    const m = cur.type === 'assistant' && isObj(cur.message) ? cur.message : undefined;
    if (m && typeof m.id === 'string' && (m.model !== '<synthetic>' || cur.isApiErrorMessage === true)) {
      ids.add(m.id);
      const u = isObj(m.usage) ? m.usage : undefined;
      if (u) {
        const ctx = num(u.input_tokens) + num(u.cache_creation_input_tokens) + num(u.cache_read_input_tokens);
        if (peak === null || ctx > peak) peak = ctx;
      }
    }
    const parent =
      typeof cur.parentUuid === 'string' ? cur.parentUuid : typeof cur.logicalParentUuid === 'string' ? cur.logicalParentUuid : undefined;
    const next = parent === undefined ? undefined : byUuid.get(parent);
    cur = next ?? (cur.subtype === 'compact_boundary' ? before.get(cur) : undefined);
  }
  return {
    client: 'claude-code',
    version,
    requests: ids.size,
    summarizerRequests: 0,
    compactions,
    triggers,
    peakContext: peak,
    badLines: bad,
  };
}

function usageKey(u: unknown): string {
  if (!isObj(u)) return '';
  return ['input_tokens', 'cached_input_tokens', 'output_tokens', 'reasoning_output_tokens', 'total_tokens']
    .map((k) => num(u[k]))
    .join('/');
}

function isEstimate(u: Obj): boolean {
  return (
    num(u.input_tokens) === 0 &&
    num(u.cached_input_tokens) === 0 &&
    num(u.output_tokens) === 0 &&
    num(u.reasoning_output_tokens) === 0 &&
    num(u.total_tokens) > 0
  );
}

/** Output item types of a model call (tool outputs and user/developer messages are not). */
const OUTPUT_TYPES = new Set(['reasoning', 'function_call', 'custom_tool_call', 'local_shell_call', 'web_search_call']);

function isOutput(p: Obj): boolean {
  return OUTPUT_TYPES.has(String(p.type)) || (p.type === 'message' && p.role === 'assistant');
}

function newUsage(p: Obj, lastTotal: string): string | null {
  if (p.type !== 'token_count' || !isObj(p.info)) return null;
  const last = p.info.last_token_usage;
  if (!isObj(last) || isEstimate(last)) return null;
  const key = usageKey(p.info.total_token_usage ?? last);
  return key === lastTotal ? null : key;
}

/**
 * Whether this rollout writes a call's usage before its output items (older Codex): decided by
 * the first turn that has both, from which of the two comes first.
 */
function usageFirst(records: readonly Obj[]): boolean {
  let lastTotal = '';
  for (const r of records) {
    const p = isObj(r.payload) ? r.payload : undefined;
    if (!p) continue;
    if (r.type === 'response_item' && isOutput(p)) return false;
    if (r.type === 'event_msg') {
      const key = newUsage(p, lastTotal);
      if (key !== null) return true;
      if (p.type === 'token_count' && isObj(p.info) && isObj(p.info.total_token_usage)) lastTotal = usageKey(p.info.total_token_usage);
    }
  }
  return false;
}

function countCodex(records: readonly Obj[], bad: number): Count {
  const early = usageFirst(records);
  let version: string | null = null;
  let agent = 0;
  let summarizer = 0;
  let compactions = 0;
  let peak: number | null = null;
  let lastTotal = '';
  const triggers = { auto: 0, manual: 0, unknown: 0 };
  // A call whose token_count has been seen and nothing after it yet says whether it was the summarizer's.
  let pending = false;
  // Output items no token_count has closed yet (logs that write usage after output): a call in flight.
  let open = 0;
  // The current turn: open or not, whether it logged the user's message, its compactions.
  let inTurn = false;
  let userInTurn = false;
  let turnCompactions = 0;
  const endTurn = (): void => {
    // A turn with the user's message compacted on its own (auto); one without is `/compact` (manual).
    if (userInTurn) triggers.auto += turnCompactions;
    else triggers.manual += turnCompactions;
    turnCompactions = 0;
    userInTurn = false;
    inTurn = false;
  };
  const closeOpen = (): void => {
    // Output of a call that no usage report closed (aborted, or the log ends): the call was made.
    if (!early && open > 0) agent++;
    open = 0;
  };
  for (const r of records) {
    const p = isObj(r.payload) ? r.payload : undefined;
    if (r.type === 'session_meta') {
      if (version === null && p && typeof p.cli_version === 'string') version = p.cli_version;
      continue;
    }
    if (r.type === 'compacted') {
      compactions++;
      if (inTurn) turnCompactions++;
      else triggers.unknown++;
      if (pending) summarizer++;
      pending = false;
      continue;
    }
    if (r.type === 'response_item') {
      if (pending) agent++;
      pending = false;
      if (p && isOutput(p)) open++;
      continue;
    }
    if (r.type !== 'event_msg' || !p) continue;
    if (p.type === 'user_message') userInTurn = true;
    if (p.type === 'task_started' || p.type === 'task_complete' || p.type === 'turn_aborted') {
      if (pending) agent++;
      pending = false;
      closeOpen();
      if (inTurn) endTurn();
      inTurn = p.type === 'task_started';
      continue;
    }
    const key = newUsage(p, lastTotal);
    if (key === null) continue;
    lastTotal = key;
    if (pending) agent++;
    // Usage after output closes the call that wrote it; usage with no output before it waits for
    // what follows (its output, in the older order, or a `compacted`: the summarizer's).
    if (!early && open > 0) {
      agent++;
      pending = false;
    } else pending = true;
    open = 0;
    const last = (p.info as Obj).last_token_usage as Obj;
    const ctx = num(last.input_tokens);
    if (peak === null || ctx > peak) peak = ctx;
  }
  if (pending) agent++;
  closeOpen();
  if (inTurn) endTurn();
  return {
    client: 'codex',
    version,
    requests: agent,
    summarizerRequests: summarizer,
    compactions,
    triggers,
    peakContext: peak,
    badLines: bad,
  };
}
