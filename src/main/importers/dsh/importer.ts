import type { Severity } from '../../../shared/model/diagnostic';
import type { EventBody, EventOf } from '../../../shared/model/event';
import type { Item } from '../../../shared/model/item';
import type { JsonLine } from '../../reader/types';
import type { FileImport, ImportSink } from '../types';
import { mapSystem, mapTools } from './blocks';
import { CompactionTracker } from './compaction';
import { type DshEvent, decodeLine } from './decode';
import { ROLE, checkpointIdOf, itemId, originOf, readSurfaceOp, sourceOf, surfaceBlocks } from './items';
import { type Obj, isObj, nat, nats, oneLine, pos, str } from './json';
import { FORMAT_VERSION, KNOWN_TYPES, SURFACE_TYPES } from './known-types';
import type { Out } from './out';
import { prunedDerivation, resultCodePoints } from './prune';
import { RequestTracker, chunkOf } from './requests';
import { recordSummary } from './summaries';
import { shown } from '../shown';
import { jsonTextOf } from '../../../shared/json-depth';

/** Seqs cited by one aggregated diagnostic, at most. */
const MAX_CITED = 20;

interface UnknownCount {
  count: number;
  line: number;
  seqs: number[];
  /** First occurrence without `ignorable: true` (DSH readers must refuse such a log). */
  required: { line: number; dshSeq: number } | null;
}

/**
 * One DSH file → canonical events. Every decoded DSH event gets a DSH seq (the explicit `seq`, or
 * the running count in normalised snapshots) and maps to the canonical seq of the event that
 * stands for it, so `sourceEventSeqs` and surface references can be translated.
 */
export class DshFileImport implements FileImport {
  private cur: JsonLine = { value: {}, line: 0, offset: 0, length: 0 };
  private readonly out: Out;
  private readonly requests: RequestTracker;
  private readonly compactions: CompactionTracker;

  /** DSH seq → canonical seq. */
  private readonly canon = new Map<number, number>();
  /** The DSH seq the next event has when it does not say. */
  private nextDsh = 0;
  private seqProblems = 0;
  private firstSeqProblem: { line: number; seq: number; expected: number } | null = null;

  private sessionEmitted = false;
  private seedLength: number | undefined;
  private requestCount = 0;
  /** DSH seqs of messages that entered the surface. */
  private readonly surface = new Set<number>();
  /** Text size (code points) of each tool/result, for pruned copies. */
  private readonly resultSizes = new Map<number, number>();
  private lastSurfaceItem: string | null = null;
  private readonly notRecorded = new Set<string>();
  private readonly unknown = new Map<string, UnknownCount>();

  constructor(private readonly sink: ImportSink) {
    const current = (): JsonLine => this.cur;
    this.out = {
      emit: (event, from) => sink.emit(event, from ?? current()),
      report: (rule, severity, message, seqs, line) => this.report(rule, severity, message, seqs, line),
      nextRequestId: () => `req:${++this.requestCount}`,
      get line() {
        return current();
      },
    };
    this.requests = new RequestTracker(this.out);
    this.compactions = new CompactionTracker(this.out, this.requests, (s) => this.surface.has(s));
  }

  private report(rule: string, severity: Severity, message: string, seqs: number[] = [], line?: number | null): void {
    this.sink.diagnostic({ rule, severity, message, seqs, line: line === undefined ? this.cur.line : line });
  }

  private emit(event: EventBody): number {
    return this.sink.emit(event, this.cur);
  }

  line(l: JsonLine): void {
    this.cur = l;
    const d = decodeLine(l.value);
    if (d.kind === 'header') {
      this.header(d.header);
      return;
    }
    if (d.kind === 'stream') {
      this.ensureSession(d.sessionId);
      const output = str(d.value.output);
      const record: EventOf<'record'> = { kind: 'record', type: `stream-json/${d.type}` };
      if (output !== undefined) record.summary = oneLine(output);
      this.emit(record);
      return;
    }
    if (d.sessionId !== undefined) this.ensureSession(d.sessionId);
    if (d.problem !== undefined) {
      this.report(
        'DSH_BAD_RECORD',
        'error',
        `Line ${l.line}: ${d.problem}.${d.events.length === 0 ? ' The row is kept as one record; DSH seqs after it may be off.' : ''}`,
      );
    }
    if (d.events.length === 0) {
      const dshSeq = this.assignSeq(undefined);
      this.canon.set(dshSeq, this.emit({ kind: 'record', type: d.packedRow ?? '?', summary: 'malformed packed chunk row' }));
      return;
    }
    for (const ev of d.events) this.event(ev);
  }

