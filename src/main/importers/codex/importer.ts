import type { Block } from '../../../shared/model/content';
import type { Severity } from '../../../shared/model/diagnostic';
import type { EventBody, EventOf, Finish, Route, Usage } from '../../../shared/model/event';
import type { Derivation, Item, Role } from '../../../shared/model/item';
import type { JsonLine } from '../../reader/types';
import type { FileImport, ImportSink } from '../types';
import { type MappedItem, isEstimate, mapResponseItem, mapUsage, mappedItem, readTokenUsage, usageKey } from './blocks';
import { selectUserMessages, sentInstructions, summaryText } from './compaction';
import { type Obj, isObj, nat, oneLine, pos, str } from './json';
import { EVENT_MSG_TYPES, NEWEST_KNOWN_CLI, SUMMARY_PREFIX_HEAD } from './known';
import { type RolloutRecord, classify, payloadType } from './records';

/** Surface ops without fields, shared by every item that uses them (events are never mutated). */
const APPEND: EventOf<'item'>['op'] = Object.freeze({ op: 'append' });
const LOG: EventOf<'item'>['op'] = Object.freeze({ op: 'log' });

/** Seqs cited by one aggregated diagnostic, at most. */
const MAX_CITED = 20;
/** Messages held back while deciding whether they are a re-injected initial context, at most. */
const MAX_BLOCK = 256;
/** Lines held back while deciding whether a reply or a usage record is a compaction's summarizer call, at most. */
const MAX_HOLD = 64;

interface HeldLine {
  readonly l: JsonLine;
  readonly rec: RolloutRecord;
}

/**
 * Lines held back until the log says whose model call they are (Codex 0.171+):
 * - `reply`: an assistant message that starts a model call, and the usage lines after it. A
 *   `compacted` next whose summary is its text makes it the local summarizer's reply.
 * - `failed`: a `token_usage_record` at the very start of a turn (before the turn's user message,
 *   where only a pre-turn compaction calls the model), and the input and bookkeeping lines after
 *   it. A `task_complete` with an `error` next makes it a failed compaction's summarizer call.
 * Anything else releases the lines, which are then read as usual.
 */
interface Hold {
  readonly kind: 'reply' | 'failed';
  readonly lines: HeldLine[];
}

/** The summarizer's logged reply, taken from a `reply` hold by the `compacted` line that follows it. */
interface SummarizerReply {
  readonly line: JsonLine;
  readonly payload: Obj;
  /** Its `token_usage_record` (per response, exact), when one followed it. */
  readonly usage: { readonly from: JsonLine; readonly usage: Usage | undefined } | undefined;
}

interface ItemInfo {
  readonly id: string;
  readonly seq: number;
  readonly role: Role;
  /** The text of a user turn (not context, not a summary), for rollbacks and legacy compactions. */
  readonly userText: string | undefined;
  /** Shown as `meta`: context the harness injected. */
  readonly context: boolean;
  /** The mapped item, kept only for initial-context messages (a legacy compaction copies them). */
  readonly mapped: MappedItem | undefined;
}

interface Call {
  readonly id: string;
  readonly line: number;
  /** An input (tool output, message) was logged after the call's output items. */
  sawInput: boolean;
}

interface PendingUsage {
  readonly from: JsonLine;
  readonly usage: Usage | undefined;
  readonly at: string | undefined;
  /** The context size before this report (a summarizer's report must not count as the size it compacted). */
  readonly before: number | undefined;
}

interface Estimate {
  readonly total: number;
  readonly line: number;
}

interface Closing {
  readonly id: string;
  readonly from: JsonLine;
  readonly estimate: Estimate | null;
}

interface Entry {
  /** Index in the replacement history (the item id's suffix). */
  readonly index: number;
  readonly mapped: MappedItem;
  /** The original this entry copies, when known without matching (legacy rebuild); null: none. */
  readonly orig?: ItemInfo | null;
  /** Origin to give the copy. */
  readonly origin?: string;
}

interface PlaceOpts {
  op: EventOf<'item'>['op'];
  derivation?: Derivation;
  sources?: number[];
  origin?: string;
  meta?: boolean;
  from?: JsonLine;
}

interface UnknownCount {
  count: number;
  readonly line: number;
  readonly seqs: number[];
}

/**
 * One rollout file → canonical events. See `index.ts` for the mapping rules; this class keeps the
 * cross-line state: the live history (item ids in surface order), the open model call, the open
 * turn, held-back context messages, and what compactions need (content fingerprints, the last
 * reported context size, Codex's own estimates).
 */
export class CodexFileImport implements FileImport {
  private cur: JsonLine = { value: {}, line: 0, offset: 0, length: 0 };
  private at: string | undefined;
  private lines = 0;

  private sessionEmitted = false;
  private sessionId: string | undefined;
  private forkParent: string | undefined;

  /** Live history: item ids in surface order, and the seq of each. */
  private live: string[] = [];
  private liveSeqs: number[] = [];
  /** Messages (and context items): what rollbacks, matching and legacy rebuilds need to know. */
  private readonly infos = new Map<string, ItemInfo>();
  /** Content fingerprint → ids of messages with that content, oldest first. */
  private readonly byKey = new Map<string, string[]>();

  private call: Call | null = null;
  private pending: PendingUsage | null = null;
  private requestCount = 0;
  private lastUsageKey = '';
  /** `last_token_usage.total_tokens` of the latest model call: the context size Codex compacts on. */
  private lastContext: number | undefined;
  private estimate: Estimate | null = null;
  private closing: Closing | null = null;
  /** A post-compaction estimate that was not used; reported with the next provider count. */
  private estimateNote: { compactionLine: number; estimate: Estimate } | null = null;
  private window: number | undefined;
  private route: Route = {};

  private turnOpen = false;
  private turnNo = 0;
  private turnItems = 0;
  private turnRequests = 0;
  private turnsEnded = 0;
  private compactedSinceTurnEnd = false;
  private resumeMarked = false;

