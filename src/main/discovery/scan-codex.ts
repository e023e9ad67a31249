import { KeyCursor, ascii, objectBounds, parseObject, readId, readString, stringIs } from './json-bytes';
import type { LineScanner } from './scan-file';
import type { ScanResult } from './types';
import { awaitsOutput, knownUsageOrder, type UsageOrder } from '../dialects/codex-usage-order';

/*
 * Codex CLI rollouts, fast. Model calls are counted the way the full importer
 * (src/main/importers/codex) infers them, since Codex logs no request:
 * - a call opens at a model output item (`response_item` message of role assistant, reasoning,
 *   function_call, custom_tool_call, local_shell_call, tool_search_call, web_search_call,
 *   image_generation_call) when none is open, or when the open one already saw an input item
 *   (message of another role, *_output, compaction);
 * - it closes at the next `token_count` with new usage (not a repeat of the previous totals, not
 *   Codex's own estimate, not rate limits only), at task/turn start, end or abort, at a rollback
 *   and at a `compacted` line;
 * - new usage with no call open is a call of its own (its output items are not logged), unless a
 *   `compacted` line follows: then it is the summarizer's;
 * - every `compacted` line is one compaction and one summarizer request;
 * - a rollout that writes a call's usage before its output items (src/main/dialects/
 *   codex-usage-order.ts) gives the usage to the call the next output item opens, as the importer does.
 * Only `session_meta`, `token_count`, `turn_context` and `compacted` lines are parsed (they are
 * small, except session_meta's instructions, read once); every other line is classified from the
 * first keys of its `payload` at byte level.
 */

const K = { type: ascii('type'), payload: ascii('payload'), role: ascii('role'), timestamp: ascii('timestamp') };
const V = {
  responseItem: ascii('response_item'),
  eventMsg: ascii('event_msg'),
  sessionMeta: ascii('session_meta'),
  turnContext: ascii('turn_context'),
  compacted: ascii('compacted'),
  message: ascii('message'),
  assistant: ascii('assistant'),
  tokenCount: ascii('token_count'),
};

const OUTPUT = new Set([
  'reasoning',
  'function_call',
  'custom_tool_call',
  'local_shell_call',
  'tool_search_call',
  'web_search_call',
  'image_generation_call',
]);
const INPUT = new Set(['function_call_output', 'custom_tool_call_output', 'tool_search_output', 'compaction', 'compaction_summary']);
const CLOSING = new Set(['task_started', 'turn_started', 'task_complete', 'turn_complete', 'turn_aborted', 'thread_rolled_back']);

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const nat = (x: unknown): number | undefined => (typeof x === 'number' && Number.isSafeInteger(x) && x >= 0 ? x : undefined);

export class CodexScanner implements LineScanner {
  private readonly cur = new KeyCursor();
  private readonly inner = new KeyCursor();
  private callOpen = false;
  private callSawInput = false;
  private pending = false;
  /** The pending usage was written before its call's output items. */
  private ahead = false;
  private usageOrder: UsageOrder | null = null;
  private lastUsage = '';
  private requests = 0;
  private compactions = 0;
  private bad = 0;
  private id: string | null = null;
  private project: string | null = null;
  private title: string | null = null;
  private version: string | null = null;
  private model: string | null = null;
  private startedAt: string | null = null;
  private endedAt: string | null = null;

  line(buf: Buffer, start: number, end: number): void {
    const b = objectBounds(buf, start, end);
    if (!b) {
      if (buf.subarray(start, end).toString('latin1').trim() !== '') this.bad++;
      return;
    }
    const [open, close] = b;
    const c = this.cur.open(buf, open, close + 1);
    let type = '';
    let at: string | undefined;
    let payloadAt = -1;
    while (c.next()) {
      if (c.is(K.payload)) {
        payloadAt = c.vs;
        break;
      }
      const e = c.skip();
      if (e < 0) break;
      if (c.is(K.type)) {
        if (stringIs(buf, c.vs, e, V.responseItem)) type = 'response_item';
        else if (stringIs(buf, c.vs, e, V.eventMsg)) type = 'event_msg';
        else type = readString(buf, c.vs, e) ?? '';
      } else if (c.is(K.timestamp)) at = readId(buf, c.vs, e);
    }
    if (c.bad || payloadAt < 0 || type === '') {
      const v = parseObject(buf, open, close + 1);
      if (!v) {
        this.bad++;
        return;
      }
      this.value(v);
      return;
    }
    if (at !== undefined) {
      this.startedAt ??= at;
      this.endedAt = at;
    }
    if (type === 'response_item' || type === 'event_msg') {
      // The payload's `type` (and a message's `role`): its first keys.
      const p = this.inner.open(buf, payloadAt, close + 1);
      let ptype: string | undefined;
      let role: string | undefined;
      let assistant = false;
      while (p.next()) {
        if (p.nested) {
          if (ptype !== undefined) break;
          if (p.skip() < 0) break;
          continue;
        }
        const e = p.skip();
        if (e < 0) break;
        if (p.is(K.type)) ptype = readString(buf, p.vs, e);
        else if (p.is(K.role)) {
          role = readString(buf, p.vs, e);
          assistant = stringIs(buf, p.vs, e, V.assistant);
        }
        if (ptype !== undefined && (ptype !== 'message' || role !== undefined)) break;
      }
      if (ptype === undefined || (type === 'response_item' && ptype === 'message' && role === undefined)) {
        const v = parseObject(buf, open, close + 1);
        if (v) this.value(v);
        else this.bad++;
        return;
      }
      if (type === 'event_msg') {
        if (ptype === 'token_count') {
          const v = parseObject(buf, open, close + 1);
          if (v && isObj(v.payload)) this.tokenCount(v.payload);
          return;
        }
        if (!this.waits(type, ptype, role)) this.flushPending();
        if (CLOSING.has(ptype)) this.closeCall();
        return;
      }
      if (!this.waits(type, ptype, role)) this.flushPending();
      this.item(ptype, assistant);
      return;
    }
    const v = parseObject(buf, open, close + 1);
    if (v) this.value(v);
    else this.bad++;
  }