  /** Headless stream-json output has no header line: its wrapper names the session. */
  private ensureSession(id: string | undefined): void {
    if (this.sessionEmitted || id === undefined) return;
    this.sessionEmitted = true;
    this.emit({ kind: 'session', id, harness: 'dsh' });
  }

  private header(h: Obj): void {
    if (this.sessionEmitted) {
      this.report(
        'DSH_SECOND_HEADER',
        'warning',
        `Line ${this.cur.line}: a second session header; it is kept as a record and the first one stands.`,
      );
      this.emit({ kind: 'record', type: 'session', summary: str(h.id) });
      return;
    }
    this.sessionEmitted = true;
    if (h.version !== FORMAT_VERSION) {
      this.report(
        'DSH_VERSION',
        'error',
        `Line ${this.cur.line}: the session header says version ${shown(h.version)}; DSH format version ${FORMAT_VERSION} is what this importer reads. Reading on as version ${FORMAT_VERSION}.`,
      );
    }
    let id = str(h.id);
    if (id === undefined) {
      this.report('DSH_BAD_RECORD', 'error', `Line ${this.cur.line}: the session header has no string "id".`);
      id = '';
    }
    const session: EventOf<'session'> = { kind: 'session', id, harness: 'dsh' };
    const cwd = str(h.cwd);
    if (cwd !== undefined) session.cwd = cwd;
    const createdAt = nat(h.createdAt);
    if (createdAt !== undefined) session.at = createdAt;
    const parent = str(h.parentSession);
    if (parent !== undefined) {
      // `seedLength` counts the parent's DSH events this log inherits. The canonical `parent.seq`
      // is a seq of the parent's *canonical* log, which this file cannot know when the header is
      // read; it is left out. The inherited prefix ends at this file's `lifecycle end-seed`
      // event: by construction the parent's canonical log starts with the same events.
      session.parent = { session: parent };
      const origin = str(h.origin);
      if (origin !== undefined) session.parent.origin = origin;
    }
    this.seedLength = nat(h.seedLength);
    this.emit(session);
  }

  /** The DSH seq of the next event: its own, or the running count. */
  private assignSeq(explicit: number | undefined): number {
    const expected = this.nextDsh;
    const seq = explicit ?? expected;
    if (seq !== expected) {
      this.seqProblems++;
      this.firstSeqProblem ??= { line: this.cur.line, seq, expected };
    }
    this.nextDsh = seq + 1;
    return seq;
  }

  private event(ev: DshEvent): void {
    const dshSeq = this.assignSeq(ev.seq);
    this.requests.beforeEvent(ev);
    const prune = this.compactions.takePrune();
    if (prune && ev.type !== 'tool/result') {
      this.report(
        'DSH_PRUNE_UNMATCHED',
        'warning',
        `The compaction/prune at line ${prune.line} is followed by ${ev.type || 'a record without type'}, not by the replacing tool/result.`,
        [],
        prune.line,
      );
    }
    const seq = this.map(ev, dshSeq, prune);
    this.canon.set(dshSeq, seq);
  }

  private record(ev: DshEvent, summary?: string): number {
    const r: EventOf<'record'> = { kind: 'record', type: ev.type };
    const s = summary ?? recordSummary(ev);
    if (s !== undefined) r.summary = s;
    if (ev.time !== undefined) r.at = ev.time;
    return this.emit(r);
  }

  /** A record with fields missing: reported, and kept as a record. */
  private bad(ev: DshEvent, problem: string): number {
    this.report('DSH_BAD_RECORD', 'error', `Line ${this.cur.line}: ${problem}. It is kept as a record.`);
    return this.record(ev, `malformed: ${problem}`);
  }