  /** Messages logged outside a turn, held until the next record says what they are. */
  private block: JsonLine[] = [];
  /** The messages being placed belong to a context block (recorded right before a turn starts). */
  private contextBlock = false;
  private contextIds: ItemInfo[] = [];
  /** The latest initial-context block: what a legacy compaction re-injects. */
  private initialContext: ItemInfo[] = [];
  private initialContextLine: number | undefined;

  private readonly unknown = new Map<string, UnknownCount>();
  private readonly scratch: string[] = [];
  private contextSummary = { key: '', text: '' };
  private withoutOutput: { count: number; line: number } | null = null;
  private hold: Hold | null = null;
  private summarizer: SummarizerReply | null = null;
  /** Usage reports being read belong to a compaction's summarizer call already accounted for. */
  private absorbing = false;

  constructor(
    private readonly sink: ImportSink,
    private readonly path: string,
  ) {}

  // -------------------------------------------------------------------------------------------
  // Plumbing.

  private emit(event: EventBody, from: JsonLine = this.cur, at: string | undefined = this.at): number {
    if (at !== undefined && event.at === undefined) event.at = at;
    return this.sink.emit(event, from);
  }

  private report(rule: string, severity: Severity, message: string, seqs: number[] = [], line: number | null = this.cur.line): void {
    this.sink.diagnostic({ rule, severity, message, seqs, line });
  }

  private record(type: string, summary?: string): number {
    const r: EventOf<'record'> = { kind: 'record', type };
    if (summary !== undefined) r.summary = summary;
    return this.emit(r);
  }

  /** A record with fields missing or of the wrong type: reported, and kept as a record. */
  private bad(type: string, problem: string): void {
    this.report('CODEX_BAD_RECORD', 'error', `Line ${this.cur.line}: ${problem}. It is kept as a record and left out of the model view.`);
    this.record(type, `malformed: ${problem}`);
  }

  private unknownEvent(type: string): void {
    const seq = this.emit({ kind: 'unknown', type });
    this.countUnknown(type, seq);
  }

  private countUnknown(type: string, seq: number | null): void {
    let u = this.unknown.get(type);
    if (!u) {
      u = { count: 0, line: this.cur.line, seqs: [] };
      this.unknown.set(type, u);
    }
    u.count++;
    if (seq !== null && u.seqs.length < MAX_CITED) u.seqs.push(seq);
  }

  private notes(notes: readonly string[]): void {
    if (notes.length === 0) return;
    this.report('CODEX_BAD_CONTENT', 'warning', `Line ${this.cur.line}: ${notes[0] ?? ''}${notes.length > 1 ? ` (and ${notes.length - 1} more)` : ''}.`);
  }

  // -------------------------------------------------------------------------------------------
  // Lines.

  line(l: JsonLine): void {
    this.lines++;
    const rec = classify(l.value, this.lines === 1);
    if (this.hold && this.holdLine(l, rec)) return;
    if (!this.turnOpen && rec.type === 'response_item' && payloadType(rec) === 'message') {
      this.block.push(l);
      if (this.block.length >= MAX_BLOCK) this.flushBlock(null);
      return;
    }
    if (this.block.length > 0) this.flushBlock(rec);
    if (this.startHold(l, rec)) return;
    this.process(l, rec);
  }

  /** Start holding lines back (see `Hold`), or not. */
  private startHold(l: JsonLine, rec: RolloutRecord): boolean {
    if (!this.turnOpen || this.pending) return false;
    const p = rec.payload;
    if (rec.type === 'response_item' && isObj(p) && p.type === 'message' && p.role === 'assistant' && (!this.call || this.call.sawInput)) {
      this.hold = { kind: 'reply', lines: [{ l, rec }] };
      return true;
    }
    if (rec.type === 'token_usage_record' && isObj(p) && !this.call && this.turnItems === 0 && this.turnRequests === 0) {
      this.hold = { kind: 'failed', lines: [{ l, rec }] };
      return true;
    }
    return false;
  }

  /** The next line while lines are held: held too (true), or it decides what they are (false: read it as usual). */
  private holdLine(l: JsonLine, rec: RolloutRecord): boolean {
    const h = this.hold as Hold;
    const pt = payloadType(rec);
    const usageLine = rec.type === 'token_usage_record' || (rec.type === 'event_msg' && pt === 'token_count');
    if (h.kind === 'reply') {
      if (usageLine && h.lines.length < MAX_HOLD) {
        h.lines.push({ l, rec });
        return true;
      }
      this.hold = null;
      const first = h.lines[0] as HeldLine;
      if (rec.type === 'compacted' && isObj(rec.payload) && isObj(first.rec.payload) && isSummaryReply(first.l, first.rec.payload, rec.payload)) {
        const usageRec = h.lines.find((x) => x.rec.type === 'token_usage_record');
        const u = usageRec && isObj(usageRec.rec.payload) ? readTokenUsage(usageRec.rec.payload.usage) : undefined;
        this.summarizer = { line: first.l, payload: first.rec.payload, usage: usageRec ? { from: usageRec.l, usage: u ? mapUsage(u) : undefined } : undefined };
        this.closeCall();
        for (const x of h.lines.slice(1)) this.process(x.l, x.rec);
        return false;
      }
      this.release(h);
      return false;
    }
    if (rec.type === 'event_msg' && (pt === 'task_complete' || pt === 'turn_complete') && isObj(rec.payload) && isObj(rec.payload.error)) {
      this.hold = null;
      this.failedCompaction(h, l, rec.payload.error);
      return false;
    }
    const p = rec.payload;
    const waits = (rec.type === 'event_msg' && (pt === 'token_count' || pt === 'item_completed' || pt === 'user_message' || pt === 'thread_settings_applied'))
      || rec.type === 'world_state' || rec.type === 'turn_context'
      || (rec.type === 'response_item' && isObj(p) && p.type === 'message' && p.role === 'user');
    if (waits && h.lines.length < MAX_HOLD) {
      h.lines.push({ l, rec });
      return true;
    }
    this.hold = null;
    this.release(h);
    return false;
  }

