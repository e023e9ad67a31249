import { NotRegularFile, readRegularFileSync } from '../../files/open-regular';
import { basename, dirname, join } from 'node:path';
import { jsonTextOf } from '../../../shared/json-depth';
import type { Block } from '../../../shared/model/content';
import type { Severity } from '../../../shared/model/diagnostic';
import type { CompactionTrigger, EventBody, EventOf } from '../../../shared/model/event';
import type { Item, Role } from '../../../shared/model/item';
import type { JsonLine } from '../../reader/types';
import { type Obj, isObj, oneLine } from '../dsh/json';
import type { FileImport, FileInfo, ImportSink, SessionImport } from '../types';
import {
  type CompactionRecord,
  type LineLoc,
  type ToolRecord,
  checkpointText,
  isCompactBoundary,
  key,
  mapUsage,
  readCompactionRecord,
  readToolRecord,
  timeOf,
  toolCallsMeta,
  toolResultBlock,
  truthy,
} from './records';
import { shown } from '../shown';

/**
 * A Rind session directory (`~/.rind/sessions/<id>/`) → canonical events.
 *
 * Files are read in the order `sessionFiles` gives: `compactions.jsonl`, `tool_calls.jsonl`, then
 * `messages.jsonl`, so that when a message or a boundary marker streams by, the records it joins
 * are known. Each record of the first two files becomes a `record` event where it is read (so the
 * raw history shows it, and the items built from it cite it in `sources`); the conversation, the
 * requests and the compaction brackets are emitted from the lines of `messages.jsonl`, in the
 * order of that file. Canonical order is therefore not time order for the joined records: they
 * come first, each with its own time in `at`.
 *
 * An event is located at the line that holds its text, so that a long text elided in memory can
 * be re-read (./rehydrate.ts): a tool result whose record has `model_content` at its record in
 * `tool_calls.jsonl`, the continuation and handoff items and the llm_inline summary at their
 * record in `compactions.jsonl` (`ImportSink.emit` with that file's index). Everything else — and
 * results and pairs joined from companions read beside a lone `messages.jsonl`, whose files are
 * not files of the session — is located at its `messages.jsonl` line.
 *
 * The model view follows message_projector.py exactly:
 * - tool results are the `model_content` of their tool record, placed right after the assistant
 *   message that called them, in the order of its `meta.tool_calls` (`_missing_tool_messages`);
 *   a later `tool` message for an already placed result is not sent again;
 * - the last boundary marker whose `compact_id` names a valid compaction record replaces every
 *   non-system message before it by the record's continuation user message + assistant handoff
 *   (two checkpoint items, parts `continuation` and `handoff`); system messages stay; markers
 *   are never sent. A record without its marker, or a marker without a valid record, changes
 *   nothing (Rind ignores half-written pairs) and is reported.
 */

const MAX_CITED = 20;

export interface RindSessionOptions {
  /** Parsed `meta.json`: an object, null (absent or unreadable), or undefined to read it from beside the first file. */
  readonly meta?: Obj | null;
}

interface LiveItem {
  readonly id: string;
  readonly role: Role;
  readonly seq: number;
}

/** A tool record: its seq (-1 when read beside a lone messages.jsonl) and its line (null then). */
interface ToolEntry {
  readonly rec: ToolRecord;
  readonly seq: number;
  readonly at: LineLoc | null;
}

interface PendingCall {
  readonly callId: string;
  readonly record: ToolEntry | undefined;
}

interface Pending {
  readonly line: JsonLine;
  readonly calls: PendingCall[];
}

interface CompactionEntry {
  readonly rec: CompactionRecord;
  readonly seq: number;
  readonly line: number;
  /** Its line in compactions.jsonl as a file of the session; null when read beside a lone messages.jsonl. */
  readonly at: LineLoc | null;
  markers: number;
}

interface UnknownCount {
  count: number;
  line: number;
  file: string;
  seqs: number[];
}

const text = (t: string): Block => ({ type: 'text', text: t });
const NO_VALUE: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;
const locOf = (l: JsonLine, file: number): LineLoc => ({ file, line: l.line, offset: l.offset, length: l.length });

function triggerOf(reason: string | null): CompactionTrigger {
  switch (reason) {
    case 'auto':
      return 'auto';
    case 'manual':
      return 'manual';
    case 'context_length_error':
      return 'overflow';
    default:
      return 'unknown';
  }
}

export class RindSession implements SessionImport {
  private sessionEmitted = false;
  private meta: Obj | null | undefined;
  private metaNote: string | null = null;
  private dir: string | null = null;

  readonly tools = new Map<string, ToolEntry>();
  toolCallsRead = false;
  readonly compactions = new Map<string, CompactionEntry>();
  compactionsRead = false;
  compactionsPath: string | null = null;
  messagesRead = false;
  private readonly unknown = new Map<string, UnknownCount>();
  currentPath = '';

  constructor(
    readonly sink: ImportSink,
    options: RindSessionOptions = {},
  ) {
    this.meta = options.meta;
  }