  private timed<T extends EventBody>(e: T, ev: DshEvent): T {
    if (ev.time !== undefined) e.at = ev.time;
    return e;
  }

  /** Emit the canonical events of one DSH event; returns the seq of the one that stands for it. */
  private map(ev: DshEvent, dshSeq: number, prune: { shadowedSeqs: readonly number[] } | null): number {
    const type = ev.type;
    if (type === '') {
      const u: EventOf<'unknown'> = { kind: 'unknown', type: '(no type)' };
      return this.emit(this.timed(u, ev));
    }
    if (!KNOWN_TYPES.has(type)) return this.unknownEvent(ev, dshSeq);
    if (type === 'assistant/chunk') {
      const chunk = chunkOf(ev);
      if (!chunk) return this.bad(ev, 'assistant/chunk has no "chunk" with a "type"');
      this.requests.beforeChunk(ev);
      const summary = recordSummary(ev);
      const seq = this.record(ev, ev.packed && summary !== undefined ? `${summary} (${ev.packed.row} row)` : summary);
      this.requests.afterChunk(ev, chunk);
      return seq;
    }
    if (SURFACE_TYPES.has(type)) return this.item(ev, dshSeq, prune);
    const d = isObj(ev.data) ? ev.data : undefined;
    if (!d) return this.bad(ev, `${type} has no "data" object`);
    switch (type) {
      case 'request/header':
        return this.requestHeader(ev, d);
      case 'request/context': {
        const route: NonNullable<EventOf<'header'>['route']> = {};
        const provider = str(d.provider);
        const model = str(d.model);
        const window = pos(d.contextWindow);
        if (provider !== undefined) route.provider = provider;
        if (model !== undefined) route.model = model;
        if (window !== undefined) route.window = window;
        return this.emit(this.timed({ kind: 'header', route }, ev));
      }
      case 'step/start':
        this.requests.stepStart();
        return this.record(ev);
      case 'compaction/start':
        return this.handled(ev, this.compactions.start(ev, d));
      case 'compaction/summary':
        return this.handled(ev, this.compactions.summary(ev, d));
      case 'compaction/summary-error':
        return this.handled(ev, this.compactions.summaryError(ev, d));
      case 'compaction/end':
        return this.handled(ev, this.compactions.end(ev, d));
      case 'compaction/prune': {
        const problem = this.compactions.notePrune(d);
        return problem === undefined ? this.record(ev) : this.bad(ev, problem);
      }
      case 'session/end-seed': {
        if (this.seedLength !== undefined && this.seedLength !== dshSeq) {
          this.report(
            'DSH_SEED_LENGTH',
            'info',
            `Line ${this.cur.line}: session/end-seed is DSH event ${dshSeq}, but the header's seedLength is ${this.seedLength} (a resumed log re-marks its seed; only a fork's first end-seed matches).`,
          );
        }
        return this.emit(this.timed({ kind: 'lifecycle', boundary: 'end-seed' }, ev));
      }
      case 'todo/write':
        return this.todo(ev, d);
      case 'turn/start':
      case 'turn/end': {
        // Turns are lifecycle boundaries: retry budgets and deferrals count in turns (cosh).
        const turn = typeof d.turn === 'number' && Number.isSafeInteger(d.turn) && d.turn >= 0 ? d.turn : undefined;
        const boundary = ev.type === 'turn/start' ? 'turn-start' : 'turn-end';
        return this.emit(this.timed(turn === undefined ? { kind: 'lifecycle', boundary } : { kind: 'lifecycle', boundary, turn }, ev));
      }
      default:
        return this.record(ev);
    }
  }

  private handled(ev: DshEvent, h: number | string): number {
    return typeof h === 'number' ? h : this.bad(ev, h);
  }

  private unknownEvent(ev: DshEvent, dshSeq: number): number {
    const seq = this.emit(this.timed({ kind: 'unknown', type: ev.type }, ev));
    let u = this.unknown.get(ev.type);
    if (!u) {
      u = { count: 0, line: this.cur.line, seqs: [], required: null };
      this.unknown.set(ev.type, u);
    }
    u.count++;
    if (u.seqs.length < MAX_CITED) u.seqs.push(seq);
    if (!ev.ignorable && u.required === null) u.required = { line: this.cur.line, dshSeq };
    return seq;
  }