  /** Held lines that are not a summarizer's: read them as usual. */
  private release(h: Hold): void {
    for (const x of h.lines) {
      if (!this.turnOpen && x.rec.type === 'response_item' && payloadType(x.rec) === 'message') this.block.push(x.l);
      else this.process(x.l, x.rec);
    }
  }

  /**
   * A compaction that failed (Codex 0.171+): a summarizer call logged only by its
   * `token_usage_record`, before the turn's user message, and a turn that ends with an error and
   * no output. Codex fails the turn when the summary is cut at the output limit, and writes no
   * `compacted`; the history stays as it was.
   */
  private failedCompaction(h: Hold, endLine: JsonLine, err: Obj): void {
    const first = h.lines[0] as HeldLine;
    this.cur = first.l;
    this.at = first.rec.timestamp;
    this.flushPending();
    this.endCompaction(null);
    this.closeCall();
    const id = `cmp:L${first.l.line}`;
    // Copies: the live list grows as the turn goes on, and events are never mutated.
    const source = [...this.live];
    const start: EventOf<'compaction/start'> = { kind: 'compaction/start', id, trigger: 'unknown', strategy: 'local', source };
    if (this.lastContext !== undefined) start.preTokens = this.lastContext;
    if (this.window !== undefined) start.policy = { window: this.window };
    this.emit(start);
    const reqId = `req:${++this.requestCount}`;
    this.emit({ kind: 'request', id: reqId, purpose: 'compaction', compactionId: id, input: { items: [...source], instruction: null } });
    const u = isObj(first.rec.payload) ? readTokenUsage(first.rec.payload.usage) : undefined;
    const usage = u ? mapUsage(u) : undefined;
    const message = str(err.message) ?? 'the turn failed';
    const code = str(err.codex_error_info);
    const error: { code?: string; message: string } = { message };
    if (code !== undefined) error.code = code;
    const finish: Finish | undefined = /max_output_tokens/.test(message) ? { raw: 'max_output_tokens', reason: 'length' } : undefined;
    const response: EventOf<'response'> = { kind: 'response', request: reqId, error };
    if (finish) response.finish = finish;
    if (usage) response.usage = usage;
    this.emit(response);
    const endAt = str(endLine.value.timestamp);
    const summaryError: EventOf<'compaction/summary-error'> = { kind: 'compaction/summary-error', id, error };
    if (finish) summaryError.finish = finish;
    if (usage) summaryError.usage = usage;
    this.emit(summaryError, endLine, endAt);
    this.emit({ kind: 'compaction/end', id, outcome: 'failed', error }, endLine, endAt);
    this.record('token_usage_record', `usage of the failed compaction's summarizer call${str(isObj(first.rec.payload) ? first.rec.payload.response_id : undefined) !== undefined ? ` (${String((first.rec.payload as Obj).response_id)})` : ''}`);
    this.absorbing = true;
    for (const x of h.lines.slice(1)) this.process(x.l, x.rec);
    this.absorbing = false;
  }

  private process(l: JsonLine, rec: RolloutRecord): void {
    this.cur = l;
    this.at = rec.timestamp;
    if (rec.type !== 'session_meta') this.ensureSession();
    if (this.pending && rec.type !== 'compacted') this.flushPending();
    if (this.closing && !(rec.type === 'event_msg' && isObj(rec.payload) && rec.payload.type === 'token_count' && this.isEstimateCount(rec.payload))) {
      this.endCompaction(null);
    }
    const p = rec.payload;
    switch (rec.type) {
      case 'session_meta':
        return this.sessionMeta(p);
      case 'response_item':
        return this.responseItem(p);
      case 'turn_context':
        return this.turnContext(p);
      case 'event_msg':
        return this.eventMsg(p);
      case 'compacted':
        return this.compacted(p);
      case 'state':
        this.record('state');
        return;
      case 'token_usage_record': {
        const rid = isObj(p) ? str(p.response_id) : undefined;
        this.record('token_usage_record', rid !== undefined ? `usage of ${rid}` : undefined);
        return;
      }
      case '':
        this.report('CODEX_BAD_RECORD', 'error', `Line ${l.line}: a line with no string "type"; it is kept as an unknown record.`);
        this.emit({ kind: 'unknown', type: '(no type)' });
        return;
      default:
        this.unknownEvent(rec.type);
    }
  }

  /**
   * Messages logged outside a turn. Right before `task_started`, Codex records the turn's context:
   * the full initial context (permissions, developer instructions, AGENTS.md, environment) the
   * first time and whenever its baseline was lost — after a resume, or after a compaction that
   * does not re-inject it — or only the settings that changed. A full block (two or more
   * developer messages, or a developer and a user message) after an ended turn, with no
   * compaction since, is a resume: a new process took the session up again in the same file.
   */
  private flushBlock(next: RolloutRecord | null): void {
    const lines = this.block;
    this.block = [];
    const beforeTurn = next !== null && next.type === 'event_msg' && (payloadType(next) === 'task_started' || payloadType(next) === 'turn_started');
    let developer = 0;
    let user = 0;
    for (const l of lines) {
      const p = isObj(l.value.payload) ? l.value.payload : l.value;
      if (p.role === 'developer') developer++;
      else if (p.role === 'user') user++;
    }
    const first = lines[0];
    if (first && beforeTurn && this.turnsEnded > 0 && !this.compactedSinceTurnEnd && !this.resumeMarked && (developer >= 2 || (developer >= 1 && user >= 1))) {
      this.cur = first;
      this.at = str(first.value.timestamp);
      this.ensureSession();
      this.flushPending();
      this.endCompaction(null);
      this.emit({ kind: 'lifecycle', boundary: 'resume' });
      this.resumeMarked = true;
    }
    this.contextBlock = beforeTurn;
    this.contextIds = [];
    for (const l of lines) this.process(l, classify(l.value, false));
    if (beforeTurn && this.contextIds.length > 0) {
      this.initialContext = this.contextIds;
      this.initialContextLine = first?.line;
    }
    this.contextBlock = false;
    this.contextIds = [];
  }