  file(info: FileInfo): FileImport {
    this.currentPath = info.path;
    if (this.meta === undefined) this.loadMeta(dirname(info.path));
    this.dir ??= dirname(info.path);
    const name = basename(info.path);
    if (name === 'messages.jsonl' && !this.toolCallsRead && !this.compactionsRead && info.index === 0)
      this.readCompanions(dirname(info.path));
    if (name === 'tool_calls.jsonl') return new ToolCallsFile(this, info.index);
    if (name === 'compactions.jsonl') {
      this.compactionsPath = info.path;
      return new CompactionsFile(this, info.index);
    }
    return new MessagesFile(this);
  }

  end(): void {
    if (!this.messagesRead) {
      this.report(
        'RIND_NO_MESSAGES',
        'error',
        'No messages.jsonl was read: a Rind session is a directory with messages.jsonl, tool_calls.jsonl and compactions.jsonl; open the directory.',
        [],
        null,
      );
    }
  }

  private loadMeta(dir: string): void {
    try {
      const parsed: unknown = JSON.parse(readRegularFileSync(join(dir, 'meta.json')));
      this.meta = isObj(parsed) ? parsed : null;
      if (!isObj(parsed)) this.metaNote = 'meta.json is not a JSON object; it is ignored.';
    } catch (err) {
      this.meta = null;
      const code = isObj(err) && typeof err.code === 'string' ? err.code : '';
      if (err instanceof NotRegularFile) this.metaNote = `meta.json is ${err.kind}, not a regular file; it is ignored.`;
      else
        this.metaNote =
          code === 'ENOENT'
            ? 'meta.json is missing: the session id, title and latest usage are unknown.'
            : `meta.json could not be read (${err instanceof Error ? oneLine(err.message, 80) : 'unknown error'}); it is ignored.`;
    }
  }

  /**
   * A lone `messages.jsonl` (opened as a file, not as its directory): its companion files are
   * read here so that results and handoffs are still joined. Their records are not events of
   * this log (the loader did not read those files), so nothing cites them.
   */
  private readCompanions(dir: string): void {
    const read = (name: string): { rows: { value: Obj; line: number }[]; bad: number } | null => {
      let text: string;
      try {
        text = readRegularFileSync(join(dir, name));
      } catch (err) {
        // Absent is normal (compactions.jsonl comes with the first compaction); a FIFO or a device is named.
        if (err instanceof NotRegularFile)
          this.report(
            'READ_IO',
            'error',
            `${name} beside messages.jsonl is ${err.kind}, not a regular file; it was not read.`,
            [],
            null,
            join(dir, name),
          );
        return null;
      }
      const rows: { value: Obj; line: number }[] = [];
      let bad = 0;
      text.split('\n').forEach((raw, i) => {
        const t = raw.trim();
        if (t === '') return;
        try {
          const v: unknown = JSON.parse(t);
          if (isObj(v)) rows.push({ value: v, line: i + 1 });
          else bad++;
        } catch {
          bad++;
        }
      });
      return { rows, bad };
    };
    const tools = read('tool_calls.jsonl');
    const comps = read('compactions.jsonl');
    if (tools) {
      this.toolCallsRead = true;
      for (const r of tools.rows) {
        const rec = readToolRecord(r.value);
        if (rec) this.tools.set(rec.id, { rec, seq: -1, at: null });
      }
    }
    if (comps) {
      this.compactionsRead = true;
      this.compactionsPath = join(dir, 'compactions.jsonl');
      for (const r of comps.rows) {
        const rec = readCompactionRecord(r.value);
        if (rec && rec.handoff !== null) this.compactions.set(rec.id, { rec, seq: -1, line: r.line, at: null, markers: 0 });
      }
    }
    if (tools || comps) {
      const bad = (tools?.bad ?? 0) + (comps?.bad ?? 0);
      this.report(
        'RIND_COMPANIONS',
        'info',
        `messages.jsonl was opened alone; ${[tools ? 'tool_calls.jsonl' : null, comps ? 'compactions.jsonl' : null].filter(Boolean).join(' and ')} beside it ${tools && comps ? 'were' : 'was'} read to join results and handoffs${bad > 0 ? ` (${bad} unreadable line${bad === 1 ? '' : 's'} skipped)` : ''}. Open the directory to see their records as events.`,
        [],
        null,
      );
    }
  }

  get metaObj(): Obj | null {
    return this.meta ?? null;
  }

  report(rule: string, severity: Severity, message: string, seqs: number[] = [], line: number | null = null, file?: string | null): void {
    const d: Parameters<ImportSink['diagnostic']>[0] = { rule, severity, message, seqs, line };
    if (file !== undefined) d.file = file;
    this.sink.diagnostic(d);
  }

  emit(event: EventBody, from: JsonLine): number {
    this.ensureSession(from);
    return this.sink.emit(event, from);
  }