  private requestHeader(ev: DshEvent, d: Obj): number {
    const h = d.header;
    if (!isObj(h)) return this.bad(ev, 'request/header has no "header" object');
    const notes: string[] = [];
    const header: EventOf<'header'> = { kind: 'header' };
    const system = mapSystem(h.system);
    if (system !== undefined) header.system = system;
    if (system === null) this.notRecordedOnce('system', h.system);
    header.tools = mapTools(h.tools, notes);
    if (header.tools === null) this.notRecordedOnce('tools', h.tools);
    const config = isObj(h.config) ? h.config : {};
    const route: NonNullable<EventOf<'header'>['route']> = {};
    const provider = str(config.provider);
    const model = str(config.model);
    const maxOutput = pos(config.maxTokens);
    if (provider !== undefined) route.provider = provider;
    if (model !== undefined) route.model = model;
    if (maxOutput !== undefined) route.maxOutput = maxOutput;
    header.route = route;
    this.contentNotes(notes);
    return this.emit(this.timed(header, ev));
  }

  private notRecordedOnce(field: string, raw: unknown): void {
    if (this.notRecorded.has(field)) return;
    this.notRecorded.add(field);
    const what =
      typeof raw === 'string' ? `the placeholder ${JSON.stringify(oneLine(raw, 40))}` : `a ${Array.isArray(raw) ? 'array' : typeof raw}`;
    this.report(
      'DSH_NOT_RECORDED',
      'info',
      `Line ${this.cur.line}: request/header carries ${what} instead of the ${field} (a normalised test snapshot); the ${field} ${field === 'tools' ? 'are' : 'is'} taken as not recorded.`,
    );
  }

  private contentNotes(notes: readonly string[]): void {
    if (notes.length === 0) return;
    const first = notes[0] ?? '';
    this.report(
      'DSH_BAD_CONTENT',
      'warning',
      `Line ${this.cur.line}: ${first}${notes.length > 1 ? ` (and ${notes.length - 1} more)` : ''}.`,
    );
  }

  private todo(ev: DshEvent, d: Obj): number {
    if (!Array.isArray(d.todos)) return this.bad(ev, 'todo/write has no "todos" array');
    const todos: { content: string; status: string }[] = [];
    for (const t of d.todos) {
      const content = isObj(t) ? str(t.content) : undefined;
      const status = isObj(t) ? str(t.status) : undefined;
      if (content === undefined || status === undefined) return this.bad(ev, 'a todo lacks a string "content" or "status"');
      todos.push({ content, status });
    }
    return this.emit(this.timed({ kind: 'todo', todos, after: this.lastSurfaceItem }, ev));
  }

  /** `sourceEventSeqs` → canonical seqs; references this file does not have are reported. */
  private sources(raw: unknown): { dsh: number[]; canonical: number[] } | undefined {
    if (raw === undefined) return undefined;
    const dsh = nats(raw);
    if (dsh === undefined) {
      this.report('DSH_BAD_REF', 'warning', `Line ${this.cur.line}: "sourceEventSeqs" is not an array of seqs; the sources are left out.`);
      return undefined;
    }
    const canonical: number[] = [];
    const missing: number[] = [];
    for (const s of dsh) {
      const c = this.canon.get(s);
      if (c === undefined) missing.push(s);
      else canonical.push(c);
    }
    if (missing.length > 0) {
      // The line may cite any number: the message names the first few and counts the rest.
      const more = missing.length - MAX_CITED;
      const cited = more > 0 ? `${missing.slice(0, MAX_CITED).join(', ')} and ${more} more` : missing.join(', ');
      this.report(
        'DSH_BAD_REF',
        'warning',
        `Line ${this.cur.line}: sourceEventSeqs cite${missing.length === 1 ? 's' : ''} DSH seq${missing.length === 1 ? '' : 's'} ${cited}, not among the events before it in this file.`,
      );
    }
    return { dsh, canonical };
  }