  /** A file whose first record is not `session_meta` still gets a session, named after the file. */
  private ensureSession(): void {
    if (this.sessionEmitted) return;
    this.sessionEmitted = true;
    const m = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i.exec(this.path);
    const id = m?.[1] ?? this.path.replace(/^.*[\\/]/, '');
    this.sessionId = id;
    this.report('CODEX_NO_SESSION_META', 'warning', `Line ${this.cur.line}: the rollout does not start with a session_meta record; the session is named after the file (${id}), and its system prompt and provider are unknown.`);
    this.emit({ kind: 'session', id, harness: 'codex' });
  }

  // -------------------------------------------------------------------------------------------
  // session_meta.

  private sessionMeta(p: unknown): void {
    if (!isObj(p)) {
      this.ensureSession();
      this.bad('session_meta', 'session_meta has no payload object');
      return;
    }
    const id = str(p.id);
    if (this.sessionEmitted) {
      if (id !== undefined && id === this.sessionId) {
        // The same session written again: a new process appended to it.
        if (!this.resumeMarked && this.liveSeqs.length > 0) {
          this.emit({ kind: 'lifecycle', boundary: 'resume' });
          this.resumeMarked = true;
        }
        this.record('session_meta', 'session_meta repeated: the session was resumed');
      } else if (this.forkParent !== undefined) {
        this.record('session_meta', `session_meta of ${id ?? '?'}, copied with the forked history`);
      } else {
        this.report('CODEX_SECOND_SESSION_META', 'warning', `Line ${this.cur.line}: a second session_meta (id ${id ?? '?'}) in a rollout of session ${this.sessionId ?? '?'}; it is kept as a record and the first one stands.`);
        this.record('session_meta', `session_meta of ${id ?? '?'}`);
      }
      return;
    }
    this.sessionEmitted = true;
    if (id === undefined) this.report('CODEX_BAD_RECORD', 'error', `Line ${this.cur.line}: session_meta has no string "id".`);
    this.sessionId = id ?? '';
    const session: EventOf<'session'> = { kind: 'session', id: this.sessionId, harness: 'codex' };
    const version = str(p.cli_version);
    if (version !== undefined) {
      session.harnessVersion = version;
      if (newerThan(version, NEWEST_KNOWN_CLI)) {
        this.report('CODEX_VERSION', 'warning', `Line ${this.cur.line}: cli_version ${version} is newer than ${NEWEST_KNOWN_CLI}, the newest Codex this importer was checked against. Records it does not know are kept and counted (UNKNOWN_RECORDS); check the model view against the rollout.`);
      }
    }
    const cwd = str(p.cwd);
    if (cwd !== undefined) session.cwd = cwd;
    const nick = str(p.agent_nickname);
    if (nick !== undefined) {
      const role = str(p.agent_role);
      session.title = role !== undefined ? `${nick} (${role})` : nick;
    }
    const forked = str(p.forked_from_id);
    const source = isObj(p.source) ? p.source : undefined;
    const subagent = source && isObj(source.subagent) ? source.subagent : undefined;
    const spawn = subagent && isObj(subagent.thread_spawn) ? subagent.thread_spawn : undefined;
    const spawnParent = spawn ? str(spawn.parent_thread_id) : undefined;
    if (forked !== undefined || spawnParent !== undefined) {
      const parent = (spawnParent ?? forked) as string;
      session.parent = { session: parent, origin: spawnParent !== undefined ? 'subagent' : 'fork' };
      this.forkParent = parent;
    }
    const metaAt = str(p.timestamp);
    this.emit(session, this.cur, this.at ?? metaAt);

    // The instructions sent with every request: `base_instructions.text`, or `instructions` in
    // older rollouts. Without either, Codex used the model's built-in prompt, which is not logged.
    const header: EventOf<'header'> = { kind: 'header', reason: 'session_meta', tools: null };
    const instructions = sentInstructions(p);
    header.system = instructions !== undefined ? [{ type: 'text', text: instructions }] : null;
    const provider = str(p.model_provider);
    if (provider !== undefined) {
      header.route = { provider };
      this.route = { ...this.route, provider };
    }
    this.emit(header);
  }

  // -------------------------------------------------------------------------------------------
  // response_item.

  private responseItem(p: unknown): void {
    if (!isObj(p)) {
      this.bad('response_item', 'response_item has no payload object');
      return;
    }
    const id = `L${this.cur.line}`;
    // One array for every line's notes: most lines have none, and nothing is allocated for them.
    const notes = this.scratch;
    notes.length = 0;
    const m = mapResponseItem(p, id, notes);
    if (!m.ok) {
      if (m.unknownType !== undefined) this.unknownEvent(`response_item/${m.unknownType}`);
      else this.bad(`response_item/${str(p.type) ?? '?'}`, m.problem);
      return;
    }
    this.notes(notes);
    if (m.item.flow === 'output') {
      if (this.call?.sawInput) this.closeCall();
      if (!this.call) this.openCall();
    } else if (m.item.flow === 'input' && this.call) {
      this.call.sawInput = true;
    }
    const info = this.place(id, m.item, { op: m.item.flow === 'log' ? LOG : APPEND });
    if (info && this.contextBlock) this.contextIds.push(info);
  }