  /** Emit an event whose text lives on a line of another file of the session (a joined record). */
  emitAt(event: EventBody, at: LineLoc): number {
    const from: JsonLine = { value: NO_VALUE, line: at.line, offset: at.offset, length: at.length };
    this.ensureSession(from);
    return this.sink.emit(event, from, at.file);
  }

  /** The session line and the envelope, before the first event of the session. */
  private ensureSession(from: JsonLine): void {
    if (this.sessionEmitted) return;
    this.sessionEmitted = true;
    const meta = this.meta ?? {};
    const id = typeof meta.session_id === 'string' && meta.session_id !== '' ? meta.session_id : basename(this.dir ?? '') || 'rind-session';
    const session: EventOf<'session'> = { kind: 'session', id, harness: 'rind' };
    if (typeof meta.title === 'string') session.title = meta.title;
    if (typeof meta.cwd === 'string') session.cwd = meta.cwd;
    if (typeof meta.created_at === 'string') session.at = meta.created_at;
    this.sink.emit(session, from);
    // Rind persists its system prompt as the first `system` message: the prompt is an item, not a
    // separate envelope field. Tool schemas are not persisted. meta.json keeps only the current
    // model (it changes with /model), so no request's route is known from it.
    this.sink.emit({ kind: 'header', system: [], tools: null, reason: 'rind session' }, from);
    if (this.metaNote !== null) this.report('RIND_META', 'warning', this.metaNote, [], null, this.dir ? join(this.dir, 'meta.json') : null);
    else if (this.meta) {
      const parts: string[] = [];
      if (typeof meta.model === 'string') parts.push(`model ${meta.model}`);
      if (typeof meta.schema_version === 'string') parts.push(`schema ${meta.schema_version}`);
      if (typeof meta.message_count === 'number') parts.push(`${meta.message_count} messages`);
      if (typeof meta.tool_call_count === 'number') parts.push(`${meta.tool_call_count} tool calls`);
      this.sink.emit({ kind: 'record', type: 'meta.json', summary: parts.join(', ') || 'session metadata' }, from);
      if (meta.schema_version !== undefined && meta.schema_version !== '2.0') {
        this.report(
          'RIND_META',
          'warning',
          `meta.json says schema_version ${shown(meta.schema_version)}; Rind @ dfe87c5 reads only "2.0" and refuses other sessions. Reading on.`,
          [],
          null,
          this.dir ? join(this.dir, 'meta.json') : null,
        );
      }
    }
  }

  countUnknown(type: string, seq: number, line: number): void {
    let u = this.unknown.get(type);
    if (!u) {
      u = { count: 0, line, file: this.currentPath, seqs: [] };
      this.unknown.set(type, u);
    }
    u.count++;
    if (u.seqs.length < MAX_CITED) u.seqs.push(seq);
  }

  reportUnknown(): void {
    for (const [type, u] of this.unknown) {
      this.report(
        'UNKNOWN_RECORDS',
        'warning',
        `${u.count} record${u.count === 1 ? '' : 's'} of kind ${type}, which Rind's message projector does not send (first at line ${u.line}); kept as unknown events.`,
        u.seqs,
        u.line,
        u.file,
      );
    }
    this.unknown.clear();
  }
}

// ---------------------------------------------------------------------------------------------
// tool_calls.jsonl and compactions.jsonl: indexed, each line kept as a record
// ---------------------------------------------------------------------------------------------

class ToolCallsFile implements FileImport {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly s: RindSession,
    private readonly fileIndex: number,
  ) {
    s.toolCallsRead = true;
  }

  line(l: JsonLine): void {
    const rec = readToolRecord(l.value);
    if (!rec) {
      this.s.emit({ kind: 'record', type: 'tool_call', summary: 'malformed: no id' }, l);
      this.s.report('RIND_BAD_RECORD', 'error', `Line ${l.line}: a tool record without an "id"; no message can join it.`, [], l.line);
      return;
    }
    const record: EventOf<'record'> = {
      kind: 'record',
      type: 'tool_call',
      summary: oneLine(`${rec.name ?? '?'} ${rec.id}${rec.ok === false ? ` failed${rec.errorType ? ` (${rec.errorType})` : ''}` : ''}`),
    };
    if (rec.tsEnd !== null) record.at = rec.tsEnd;
    const seq = this.s.emit(record, l);
    const before = this.seen.get(rec.id);
    if (before !== undefined) {
      this.s.report(
        'RIND_DUPLICATE_TOOL_RECORD',
        'warning',
        `Line ${l.line}: a second tool record for call ${rec.id} (the first is at line ${before}); like Rind's projector, the last one is used.`,
        [seq],
        l.line,
      );
    }
    this.seen.set(rec.id, l.line);
    this.s.tools.set(rec.id, { rec, seq, at: locOf(l, this.fileIndex) });
  }

  end(): void {
    // Nothing pending: records are joined while messages.jsonl is read.
  }
}

class CompactionsFile implements FileImport {
  constructor(
    private readonly s: RindSession,
    private readonly fileIndex: number,
  ) {
    s.compactionsRead = true;
  }