  private item(ev: DshEvent, dshSeq: number, prune: { shadowedSeqs: readonly number[] } | null): number {
    const notes: string[] = [];
    const blocks = surfaceBlocks(ev, notes);
    if (blocks === undefined) return this.bad(ev, `${ev.type} has no message content array`);
    this.contentNotes(notes);
    const id = itemId(dshSeq);
    const role = ROLE[ev.type] ?? 'user';
    const item: Item = { id, role, blocks };
    const source = sourceOf(ev);
    if (role === 'user' || role === 'system') {
      const origin = originOf(source);
      if (origin !== undefined) {
        item.origin = origin;
        // Context a plugin or the goal loop put in a user turn, not typed by the user.
        if (role === 'user') item.meta = true;
      }
    }

    const dop = readSurfaceOp(ev.surfaceOp);
    let op: EventOf<'item'>['op'];
    switch (dop.op) {
      case 'append':
        op = { op: 'append' };
        break;
      case 'replace': {
        const gone = [dop.start, dop.end].filter((s) => !this.surface.has(s));
        if (gone.length > 0) {
          this.report(
            'DSH_BAD_REF',
            'warning',
            `Line ${this.cur.line}: surfaceOp replace names seq ${gone.join(' and ')}, which ${gone.length === 1 ? 'is' : 'are'} no surface message of this file.`,
          );
        }
        op = { op: 'replace', from: itemId(dop.start), to: itemId(dop.end) };
        break;
      }
      case 'log':
        op = { op: 'log' };
        break;
      case 'invalid':
        this.report(
          'DSH_BAD_RECORD',
          'error',
          `Line ${this.cur.line}: ${ev.type} has a surfaceOp that is neither "append" nor {op:"replace", start, end}: ${jsonTextOf(ev.surfaceOp).slice(0, 80)}. The message is kept off the surface.`,
        );
        op = { op: 'log' };
        break;
    }

    const src = this.sources(ev.sourceEventSeqs);
    const compactionId = ev.type === 'user/message' ? checkpointIdOf(source) : undefined;
    if (compactionId !== undefined) {
      item.derivation = this.compactions.checkpoint(compactionId, src?.dsh);
    } else if (ev.type === 'tool/result' && prune && dop.op === 'replace') {
      const original = prune.shadowedSeqs[0] ?? dop.start;
      const shape = prunedDerivation(itemId(original), this.resultSizes.get(original), blocks);
      item.derivation = shape.derivation;
      if (shape.note !== undefined) this.report('DSH_PRUNE_SHAPE', 'info', `Line ${this.cur.line}: ${shape.note}.`);
    }

    const event: EventOf<'item'> = { kind: 'item', item, op };
    if (src) event.sources = src.canonical;
    const seq = this.emit(this.timed(event, ev));
    if (dop.op === 'append' || dop.op === 'replace') {
      this.surface.add(dshSeq);
      this.lastSurfaceItem = id;
    }
    if (ev.type === 'tool/result') this.resultSizes.set(dshSeq, resultCodePoints(blocks));
    return seq;
  }

  end(): void {
    this.requests.end();
    this.compactions.finish();
    const p = this.firstSeqProblem;
    if (p) {
      const n = this.seqProblems;
      this.report(
        'DSH_SEQ_GAP',
        'warning',
        `${n} event${n === 1 ? '' : 's'} carr${n === 1 ? 'ies' : 'y'} a seq that does not follow the one before (first at line ${p.line}: seq ${p.seq}, expected ${p.expected}). DSH seqs are contiguous; references are resolved by the seqs written.`,
        [],
        p.line,
      );
    }
    for (const [type, u] of this.unknown) {
      const tail = u.required
        ? ` At least one lacks "ignorable": true (first at line ${u.required.line}, DSH seq ${u.required.dshSeq}): DSH refuses to reconstruct such a log, so the model view past it may be incomplete.`
        : ' All are marked ignorable.';
      this.report(
        'UNKNOWN_RECORDS',
        'warning',
        `${u.count} record${u.count === 1 ? '' : 's'} of type "${type}", which DeepSeek Harness @ b150a551 does not define (first at line ${u.line}); kept as unknown events.${tail}`,
        u.seqs,
        u.line,
      );
    }
  }
}