  /** Emit an item event and track it in the live history. */
  private place(id: string, m: MappedItem, opts: PlaceOpts): ItemInfo | undefined {
    const item: Item = { id, role: m.role, blocks: m.blocks };
    const context = opts.meta ?? (m.contextual || (this.contextBlock && m.role === 'user'));
    if (context) item.meta = true;
    const origin = opts.origin ?? (context && m.origin === undefined ? 'context' : m.origin);
    if (origin !== undefined) item.origin = origin;
    if (opts.derivation) item.derivation = opts.derivation;
    const event: EventOf<'item'> = { kind: 'item', item, op: opts.op };
    if (opts.sources) event.sources = opts.sources;
    const seq = this.emit(event, opts.from);
    if (opts.op.op !== 'log') {
      this.live.push(id);
      this.liveSeqs.push(seq);
    }
    if (this.turnOpen) this.turnItems++;
    if (m.key === undefined && !this.contextBlock) return undefined;
    const info: ItemInfo = {
      id, seq, role: m.role, userText: context ? undefined : m.userText, context, mapped: this.contextBlock ? m : undefined,
    };
    this.infos.set(id, info);
    if (m.key !== undefined) {
      const ids = this.byKey.get(m.key);
      if (ids) ids.push(id);
      else this.byKey.set(m.key, [id]);
    }
    return info;
  }

  // -------------------------------------------------------------------------------------------
  // Model calls.
  //
  // Codex logs no request: each sampling round's output items (reasoning, messages, calls) are
  // followed by a `token_count` whose `last_token_usage` is that call's usage; tool outputs and
  // the next turn's input come after. A call opens at its first output item (the request is
  // emitted right before it, so the view at the request is the history before the call) and
  // closes at the next token_count that reports new usage; an output item after inputs with no
  // usage report in between starts a new call (the old one gets a response without usage).

  private openCall(): void {
    const id = `req:${++this.requestCount}`;
    this.emit({ kind: 'request', id, purpose: 'agent' });
    this.call = { id, line: this.cur.line, sawInput: false };
    this.turnRequests++;
  }

  private closeCall(finish?: Finish): void {
    const c = this.call;
    if (!c) return;
    this.call = null;
    const response: EventOf<'response'> = { kind: 'response', request: c.id };
    if (finish) response.finish = finish;
    this.emit(response);
  }

  /** A usage report for a call whose output items are not in the log: request and response both from its line. */
  private flushPending(): void {
    const p = this.pending;
    if (!p) return;
    this.pending = null;
    const id = `req:${++this.requestCount}`;
    this.emit({ kind: 'request', id, purpose: 'agent' }, p.from, p.at);
    const response: EventOf<'response'> = { kind: 'response', request: id };
    if (p.usage) response.usage = p.usage;
    this.emit(response, p.from, p.at);
    this.turnRequests++;
    if (this.withoutOutput) this.withoutOutput.count++;
    else this.withoutOutput = { count: 1, line: p.from.line };
  }

  private isEstimateCount(p: Obj): boolean {
    const info = isObj(p.info) ? p.info : undefined;
    const last = info ? readTokenUsage(info.last_token_usage) : undefined;
    return last !== undefined && isEstimate(last);
  }

  private tokenCount(p: Obj): void {
    const info = isObj(p.info) ? p.info : undefined;
    if (!info) {
      this.record('event_msg/token_count', 'rate limits only, no usage');
      return;
    }
    const last = readTokenUsage(info.last_token_usage);
    const total = readTokenUsage(info.total_token_usage);
    const window = pos(info.model_context_window);
    if (!last) {
      this.record('event_msg/token_count', 'no last_token_usage');
      this.setWindow(window);
      return;
    }
    if (isEstimate(last)) {
      const total0 = last.total ?? 0;
      this.record('event_msg/token_count', `Codex's own estimate of the history: ${total0} tokens (not a provider count)`);
      this.estimate = { total: total0, line: this.cur.line };
      if (this.closing) this.endCompaction(this.estimate);
      this.setWindow(window);
      return;
    }
    const key = total ? usageKey(total) : usageKey(last);
    if (key === this.lastUsageKey) {
      this.record('event_msg/token_count', 'the previous usage report again (no new model call)');
      this.setWindow(window);
      return;
    }
    this.lastUsageKey = key;
    if (this.absorbing) {
      this.record('event_msg/token_count', "usage of the compaction's summarizer call (shown on its request)");
      this.setWindow(window);
      return;
    }
    const before = this.lastContext;
    this.lastContext = last.total ?? (last.input !== undefined ? last.input + (last.output ?? 0) : undefined);
    this.estimate = null;
    const usage = mapUsage(last);
    this.reportEstimate(last.input);
    if (this.call) {
      const c = this.call;
      this.call = null;
      const response: EventOf<'response'> = { kind: 'response', request: c.id };
      if (usage) response.usage = usage;
      this.emit(response);
    } else {
      this.pending = { from: this.cur, usage, at: this.at, before };
    }
    this.setWindow(window);
  }

  /** Explain a post-compaction estimate that was not used, with the provider's next count when there is one. */
  private reportEstimate(nextInput: number | undefined | null): void {
    const note = this.estimateNote;
    if (!note) return;
    this.estimateNote = null;
    const next = nextInput === null
      ? ' No model call follows it in the log.'
      : ` The first provider count after it (line ${this.cur.line}) is ${nextInput ?? '?'} input tokens.`;
    this.report('CODEX_TOKEN_ESTIMATE', 'info',
      `Line ${note.estimate.line}: after the compaction at line ${note.compactionLine}, Codex's own estimate of the history is ${note.estimate.total} tokens, more than the model window (${this.window ?? '?'}); it is not used as the compaction's post-compaction size.${next}`,
      [], note.estimate.line);
  }

  private setWindow(window: number | undefined): void {
    if (window === undefined || window === this.window) return;
    this.window = window;
    this.emit({ kind: 'header', route: { window } });
  }

  // -------------------------------------------------------------------------------------------
  // turn_context, event_msg.

  private turnContext(p: unknown): void {
    if (!isObj(p)) {
      this.bad('turn_context', 'turn_context has no payload object');
      return;
    }
    const model = str(p.model);
    const effort = str(p.effort);
    const change: Route = {};
    if (model !== undefined && model !== this.route.model) change.model = model;
    if (effort !== undefined && effort !== this.route.reasoning) change.reasoning = effort;
    if (Object.keys(change).length > 0) {
      this.route = { ...this.route, ...change };
      this.emit({ kind: 'header', route: change, reason: 'turn_context' });
      return;
    }
    // Codex writes one per sampling round, nearly always the same: one summary string for all.
    const key = `${model ?? ''}\u0000${effort ?? ''}`;
    if (key !== this.contextSummary.key) this.contextSummary = { key, text: [model, effort].filter((x) => x !== undefined).join(', ') };
    this.record('turn_context', this.contextSummary.text || undefined);
  }