  line(l: JsonLine): void {
    const rec = readCompactionRecord(l.value);
    if (!rec) {
      this.s.emit({ kind: 'record', type: 'compaction', summary: 'malformed: no id' }, l);
      this.s.report(
        'RIND_BAD_RECORD',
        'error',
        `Line ${l.line}: a compaction record without an "id"; no boundary marker can name it.`,
        [],
        l.line,
      );
      return;
    }
    const record: EventOf<'record'> = {
      kind: 'record',
      type: 'compaction',
      summary: oneLine(
        `${rec.strategy ?? '?'} ${rec.id}${rec.reason ? ` (${rec.reason}${rec.phase ? `, ${rec.phase}` : ''})` : ''}${rec.policyVersion ? ` ${rec.policyVersion}` : ''}`,
      ),
    };
    if (rec.createdAt !== null) record.at = rec.createdAt;
    const seq = this.s.emit(record, l);
    if (rec.handoff === null) {
      this.s.report(
        'RIND_INVALID_COMPACTION',
        'warning',
        `Line ${l.line}: compaction ${rec.id} has no valid handoff_message (role "assistant" with string content); Rind ignores it and so does its boundary marker.`,
        [seq],
        l.line,
      );
      return;
    }
    // The projector keys valid records by id; a later one with the same id wins.
    const prev = this.s.compactions.get(rec.id);
    if (prev)
      this.s.report(
        'RIND_DUPLICATE_COMPACTION',
        'warning',
        `Line ${l.line}: a second record for compaction ${rec.id} (the first is at line ${prev.line}); like Rind, the last one is used.`,
        [seq],
        l.line,
      );
    this.s.compactions.set(rec.id, { rec, seq, line: l.line, at: locOf(l, this.fileIndex), markers: 0 });
  }

  end(): void {
    // Markers are matched while messages.jsonl is read.
  }
}

// ---------------------------------------------------------------------------------------------
// messages.jsonl: the conversation
// ---------------------------------------------------------------------------------------------

class MessagesFile implements FileImport {
  private index = 0;
  private live: LiveItem[] = [];
  private pending: Pending | null = null;
  private readonly emitted = new Set<string>();
  private readonly issued = new Set<string>();
  private readonly unanswered = new Map<string, number>();
  private readonly itemIds = new Set<string>();
  private requestCount = 0;
  private lastTs: string | null = null;
  private lastAssistant: { line: JsonLine; requestId: string; ts: string | null; prevTs: string | null } | null = null;
  private missingRecords: { count: number; firstLine: number; seqs: number[] } | null = null;
  private readonly markerRepeats = new Map<string, number>();

  constructor(private readonly s: RindSession) {
    s.messagesRead = true;
  }

  private report(rule: string, severity: Severity, message: string, seqs: number[] = [], line: number | null = null): void {
    this.s.report(rule, severity, message, seqs, line);
  }

  line(l: JsonLine): void {
    const v = l.value;
    const rawIndex = this.index++;
    const ts = typeof v.ts === 'string' ? v.ts : null;
    try {
      this.message(l, v, rawIndex);
    } finally {
      if (ts !== null) this.lastTs = ts;
    }
  }

  private message(l: JsonLine, v: Obj, rawIndex: number): void {
    if (isCompactBoundary(v)) {
      this.flushPending();
      this.marker(l, v, rawIndex);
      return;
    }
    const role = v.role;
    if (role === 'tool') {
      this.toolMessage(l, v);
      return;
    }
    this.flushPending();
    if (role === 'system' || role === 'user') {
      this.plain(l, v, role);
      return;
    }
    if (role === 'assistant') {
      this.assistant(l, v);
      return;
    }
    const type = typeof role === 'string' ? `role "${role}"` : '(no role)';
    const u: EventOf<'unknown'> = { kind: 'unknown', type: typeof role === 'string' ? `message/${role}` : 'message/(no role)' };
    if (typeof v.ts === 'string') u.at = v.ts;
    const seq = this.s.emit(u, l);
    if (typeof role === 'string') this.s.countUnknown(type, seq, l.line);
    else
      this.report(
        'RIND_BAD_RECORD',
        'error',
        `Line ${l.line}: a message without a string "role"; Rind's projector skips it. Kept as an unknown event.`,
        [seq],
        l.line,
      );
  }

  /** A unique item id: the message's own id, or one made from its line. */
  private itemId(v: Obj, l: JsonLine, fallback: string): string {
    const own = typeof v.id === 'string' && v.id !== '' ? v.id : null;
    let id = own ?? fallback;
    if (this.itemIds.has(id)) id = `${id}@${l.line}`;
    this.itemIds.add(id);
    return id;
  }