  /** A line read whole (session_meta, turn_context, compacted, or one the byte walk did not understand). */
  private value(v: Record<string, unknown>): void {
    const type = typeof v.type === 'string' ? v.type : '';
    const p = isObj(v.payload) ? v.payload : undefined;
    const at = typeof v.timestamp === 'string' ? v.timestamp : undefined;
    if (at !== undefined) {
      this.startedAt ??= at;
      this.endedAt = at;
    }
    if (type === 'compacted') {
      this.closeCall();
      this.pending = false; // the summarizer's own usage
      this.requests++;
      this.compactions++;
      return;
    }
    if (!(p && this.waits(type, typeof p.type === 'string' ? p.type : undefined, typeof p.role === 'string' ? p.role : undefined)))
      this.flushPending();
    if (!p) return;
    switch (type) {
      case 'session_meta':
        if (this.id === null && typeof p.id === 'string') {
          this.id = p.id;
          if (typeof p.cwd === 'string') this.project = p.cwd;
          if (typeof p.cli_version === 'string') {
            this.version = p.cli_version;
            this.usageOrder = knownUsageOrder(p.cli_version);
          }
          if (typeof p.agent_nickname === 'string') this.title = p.agent_nickname;
          if (typeof p.timestamp === 'string') this.startedAt ??= p.timestamp;
        }
        return;
      case 'turn_context':
        if (typeof p.model === 'string') this.model = p.model;
        return;
      case 'response_item':
        this.item(typeof p.type === 'string' ? p.type : '', p.role === 'assistant');
        return;
      case 'event_msg':
        if (p.type === 'token_count') this.tokenCount(p);
        else if (typeof p.type === 'string' && CLOSING.has(p.type)) this.closeCall();
        return;
      default:
    }
  }

  private item(ptype: string, assistant: boolean): void {
    const output = ptype === 'message' ? assistant : OUTPUT.has(ptype);
    const input = ptype === 'message' ? !assistant : INPUT.has(ptype);
    if (output) {
      if (this.callOpen && this.callSawInput) this.closeCall();
      if (this.pending && this.ahead) {
        // Its usage was written first: the report and this item are one call.
        this.pending = false;
        this.ahead = false;
        this.callOpen = true;
        this.callSawInput = false;
        this.requests++;
      } else if (!this.callOpen) {
        this.callOpen = true;
        this.callSawInput = false;
        this.requests++;
      }
    } else if (input && this.callOpen) this.callSawInput = true;
  }

  private tokenCount(p: Record<string, unknown>): void {
    // Like every record but `compacted`, a token_count first settles an earlier report without a call.
    if (!this.ahead) this.flushPending();
    const info = isObj(p.info) ? p.info : undefined;
    const last = info && isObj(info.last_token_usage) ? info.last_token_usage : undefined;
    if (!info || !last) return;
    const u = (o: Record<string, unknown>): string =>
      `${nat(o.input_tokens)}/${nat(o.cached_input_tokens)}/${nat(o.output_tokens)}/${nat(o.reasoning_output_tokens)}/${nat(o.total_tokens)}`;
    const zero = (x: unknown): boolean => (nat(x) ?? 0) === 0;
    if (
      zero(last.input_tokens) &&
      zero(last.cached_input_tokens) &&
      zero(last.output_tokens) &&
      zero(last.reasoning_output_tokens) &&
      (nat(last.total_tokens) ?? 0) > 0
    )
      return;
    const key = u(isObj(info.total_token_usage) ? info.total_token_usage : last);
    if (key === this.lastUsage) return;
    this.lastUsage = key;
    this.usageOrder ??= this.callOpen && !this.callSawInput ? 'after-output' : 'before-output';
    if (this.usageOrder === 'before-output') {
      this.flushPending();
      this.closeCall();
      this.pending = true;
      this.ahead = true;
    } else if (this.callOpen) this.closeCall();
    else this.pending = true;
  }

  /** A usage report written before its output items waits for them across this record. */
  private waits(type: string, ptype: string | undefined, role: string | undefined): boolean {
    return this.pending && this.ahead && awaitsOutput(type, ptype, role);
  }

  private closeCall(): void {
    this.callOpen = false;
    this.callSawInput = false;
  }

  private flushPending(): void {
    if (!this.pending) return;
    this.pending = false;
    this.ahead = false;
    this.requests++;
  }

  result(): ScanResult {
    this.flushPending();
    return {
      id: this.id,
      project: this.project,
      title: this.title,
      startedAt: this.startedAt,
      endedAt: this.endedAt,
      requests: this.requests,
      compactions: this.compactions,
      harnessVersion: this.version,
      model: this.model,
      badLines: this.bad,
      problems: [],
    };
  }
}