  private eventMsg(p: unknown): void {
    const t = isObj(p) ? str(p.type) : undefined;
    if (!isObj(p) || t === undefined) {
      this.bad('event_msg', 'event_msg has no payload object with a string "type"');
      return;
    }
    switch (t) {
      case 'token_count':
        return this.tokenCount(p);
      case 'task_started':
      case 'turn_started':
        this.closeCall();
        this.turnOpen = true;
        this.turnNo++;
        this.turnItems = 0;
        this.turnRequests = 0;
        this.emit({ kind: 'lifecycle', boundary: 'turn-start', turn: this.turnNo });
        this.setWindow(pos(p.model_context_window));
        return;
      case 'task_complete':
      case 'turn_complete':
        this.closeCall();
        this.endTurn();
        return;
      case 'turn_aborted': {
        this.closeCall({ raw: 'turn_aborted', reason: 'cancelled' });
        const reason = str(p.reason);
        this.record('event_msg/turn_aborted', reason !== undefined ? `turn aborted: ${reason}` : 'turn aborted');
        this.endTurn();
        return;
      }
      case 'thread_rolled_back':
        return this.rollback(p);
      case 'user_message':
      case 'agent_message': {
        const m = str(p.message);
        this.record(`event_msg/${t}`, m !== undefined ? oneLine(m) : undefined);
        return;
      }
      case 'agent_reasoning': {
        const m = str(p.text);
        this.record(`event_msg/${t}`, m !== undefined ? oneLine(m) : undefined);
        return;
      }
      default:
        if (EVENT_MSG_TYPES.has(t)) this.record(`event_msg/${t}`);
        else this.unknownEvent(`event_msg/${t}`);
    }
  }

  private endTurn(): void {
    this.emit({ kind: 'lifecycle', boundary: 'turn-end', turn: this.turnNo });
    this.turnOpen = false;
    this.turnsEnded++;
    this.compactedSinceTurnEnd = false;
    this.resumeMarked = false;
  }

  /**
   * `thread_rolled_back {num_turns}`: Codex drops the last `num_turns` user turns from the history
   * (`drop_last_n_user_turns`): everything from the n-th last user message on; items before the
   * first user message stay.
   */
  private rollback(p: Obj): void {
    this.closeCall();
    const n = nat(p.num_turns);
    const positions: number[] = [];
    this.live.forEach((id, i) => {
      if (this.infos.get(id)?.userText !== undefined) positions.push(i);
    });
    const firstUser = positions[0];
    if (n === undefined || n === 0 || firstUser === undefined) {
      this.record('event_msg/thread_rolled_back', n === undefined ? 'malformed: no "num_turns"' : `rolled back ${n} turns: nothing to drop`);
      return;
    }
    const cut = n >= positions.length ? firstUser : (positions[positions.length - n] as number);
    const removed = this.live.slice(cut);
    this.live = this.live.slice(0, cut);
    this.liveSeqs = this.liveSeqs.slice(0, cut);
    this.record('event_msg/thread_rolled_back', `rolled back ${n} user turn${n === 1 ? '' : 's'}: ${removed.length} items leave the history`);
    if (removed.length > 0) this.emit({ kind: 'drop', items: removed, reason: 'other' });
  }

  // -------------------------------------------------------------------------------------------
  // compacted.