  private content(v: Obj, l: JsonLine): Block {
    const c = v.content;
    if (c === undefined || c === null) return text('');
    if (typeof c === 'string') return text(c);
    this.report(
      'RIND_BAD_CONTENT',
      'warning',
      `Line ${l.line}: "content" is ${Array.isArray(c) ? 'an array' : typeof c}, not a string; Rind writes strings only. Shown as opaque.`,
      [],
      l.line,
    );
    return {
      type: 'opaque',
      label: `non-string content (${Array.isArray(c) ? 'array' : typeof c})`,
      chars: c === undefined ? 0 : jsonTextOf(c).length,
    };
  }

  /** Emit an item from message line `l`; located at `at` instead when its text lives there. */
  private emitItem(
    item: Item,
    l: JsonLine,
    v: Obj,
    op: EventOf<'item'>['op'] = { op: 'append' },
    sources?: number[],
    at: LineLoc | null = null,
  ): number {
    const e: EventOf<'item'> = { kind: 'item', item, op };
    if (sources && sources.length > 0) e.sources = sources;
    if (typeof v.ts === 'string') e.at = v.ts;
    const seq = at ? this.s.emitAt(e, at) : this.s.emit(e, l);
    if (op.op !== 'log') this.live.push({ id: item.id, role: item.role, seq });
    return seq;
  }

  private plain(l: JsonLine, v: Obj, role: 'system' | 'user'): void {
    const item: Item = { id: this.itemId(v, l, `line-${l.line}`), role, blocks: [this.content(v, l)] };
    const kind = isObj(v.meta) && typeof v.meta.kind === 'string' ? v.meta.kind : undefined;
    if (kind !== undefined) {
      item.origin = kind;
      // Skill snapshots and catalogs are context Rind injects, not text the user typed.
      if (kind === 'skill_snapshot' || kind === 'skill_catalog') item.meta = true;
    }
    this.emitItem(item, l, v);
  }

  private assistant(l: JsonLine, v: Obj): void {
    // Each persisted assistant message is the output of one model call (turn_runner.py persists it
    // after the stream ends); the call saw the surface as it is now.
    const requestId = `req-${++this.requestCount}`;
    this.s.emit({ kind: 'request', id: requestId, purpose: 'agent' }, l);
    this.lastAssistant = { line: l, requestId, ts: typeof v.ts === 'string' ? v.ts : null, prevTs: this.lastTs };

    const blocks: Block[] = [];
    const reasoning = typeof v.reasoning_content === 'string' ? v.reasoning_content : null;
    if (reasoning !== null) blocks.push({ type: 'reasoning', text: reasoning });
    const metaCalls = toolCallsMeta(v);
    const id = this.itemId(v, l, `line-${l.line}`);
    if (metaCalls === null) {
      blocks.push(this.content(v, l));
      this.emitItem({ id, role: 'assistant', blocks }, l, v);
      return;
    }
    const calls: PendingCall[] = [];
    const callBlocks: Block[] = [];
    const dropped: string[] = [];
    for (const tc of metaCalls) {
      const tcObj = isObj(tc) ? tc : {};
      const callId = key(tcObj.id);
      if (callId === null) {
        this.report(
          'RIND_BAD_RECORD',
          'error',
          `Line ${l.line}: a tool call in meta.tool_calls has no id; Rind's projector refuses such a message ("missing tool call id"). The call is left out.`,
          [],
          l.line,
        );
        continue;
      }
      const record = this.s.tools.get(callId);
      const raw = record ? record.rec.rawArgs : tcObj.raw_args;
      if (raw === null || raw === undefined) {
        dropped.push(callId);
        continue;
      }
      const name = truthy(tcObj.name) ? String(tcObj.name) : '';
      const input = typeof raw === 'string' ? raw : jsonTextOf(raw);
      callBlocks.push({ type: 'tool_call', id: callId, name, input });
      calls.push({ callId, record });
    }
    if (dropped.length > 0) {
      this.report(
        'RIND_CALL_WITHOUT_ARGS',
        'info',
        `Line ${l.line}: tool call${dropped.length === 1 ? '' : 's'} ${dropped.join(', ')} ha${dropped.length === 1 ? 's' : 've'} no raw_args in the tool record or the message; Rind's projector leaves ${dropped.length === 1 ? 'it' : 'them'} out of the request.`,
        [],
        l.line,
      );
    }
    const contentTruthy = truthy(v.content);
    if (callBlocks.length > 0) {
      if (contentTruthy) blocks.push(this.content(v, l));
      for (const b of callBlocks) blocks.push(b);
      this.emitItem({ id, role: 'assistant', blocks }, l, v);
      for (const c of calls) this.issued.add(c.callId);
      this.pending = { line: l, calls };
      return;
    }
    if (contentTruthy || reasoning !== null) {
      blocks.push(this.content(v, l));
      this.emitItem({ id, role: 'assistant', blocks }, l, v);
      return;
    }
    // Nothing left to send: the projector drops the message.
    this.emitItem({ id, role: 'assistant', blocks }, l, v, { op: 'log' });
    this.report(
      'RIND_EMPTY_ASSISTANT',
      'info',
      `Line ${l.line}: an assistant message whose tool calls all lack arguments and that has no content; Rind never sends it.`,
      [],
      l.line,
    );
  }

  /**
   * The result of `call`, from its record (`model_content`), as a tool item. It is located at the
   * record's line (its text is there); a result without text stays at message line `l`.
   */
  private resultItem(callId: string, record: ToolEntry | undefined, l: JsonLine, v: Obj, fallbackId: string): void {
    const id = this.itemId(v, l, fallbackId);
    this.emitted.add(callId);
    const sources: number[] = record && record.seq >= 0 ? [record.seq] : [];
    const modelContent = record?.rec.modelContent ?? null;
    if (modelContent !== null) {
      this.emitItem(
        { id, role: 'tool', blocks: [toolResultBlock(callId, modelContent)] },
        l,
        v,
        { op: 'append' },
        sources,
        record?.at ?? null,
      );
      return;
    }
    const why = !this.s.toolCallsRead
      ? 'tool_calls.jsonl was not read'
      : record
        ? 'its tool record has no model_content'
        : 'no tool record has this call id';
    this.missingRecord(callId, why, l);
    const item: Item = {
      id,
      role: 'tool',
      blocks: [{ type: 'tool_result', callId, content: [{ type: 'opaque', label: `tool result not recorded (${why})` }] }],
    };
    const seq = this.emitItem(item, l, v, { op: 'append' }, sources);
    if (this.missingRecords && this.missingRecords.seqs.length < MAX_CITED) this.missingRecords.seqs.push(seq);
  }

  private missingRecord(callId: string, why: string, l: JsonLine): void {
    if (!this.s.toolCallsRead) {
      this.missingRecords ??= { count: 0, firstLine: l.line, seqs: [] };
      this.missingRecords.count++;
      return;
    }
    this.report(
      'RIND_MISSING_TOOL_RESULT',
      'error',
      `Line ${l.line}: the result of tool call ${callId} cannot be joined: ${why}. Rind's projector refuses the whole session here ("Unsupported legacy tool record"); the result is shown as not recorded.`,
      [],
      l.line,
    );
  }

  private toolMessage(l: JsonLine, v: Obj): void {
    const callId = key(v.tool_call_id);
    if (callId === null) {
      this.flushPending();
      const seq = this.s.emit({ kind: 'record', type: 'tool', summary: 'tool message without tool_call_id' }, l);
      this.report(
        'RIND_BAD_RECORD',
        'error',
        `Line ${l.line}: a tool message without tool_call_id; Rind's projector cannot join it and refuses the session.`,
        [seq],
        l.line,
      );
      return;
    }
    if (this.emitted.has(callId)) {
      // Already placed right after its call (`_missing_tool_messages`): not sent again.
      this.s.emit({ kind: 'record', type: 'tool', summary: `result message of ${callId}: already placed after its call` }, l);
      return;
    }
    const p = this.pending;
    const at = p ? p.calls.findIndex((c) => c.callId === callId) : -1;
    if (p && at >= 0) {
      // Results the projector placed before this one: those of earlier calls of the same message.
      for (const c of p.calls.slice(0, at)) this.placeDeferred(c, p.line);
      const c = p.calls[at] as PendingCall;
      p.calls.splice(0, at + 1);
      this.resultItem(callId, c.record, l, v, `result-${callId}`);
      if (p.calls.length === 0) this.pending = null;
      return;
    }
    this.flushPending();
    if (this.unanswered.delete(callId)) {
      // Its call came earlier but no record existed then (nor now): the projector raises here.
      this.resultItem(callId, this.s.tools.get(callId), l, v, `result-${callId}`);
      return;
    }
    const record = this.s.tools.get(callId);
    this.resultItem(callId, record, l, v, `result-${callId}`);
    if (!this.issued.has(callId) && record) {
      this.report(
        'RIND_ORPHAN_TOOL_RESULT',
        'warning',
        `Line ${l.line}: a result for tool call ${callId}, which no earlier assistant message issued; Rind sends it where it stands, and providers reject a tool message without its call.`,
        [],
        l.line,
      );
    }
  }

  /** A result the projector places right after its call although its own message is elsewhere. */
  private placeDeferred(c: PendingCall, assistantLine: JsonLine): void {
    if (this.emitted.has(c.callId)) return;
    if (!c.record) {
      this.unanswered.set(c.callId, assistantLine.line);
      return;
    }
    this.resultItem(c.callId, c.record, assistantLine, {}, `result-${c.callId}`);
  }

  private flushPending(): void {
    const p = this.pending;
    if (!p) return;
    this.pending = null;
    for (const c of p.calls) this.placeDeferred(c, p.line);
  }