  private compacted(p: unknown): void {
    if (!isObj(p)) {
      this.bad('compacted', 'compacted has no payload object');
      return;
    }
    this.closeCall();
    const line = this.cur.line;
    const id = `cmp:L${line}`;
    const message = str(p.message) ?? '';
    const notes: string[] = [];
    let entries: Entry[] | undefined;
    if (Array.isArray(p.replacement_history)) {
      entries = [];
      p.replacement_history.forEach((raw, index) => {
        const m = isObj(raw) ? mapResponseItem(raw, `L${line}.r${index}`, notes) : ({ ok: false, problem: 'a replacement_history entry is not an object' } as const);
        if (m.ok) (entries as Entry[]).push({ index, mapped: m.item });
        else {
          notes.push(`replacement_history[${index}]: ${m.problem} is left out of the new history`);
          if (!m.ok && 'unknownType' in m && m.unknownType !== undefined) this.countUnknown(`response_item/${m.unknownType}`, null);
        }
      });
    } else if (p.replacement_history !== undefined && p.replacement_history !== null) {
      this.report('CODEX_BAD_RECORD', 'error', `Line ${line}: compacted.replacement_history is not an array; the new history is rebuilt by Codex's rule for rollouts without one.`);
    }
    this.notes(notes);
    const remote = entries?.some((e) => e.mapped.compaction) ?? false;
    const strategy = entries === undefined ? 'local (rebuilt: no replacement_history)' : remote ? 'remote' : 'local';
    const old = this.live;
    const oldSet = new Set(old);
    const oldSeqs = this.liveSeqs;

    // The context Codex compacted: the last agent call's prompt + output (a local summarizer's own
    // report, in the token_count right before, does not count).
    const usageFrom = this.pending;
    this.pending = null;
    const reply = this.summarizer;
    this.summarizer = null;
    const pre = usageFrom ? usageFrom.before : this.lastContext;
    // Codex 0.171 runs its pre-turn compaction before it logs the turn's user message: at the start
    // of a turn, the place does not tell an automatic compaction from /compact.
    const trigger = reply && this.turnItems === 0 && this.turnRequests === 0 ? 'unknown' : this.trigger();
    const start: EventOf<'compaction/start'> = { kind: 'compaction/start', id, trigger, strategy, source: old };
    if (pre !== undefined) start.preTokens = pre;
    if (this.window !== undefined) start.policy = { window: this.window };
    const startSeq = this.emit(start);

    // The summarizer call. A local compaction logs its usage in the token_count right before this
    // line; a remote one (the compact endpoint) logs none. The call sends the whole history plus
    // an instruction that is not logged.
    const reqId = `req:${++this.requestCount}`;
    this.emit({ kind: 'request', id: reqId, purpose: 'compaction', compactionId: id, input: { items: old, instruction: null } });
    if (reply) {
      // Codex 0.171+ logs the summarizer's reply as an assistant message: its output, never sent
      // to the agent (the summary reaches the history as the prefixed user message).
      const rnotes: string[] = [];
      const m = mapResponseItem(reply.payload, `L${reply.line.line}`, rnotes);
      if (m.ok) this.place(`L${reply.line.line}`, { ...m.item, key: undefined }, { op: LOG, origin: 'compaction summarizer reply', from: reply.line, meta: true });
    }
    const usage = reply?.usage?.usage ?? usageFrom?.usage;
    const usageLine = reply?.usage?.from ?? usageFrom?.from;
    const response: EventOf<'response'> = { kind: 'response', request: reqId };
    if (usage) response.usage = usage;
    this.emit(response, usageLine ?? this.cur, usageLine ? str(usageLine.value.timestamp) : this.at);

    const ckEntry = remote ? lastOf(entries, (e) => e.mapped.compaction) : undefined;
    const summaryBlocks: Block[] = ckEntry ? ckEntry.mapped.blocks : [{ type: 'text', text: message }];
    const summary: EventOf<'compaction/summary'> = { kind: 'compaction/summary', id, summary: summaryBlocks, source: old, request: reqId };
    if (usage) summary.usage = usage;
    const summarySeq = this.emit(summary);

    if (entries === undefined) entries = this.legacyEntries(line, message);
    let ck = ckEntry;
    if (!ck && !remote) ck = lastOf(entries, (e) => e.mapped.summary) ?? (message !== '' ? lastOf(entries, (e) => e.mapped.role === 'user' && e.mapped.userText === message) : undefined);

    const fresh: string[] = [];
    const freshSeqs: number[] = [];
    const used = new Set<string>();
    this.live = [];
    this.liveSeqs = [];
    const copy = (e: Entry, op: EventOf<'item'>['op']): void => {
      const orig = e.orig !== undefined ? e.orig : this.match(e.mapped.key, oldSet, used);
      if (orig) used.add(orig.id);
      const opts: PlaceOpts = { op, origin: e.origin ?? e.mapped.origin ?? 'replacement_history' };
      if (orig) {
        opts.derivation = { kind: 'reinjected', of: [orig.id] };
        opts.sources = [orig.seq];
        opts.meta = orig.context || e.mapped.contextual;
      }
      const cid = `L${line}.r${e.index}`;
      this.place(cid, e.mapped, opts);
      if (op.op !== 'log') {
        fresh.push(cid);
        freshSeqs.push(this.liveSeqs[this.liveSeqs.length - 1] as number);
      }
    };

    if (ck) {
      // The checkpoint first: it covers every item of the old history and takes them off the
      // surface. The rest of the new history is placed around it in order, so the copies find
      // their originals already gone and become re-injections.
      const ckId = `L${line}.r${ck.index}`;
      const derivation: Derivation = { kind: 'checkpoint', compactionId: id, covers: old, part: 'summary' };
      this.place(ckId, ck.mapped, {
        op: APPEND, derivation, sources: [startSeq, summarySeq, ...oldSeqs],
        origin: ck.mapped.compaction ? 'compaction' : 'compaction summary', meta: true,
      });
      const ckSeq = this.liveSeqs[this.liveSeqs.length - 1] as number;
      for (const e of entries) {
        if (e === ck) {
          fresh.push(ckId);
          freshSeqs.push(ckSeq);
        } else copy(e, e.index < ck.index ? { op: 'insert', before: ckId } : APPEND);
      }
    } else {
      if (old.length > 0) this.emit({ kind: 'drop', items: old, reason: 'compaction', compactionId: id });
      this.report('CODEX_COMPACTION_SHAPE', 'warning', `Line ${line}: the compaction's new history has no summary item (no encrypted compaction item, no user message with Codex's summary prefix); the old history is dropped and the new one placed as it is.`);
      for (const e of entries) copy(e, APPEND);
    }
    this.live = fresh;
    this.liveSeqs = freshSeqs;
    this.compactedSinceTurnEnd = true;
    this.lastContext = undefined;
    this.closing = { id, from: this.cur, estimate: this.estimate };
    this.estimate = null;
  }

  /** Close the bracket: after the `compacted` line, or after Codex's re-estimate that follows it. */
  private endCompaction(estimate: Estimate | null): void {
    const c = this.closing;
    if (!c) return;
    this.closing = null;
    const est = estimate ?? c.estimate;
    const end: EventOf<'compaction/end'> = { kind: 'compaction/end', id: c.id, outcome: 'committed' };
    if (est) {
      if (this.window !== undefined && est.total > this.window) this.estimateNote = { compactionLine: c.from.line, estimate: est };
      else end.postTokens = est.total;
    }
    this.emit(end, c.from, str(c.from.value.timestamp));
  }

  /**
   * `auto` when the compaction happens inside a turn that already logged input or model calls
   * (Codex's auto-compaction before or between sampling rounds), `manual` when it is the first
   * thing of its turn (`/compact` runs as a turn of its own), `unknown` outside any turn.
   */
  private trigger(): EventOf<'compaction/start'>['trigger'] {
    if (!this.turnOpen) return 'unknown';
    return this.turnItems === 0 && this.turnRequests === 0 ? 'manual' : 'auto';
  }