  private marker(l: JsonLine, v: Obj, rawIndex: number): void {
    const meta = v.meta as Obj;
    const cid = key(meta.compact_id);
    const entry = cid === null ? undefined : this.s.compactions.get(cid);
    const rec = entry?.rec;
    const record: EventOf<'record'> = {
      kind: 'record',
      type: 'compact_boundary',
      summary:
        cid === null
          ? 'boundary marker without compact_id'
          : `compact_id ${cid}${rec ? `${rec.reason ? `, reason ${rec.reason}` : ''}${rec.phase ? `, phase ${rec.phase}` : ''}${rec.sourceStart !== null && rec.sourceEnd !== null ? `, messages ${rec.sourceStart}..${rec.sourceEnd - 1}` : ''}` : ': no valid compaction record'}`,
    };
    if (typeof v.ts === 'string') record.at = v.ts;
    const markerSeq = this.s.emit(record, l);
    if (!entry || !rec || cid === null) {
      if (!this.s.compactionsRead) {
        this.report(
          'RIND_MARKER_WITHOUT_RECORD',
          'warning',
          `Line ${l.line}: a compact_boundary marker${cid ? ` for ${cid}` : ''}, but compactions.jsonl was not read (it is created on the first compaction; open the session directory). The marker changes nothing here.`,
          [markerSeq],
          l.line,
        );
      } else {
        this.report(
          'RIND_MARKER_WITHOUT_RECORD',
          'warning',
          `Line ${l.line}: a compact_boundary marker${cid ? ` for ${cid}` : ' without compact_id'} that matches no valid record in compactions.jsonl; Rind ignores it (half-written pair).`,
          [markerSeq],
          l.line,
        );
      }
      return;
    }
    entry.markers++;
    if (rec.sourceEnd !== null && rec.sourceEnd !== rawIndex) {
      this.report(
        'RIND_SOURCE_RANGE',
        'info',
        `Line ${l.line}: compaction ${cid} says its source ends before message ${rec.sourceEnd}, but its marker is message ${rawIndex}; messages were appended between the record and its marker.`,
        [markerSeq],
        l.line,
      );
    }
    const repeat = (this.markerRepeats.get(cid) ?? 0) + 1;
    this.markerRepeats.set(cid, repeat);
    const compactionId = repeat === 1 ? cid : `${cid}#${repeat}`;
    this.compaction(l, v, entry, compactionId);
  }

  /**
   * The compaction brackets at the marker's line; the summary and the pair, whose text is the
   * record's, at the record's line in compactions.jsonl.
   */
  private compaction(l: JsonLine, v: Obj, entry: CompactionEntry, id: string): void {
    const { rec, seq: recordSeq } = entry;
    const emitText = (e: EventBody): number => (entry.at ? this.s.emitAt(e, entry.at) : this.s.emit(e, l));
    const covered = this.live.filter((x) => x.role !== 'system');
    const covers = covered.map((x) => x.id);
    const at = rec.createdAt ?? (typeof v.ts === 'string' ? v.ts : undefined);
    const timed = <T extends EventBody>(e: T): T => {
      if (at !== undefined) e.at = at;
      return e;
    };
    if (rec.reason === 'context_length_error') {
      // Rind compacts with this reason only after the provider rejected a request for its size
      // (turn_runner.py): that request was made with the view as it stands, and failed.
      const requestId = `req-${++this.requestCount}`;
      this.s.emit({ kind: 'request', id: requestId, purpose: 'agent' }, l);
      this.s.emit(
        {
          kind: 'response',
          request: requestId,
          error: {
            code: 'context_length_exceeded',
            message:
              'The provider rejected the request for its size (inferred from the compaction reason "context_length_error"; Rind does not log the provider message).',
          },
        },
        l,
      );
    }
    const start: EventOf<'compaction/start'> = timed({ kind: 'compaction/start', id, trigger: triggerOf(rec.reason), source: covers });
    if (rec.strategy !== null) start.strategy = rec.strategy;
    if (rec.policyVersion !== null) start.policy = { name: rec.policyVersion };
    const startSeq = this.s.emit(start, l);
    const fe = rec.fallbackError;
    const error = { message: fe?.message ?? 'the summarizer did not produce a usable handoff; the record does not say why' } as {
      code?: string;
      message: string;
    };
    if (fe?.type) error.code = fe.type;
    let summarySeq: number | null = null;
    let end: EventOf<'compaction/end'>;
    switch (rec.strategy) {
      case 'llm_inline': {
        const summary: EventOf<'compaction/summary'> = {
          kind: 'compaction/summary',
          id,
          summary: [text(checkpointText(rec, 'handoff'))],
          source: covers,
        };
        if (rec.usage) summary.usage = rec.usage;
        summarySeq = emitText(timed(summary));
        end = { kind: 'compaction/end', id, outcome: 'committed' };
        break;
      }
      case 'deterministic_fallback': {
        const se: EventOf<'compaction/summary-error'> = { kind: 'compaction/summary-error', id, error };
        if (rec.usage) se.usage = rec.usage;
        summarySeq = this.s.emit(timed(se), l);
        end = { kind: 'compaction/end', id, outcome: 'fallback', fallback: { kind: 'deterministic', marker: false }, error };
        break;
      }
      case 'manual_deterministic':
        end = { kind: 'compaction/end', id, outcome: 'committed' };
        break;
      default:
        this.report(
          'RIND_UNKNOWN_STRATEGY',
          'info',
          `Line ${l.line}: compaction ${id} has strategy ${shown(rec.strategy)}, not one Rind @ dfe87c5 writes (llm_inline, deterministic_fallback, manual_deterministic); its handoff is applied as recorded.`,
          [startSeq],
          l.line,
        );
        end = { kind: 'compaction/end', id, outcome: 'committed' };
    }
    const sources = [
      startSeq,
      ...(summarySeq === null ? [] : [summarySeq]),
      ...(recordSeq >= 0 ? [recordSeq] : []),
      ...covered.map((x) => x.seq),
    ];
    const derivation = (part: 'continuation' | 'handoff'): Item['derivation'] => ({ kind: 'checkpoint', compactionId: id, covers, part });
    this.live = this.live.filter((x) => x.role === 'system');
    const c: EventOf<'item'> = timed({
      kind: 'item',
      item: {
        id: `${id}:continuation`,
        role: 'user',
        blocks: [text(checkpointText(rec, 'continuation'))],
        meta: true,
        origin: 'continuation_user_message',
        derivation: derivation('continuation'),
      },
      op: { op: 'append' },
      sources,
    });
    this.live.push({ id: c.item.id, role: 'user', seq: emitText(c) });
    const h: EventOf<'item'> = timed({
      kind: 'item',
      item: {
        id: `${id}:handoff`,
        role: 'assistant',
        blocks: [text(checkpointText(rec, 'handoff'))],
        origin: 'handoff_message',
        derivation: derivation('handoff'),
      },
      op: { op: 'append' },
      sources,
    });
    this.live.push({ id: h.item.id, role: 'assistant', seq: emitText(h) });
    this.s.emit(timed(end), l);
    this.itemIds.add(c.item.id).add(h.item.id);
  }

  end(): void {
    this.flushPending();
    const s = this.s;
    if (this.missingRecords) {
      const m = this.missingRecords;
      s.report(
        'RIND_MISSING_TOOL_RESULT',
        'error',
        `${m.count} tool result${m.count === 1 ? '' : 's'} (first at line ${m.firstLine}) cannot be joined: tool_calls.jsonl was not read. Results live there; open the session directory to see them.`,
        m.seqs,
        m.firstLine,
      );
    }
    if (this.unanswered.size > 0 && s.toolCallsRead) {
      const ids = [...this.unanswered.keys()];
      const first = [...this.unanswered.values()][0] ?? null;
      s.report(
        'RIND_UNANSWERED_CALL',
        'warning',
        `${ids.length} tool call${ids.length === 1 ? '' : 's'} (${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', …' : ''}) ha${ids.length === 1 ? 's' : 've'} neither a tool record nor a result message: the call${ids.length === 1 ? ' was' : 's were'} interrupted, and providers reject a request that carries ${ids.length === 1 ? 'it' : 'them'} unanswered (Rind resumes pending calls first).`,
        [],
        first,
      );
    }
    for (const [id, e] of s.compactions) {
      if (e.markers > 0) continue;
      // The catalog's half-written compaction, reported here: the record never reaches the
      // canonical log (Rind ignores it), so no rule over that log can see it.
      s.report(
        'HALF_WRITTEN_COMPACTION',
        'warning',
        `Compaction ${id} (${e.rec.strategy ?? 'no strategy'}) has no compact_boundary marker in messages.jsonl; Rind ignores it (half-written pair), so it changes no view.`,
        e.seq >= 0 ? [e.seq] : [],
        e.line,
        s.compactionsPath,
      );
    }
    this.attachUsage();
    s.reportUnknown();
  }

  /**
   * meta.json keeps the usage of the latest assistant sampling only. It belongs to the last
   * request when its time falls between the message before that request and the assistant
   * message the request produced; otherwise it is not placed (never guessed).
   */
  private attachUsage(): void {
    const meta = this.s.metaObj;
    const u = meta && isObj(meta.latest_assistant_sampling_usage) ? meta.latest_assistant_sampling_usage : null;
    if (!u) return;
    const usage = mapUsage(u);
    const last = this.lastAssistant;
    if (!usage || !last) return;
    const tu = timeOf(u.updated_at);
    const ta = timeOf(last.ts);
    const tp = last.prevTs === null ? null : timeOf(last.prevTs);
    if (tu !== null && ta !== null && tu <= ta && (tp === null || tp <= tu)) {
      this.s.emit({ kind: 'response', request: last.requestId, usage }, last.line);
      return;
    }
    this.report(
      'RIND_USAGE_UNPLACED',
      'info',
      `meta.json has the usage of the latest assistant sampling${typeof u.updated_at === 'string' ? ` (${u.updated_at})` : ''}, but its time does not fall between the last assistant message and the message before it; it is not attached to any request.`,
      [],
      null,
    );
  }
}