  /** The original a replacement entry copies: same content, on the old surface if possible, newest first. */
  private match(key: string | undefined, oldSet: ReadonlySet<string>, used: ReadonlySet<string>): ItemInfo | null {
    if (key === undefined) return null;
    const ids = this.byKey.get(key);
    if (!ids) return null;
    let fallback: string | undefined;
    for (let i = ids.length - 1; i >= 0; i--) {
      const id = ids[i] as string;
      if (used.has(id)) continue;
      if (oldSet.has(id)) return this.infos.get(id) ?? null;
      fallback ??= id;
    }
    return fallback !== undefined ? (this.infos.get(fallback) ?? null) : null;
  }

  /**
   * A `compacted` record without `replacement_history` (older Codex): the new history by Codex's
   * rule (./compaction.ts) — the latest initial context, the newest user messages within 20,000
   * tokens, the summary. Said in a diagnostic, with the estimate it uses.
   */
  private legacyEntries(line: number, message: string): Entry[] {
    const entries: Entry[] = [];
    let index = 0;
    for (const c of this.initialContext) {
      if (c.mapped) entries.push({ index: index++, mapped: c.mapped, orig: c, origin: 'rebuilt: initial context' });
    }
    const users = this.live.map((id) => this.infos.get(id)).filter((x): x is ItemInfo => x !== undefined && x.userText !== undefined);
    const kept = selectUserMessages(users.map((u) => u.userText as string));
    let cut = 0;
    for (const k of kept) {
      const orig = users[k.index] as ItemInfo;
      if (k.truncated) cut++;
      const mapped = mappedItem('message', 'user', [{ type: 'text', text: k.text }], 'input', { userText: k.text });
      entries.push({ index: index++, mapped, orig, origin: k.truncated ? 'rebuilt: user message cut to the token budget' : 'rebuilt: user message' });
    }
    const text = summaryText(message);
    entries.push({
      index,
      mapped: mappedItem('message', 'user', [{ type: 'text', text }], 'input', { summary: true }),
      orig: null,
    });
    const ctx = this.initialContext.length;
    this.report('CODEX_LEGACY_COMPACTION', 'info',
      `Line ${line}: compacted without replacement_history (an older Codex). The history after it is rebuilt by Codex's rule, not read from the log: ${ctx > 0 ? `the initial context recorded at line ${this.initialContextLine ?? '?'} (${ctx} message${ctx === 1 ? '' : 's'})` : 'no initial context (none was recorded)'}, ${kept.length} of ${users.length} user message${users.length === 1 ? '' : 's'} (newest first within 20,000 tokens, counted as Codex estimates them: 4 bytes per token${cut > 0 ? '; the oldest kept one cut to the budget' : ''}), and the summary as one user message.`,
      [], line);
    return entries;
  }

  // -------------------------------------------------------------------------------------------

  end(): void {
    if (this.hold) {
      const h = this.hold;
      this.hold = null;
      this.release(h);
    }
    if (this.block.length > 0) this.flushBlock(null);
    this.flushPending();
    this.endCompaction(null);
    this.closeCall();
    this.reportEstimate(null);
    if (this.withoutOutput) {
      const w = this.withoutOutput;
      this.report('CODEX_USAGE_WITHOUT_OUTPUT', 'info',
        `${w.count} usage report${w.count === 1 ? '' : 's'} (first at line ${w.line}) follow${w.count === 1 ? 's' : ''} no logged output item: ${w.count === 1 ? 'a model call is' : 'model calls are'} shown with ${w.count === 1 ? 'its' : 'their'} usage and no output.`,
        [], w.line);
    }
    for (const [type, u] of this.unknown) {
      this.report('UNKNOWN_RECORDS', 'warning',
        `${u.count} record${u.count === 1 ? '' : 's'} of type "${type}", which this importer (checked against Codex ${NEWEST_KNOWN_CLI}) does not know (first at line ${u.line}); kept as unknown events.${type.startsWith('response_item/') ? ' They are history items the model may have seen: the model view may be incomplete.' : ''}`,
        u.seqs, u.line);
    }
  }
}

/** Text of a message's text parts, joined. */
function messageText(p: Obj): string {
  if (typeof p.content === 'string') return p.content;
  if (!Array.isArray(p.content)) return '';
  return p.content.map((c) => (isObj(c) && typeof c.text === 'string' ? c.text : '')).join('');
}

/**
 * An assistant reply is a local compaction's summarizer output when the `compacted` line right
 * after it carries its text as the summary (`message`, or the SUMMARY_PREFIX user message of
 * `replacement_history`), or when Codex marked it (`metadata.compaction_output`, 0.171).
 */
export function isSummaryReply(line: JsonLine, reply: Obj, compacted: Obj): boolean {
  const meta = line.value.metadata;
  if (isObj(meta) && meta.compaction_output === true) return true;
  const text = messageText(reply).trim();
  if (text === '') return false;
  const ends = (s: string): boolean => s.trim() === text || s.trimEnd().endsWith(`\n${text}`);
  const message = str(compacted.message);
  if (message !== undefined && ends(message)) return true;
  if (!Array.isArray(compacted.replacement_history)) return false;
  return compacted.replacement_history.some((r) => isObj(r) && r.type === 'message' && r.role === 'user' && messageText(r).startsWith(SUMMARY_PREFIX_HEAD) && ends(messageText(r)));
}

function lastOf<T>(xs: readonly T[] | undefined, f: (x: T) => boolean): T | undefined {
  if (!xs) return undefined;
  for (let i = xs.length - 1; i >= 0; i--) if (f(xs[i] as T)) return xs[i];
  return undefined;
}

/** `a` is a later release than `b` (major.minor.patch; a pre-release of `b` is not later). */
export function newerThan(a: string, b: string): boolean {
  const pa = /^(\d+)\.(\d+)\.(\d+)/.exec(a);
  const pb = /^(\d+)\.(\d+)\.(\d+)/.exec(b);
  if (!pa || !pb) return false;
  for (let i = 1; i <= 3; i++) {
    const x = Number(pa[i]);
    const y = Number(pb[i]);
    if (x !== y) return x > y;
  }
  return false;
}
