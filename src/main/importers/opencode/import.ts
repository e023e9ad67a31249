import type { Block } from '../../../shared/model/content';
import type { EventOf } from '../../../shared/model/event';
import type { JsonLine } from '../../reader/types';
import { id, obj, str, type Obj } from '../json';
import type { FileImport, ImportSink } from '../types';
import {
  assistantBlocks,
  callIdOf,
  CLEARED,
  COMPACTION_QUESTION,
  errorOf,
  finishOf,
  prunedAt,
  toolCall,
  toolResult,
  usageOf,
  userBlocks,
} from './parts';
import { summarizerShape } from './summarizer';

/**
 * Reads the records of one OpenCode session (rows.ts) into canonical events, as OpenCode builds
 * the model's messages (anomalyco/opencode packages/opencode/src/session/message-v2.ts,
 * `toModelMessages` and `filterCompacted`; compaction.ts):
 * - a user message is one user item; an assistant message is one request per step (a
 *   `step-start` part), its text, reasoning and tool calls one assistant item per step, each
 *   tool part's result a tool item, and the `step-finish` part's tokens the reported usage;
 * - a user message with a `compaction` part opens a compaction; the assistant message answering
 *   it with `summary: true` is the summarizer's call, and when it finished without an error the
 *   view becomes that question, the summary, the kept tail (from `tail_start_id`) and what
 *   follows; with an error, the compaction failed and the view is unchanged;
 * - a completed tool part with `state.time.compacted` was pruned: from that time the model sees
 *   "[Old tool result content cleared]" in its place (a mask);
 * - an assistant message that ended in an error is left out of later views, as OpenCode does
 *   (unless it was aborted after producing something).
 * The system prompt and the tool schemas are not recorded: the header says so.
 */

interface Live {
  readonly id: string;
  /** The OpenCode message the item belongs to. */
  readonly message: string;
  /** The event that created it. */
  readonly seq: number;
}

interface OpenCompaction {
  readonly id: string;
  readonly tail: string | undefined;
  readonly startSeq: number;
  readonly line: JsonLine;
}

interface Assistant {
  readonly info: Obj;
  readonly line: JsonLine;
  readonly summary: boolean;
  readonly compaction: OpenCompaction | null;
  step: number;
  /** The open request (id) and whether it has its response. */
  request: string | null;
  responded: boolean;
  item: string | null;
  items: string[];
  /** Whether some part other than step-start and reasoning was recorded (an aborted message keeps its place then). */
  produced: boolean;
  summaryText: string | null;
}

function keep(l: JsonLine): JsonLine {
  return { value: l.value, line: l.line, offset: l.offset, length: l.length };
}

export class OpenCodeImport implements FileImport {
  private readonly live: Live[] = [];
  private user: { id: string; line: JsonLine; placed: boolean } | null = null;
  private assistant: Assistant | null = null;
  private readonly compactions = new Map<string, OpenCompaction>();
  private readonly masks: { at: number; item: string; callId: string; line: JsonLine }[] = [];
  private bad = 0;
  private firstBad: number | null = null;
  private sessionSeen = false;
  /** The OpenCode version that wrote the session (how its summarizer call is built depends on it). */
  private version: string | undefined;
  /** Items masked so far (pruned tool outputs). */
  private readonly masked = new Set<string>();

  constructor(private readonly sink: ImportSink) {}

  line(l: JsonLine): void {
    const v = l.value;
    switch (v.opencode) {
      case 'session':
        return this.session(l);
      case 'message':
        return this.message(l);
      case 'part':
        return this.part(l);
      case 'bad':
        return this.badRow(l, str(v.from) ?? '?', str(v.error) ?? 'unreadable');
      default:
        this.sink.emit({ kind: 'unknown', type: typeof v.opencode === 'string' ? v.opencode : '(no record type)' }, l);
    }
  }

  private badRow(l: JsonLine, from: string, error: string): void {
    this.bad++;
    this.firstBad ??= l.line;
    this.sink.diagnostic({ rule: 'OPENCODE_BAD_ROW', severity: 'warning', message: `${from}: ${error}; skipped.`, line: l.line, seqs: [] });
  }

  private session(l: JsonLine): void {
    const info = obj(l.value.info) ?? {};
    this.sessionSeen = true;
    const e: EventOf<'session'> = { kind: 'session', id: str(info.id) ?? '', harness: 'opencode' };
    const version = str(info.version);
    if (version) e.harnessVersion = version;
    this.version = version;
    const title = str(info.title);
    if (title) e.title = title;
    const cwd = str(info.directory);
    if (cwd) e.cwd = cwd;
    if (typeof info.created === 'number') e.at = info.created;
    this.sink.emit(e, l);
    // The system prompt OpenCode builds (provider prompt, environment, instructions) and the tool schemas are not recorded.
    this.sink.emit({ kind: 'header', system: null, tools: null, reason: 'opencode session' }, l);
  }

  private message(l: JsonLine): void {
    this.closeMessage();
    const info = obj(l.value.info) ?? {};
    const mid = str(l.value.id) ?? str(info.id) ?? `line-${l.line}`;
    if (info.role === 'user') {
      this.user = { id: mid, line: keep(l), placed: false };
      return;
    }
    if (info.role !== 'assistant') {
      this.sink.emit({ kind: 'unknown', type: `message/${str(info.role) ?? '(no role)'}` }, l);
      return;
    }
    const summary = info.summary === true;
    const parent = str(info.parentID);
    this.assistant = {
      info,
      line: keep(l),
      summary,
      compaction: summary && parent ? (this.compactions.get(parent) ?? null) : null,
      step: 0,
      request: null,
      responded: false,
      item: null,
      items: [],
      produced: false,
      summaryText: null,
    };
  }

  private timeOf(info: Obj): number | null {
    const t = obj(info.time)?.created;
    return typeof t === 'number' ? t : null;
  }

  /** Masks of outputs pruned before `at` (all of them when null) take effect now. */
  private flushMasks(at: number | null): void {
    this.masks.sort((a, b) => a.at - b.at);
    while (this.masks.length > 0 && (at === null || (this.masks[0]?.at ?? Infinity) <= at)) {
      const m = this.masks.shift() as { at: number; item: string; callId: string; line: JsonLine };
      if (!this.live.some((x) => x.id === m.item)) continue;
      this.masked.add(m.item);
      // The result stays a result of its call; only its content is the marker (toModelMessages).
      const reference: Block[] = [{ type: 'tool_result', callId: m.callId, content: [{ type: 'text', text: CLEARED }] }];
      this.sink.emit({ kind: 'mask', items: [m.item], masked: true, by: 'harness', reference, at: m.at }, m.line);
    }
  }

  private startRequest(a: Assistant, l: JsonLine): void {
    this.respond(a);
    a.step++;
    this.flushMasks(this.timeOf(a.info));
    const rid = `${str(a.info.id) ?? ''}#${a.step}`;
    const e: EventOf<'request'> = { kind: 'request', id: rid, purpose: a.summary ? 'compaction' : 'agent' };
    if (a.compaction) e.compactionId = a.compaction.id;
    if (a.summary && a.step === 1) {
      const input = this.summarizerInput(a.compaction);
      if (input) e.input = input;
    }
    const provider = str(a.info.providerID);
    const model = str(a.info.modelID);
    if (provider || model) e.route = { ...(provider ? { provider } : {}), ...(model ? { model } : {}) };
    const at = this.timeOf(a.info);
    if (at !== null) e.at = at;
    this.sink.emit(e, l);
    a.request = rid;
    a.responded = false;
    a.item = null;
  }

  /**
   * What the summarizer call sent, where the log can say it (summarizer.ts): the model's messages
   * (without the compaction's own user message from 1.14), then OpenCode's compaction prompt,
   * which is not recorded (instruction null); from 1.18 nothing of it is recorded but that it
   * exists (no items). Left to the surface (undefined) when a pruned output is among the items,
   * whose mask an input list would not show.
   */
  private summarizerInput(compaction: OpenCompaction | null): { items: string[]; instruction: null } | undefined {
    const shape = summarizerShape(this.version);
    if (shape === 'transcript') return { items: [], instruction: null };
    const items = this.live.map((x) => x.id).filter((i) => shape === 'history' || i !== compaction?.id);
    return items.some((i) => this.masked.has(i)) ? undefined : { items, instruction: null };
  }

  /** The response of the open request: the step's own tokens, or (`usage` absent) the message's. */
  private respond(a: Assistant, usagePart?: Obj, l?: JsonLine): void {
    if (!a.request || a.responded) return;
    a.responded = true;
    const e: EventOf<'response'> = { kind: 'response', request: a.request };
    const finish = finishOf(usagePart ? usagePart.reason : a.info.finish);
    if (finish) e.finish = finish;
    const usage = usageOf(usagePart ? usagePart.tokens : a.info.tokens);
    if (usage) e.usage = usage;
    if (!usagePart) {
      const error = errorOf(a.info.error);
      if (error) e.error = error;
    }
    this.sink.emit(e, l ?? a.line);
  }

  private placeUser(): { op: 'append' | 'extend' } {
    const u = this.user as { id: string; line: JsonLine; placed: boolean };
    if (u.placed) return { op: 'extend' };
    u.placed = true;
    return { op: 'append' };
  }

  private part(l: JsonLine): void {
    const part = obj(l.value.part) ?? {};
    const mid = str(l.value.messageID);
    if (this.user && this.user.id === mid) return this.userPart(part, l);
    if (this.assistant && str(this.assistant.info.id) === mid) return this.assistantPart(this.assistant, part, l);
    this.badRow(l, str(l.value.from) ?? '?', `its message ${mid ?? '(none)'} was not read before it`);
  }

  private userPart(part: Obj, l: JsonLine): void {
    const u = this.user as { id: string; line: JsonLine; placed: boolean };
    if (part.type === 'compaction') {
      const trigger = part.overflow === true ? 'overflow' : part.auto === true ? 'auto' : 'manual';
      const start: EventOf<'compaction/start'> = { kind: 'compaction/start', id: u.id, trigger, source: this.live.map((x) => x.id) };
      const startSeq = this.sink.emit(start, l);
      this.compactions.set(u.id, { id: u.id, tail: id(part.tail_start_id), startSeq, line: keep(l) });
    }
    const blocks = userBlocks(part);
    if (!blocks) {
      this.sink.emit({ kind: 'record', type: `part/${str(part.type) ?? '?'}`, summary: 'not shown to the model' }, l);
      return;
    }
    const synthetic = part.synthetic === true || part.type === 'compaction' || part.type === 'subtask';
    const e: EventOf<'item'> = {
      kind: 'item',
      item: {
        id: u.id,
        role: 'user',
        blocks,
        ...(synthetic ? { meta: true } : {}),
        ...(part.type === 'compaction' ? { origin: 'compaction' } : {}),
      },
      op: this.placeUser(),
    };
    const seq = this.sink.emit(e, l);
    if (e.op?.op === 'append') this.live.push({ id: u.id, message: u.id, seq });
  }

  private assistantPart(a: Assistant, part: Obj, l: JsonLine): void {
    const type = str(part.type) ?? '?';
    if (type !== 'step-start' && type !== 'reasoning') a.produced = true;
    if (type === 'step-start') return this.startRequest(a, l);
    if (!a.request) this.startRequest(a, l);
    if (type === 'step-finish') return this.respond(a, part, l);
    if (a.summary) return this.summaryPart(a, part, l);
    const blocks = assistantBlocks(part);
    if (blocks) return this.assistantItem(a, blocks, l);
    if (type === 'tool') {
      this.assistantItem(a, [toolCall(part)], l);
      const rid = `${str(part.id) ?? callIdOf(part)}:result`;
      const seq = this.sink.emit({ kind: 'item', item: { id: rid, role: 'tool', blocks: [toolResult(part)] }, op: { op: 'append' } }, l);
      this.live.push({ id: rid, message: str(a.info.id) ?? '', seq });
      a.items.push(rid);
      const pruned = prunedAt(part);
      if (pruned !== null) this.masks.push({ at: pruned, item: rid, callId: callIdOf(part), line: keep(l) });
      return;
    }
    this.sink.emit({ kind: 'record', type: `part/${type}`, summary: 'not shown to the model' }, l);
  }

  private assistantItem(a: Assistant, blocks: Block[], l: JsonLine): void {
    const first = a.item === null;
    const iid = a.item ?? `${str(a.info.id) ?? ''}#${a.step}`;
    a.item = iid;
    const seq = this.sink.emit({ kind: 'item', item: { id: iid, role: 'assistant', blocks }, op: { op: first ? 'append' : 'extend' } }, l);
    if (first) {
      this.live.push({ id: iid, message: str(a.info.id) ?? '', seq });
      a.items.push(iid);
    }
  }

  /** A part of the summarizer's answer: a text part is (part of) the summary. */
  private summaryPart(a: Assistant, part: Obj, l: JsonLine): void {
    if (part.type !== 'text') {
      this.sink.emit({ kind: 'record', type: `part/${str(part.type) ?? '?'}`, summary: 'part of the compaction summary message' }, l);
      return;
    }
    const text = str(part.text) ?? '';
    const ok = a.info.error === undefined && str(a.info.finish) !== undefined;
    if (!ok) {
      this.sink.emit({ kind: 'record', type: 'part/text', summary: 'text of a compaction summary that did not complete' }, l);
      return;
    }
    const cid = a.compaction?.id ?? str(a.info.id) ?? '';
    if (a.summaryText !== null) {
      a.summaryText += text;
      this.sink.emit(
        { kind: 'item', item: { id: `${cid}:summary`, role: 'assistant', blocks: [{ type: 'text', text }] }, op: { op: 'extend' } },
        l,
      );
      return;
    }
    a.summaryText = text;
    this.commit(a, cid, text, l);
  }

  private commit(a: Assistant, cid: string, text: string, l: JsonLine): void {
    const c = a.compaction;
    const startSeq = c
      ? c.startSeq
      : this.sink.emit({ kind: 'compaction/start', id: cid, trigger: 'unknown', source: this.live.map((x) => x.id) }, a.line);
    const summary: EventOf<'compaction/summary'> = { kind: 'compaction/summary', id: cid, summary: [{ type: 'text', text }] };
    if (a.request) summary.request = a.request;
    const summarySeq = this.sink.emit(summary, l);
    // The question of the compaction's user message stays first; the tail runs from tail_start_id to it.
    const questionAt = c ? this.live.findIndex((x) => x.id === c.id) : this.live.length;
    const before = this.live.slice(0, questionAt < 0 ? this.live.length : questionAt);
    const tailAt = c?.tail ? before.findIndex((x) => x.message === c.tail) : -1;
    const head = tailAt >= 0 ? before.slice(0, tailAt) : before;
    const tail = tailAt >= 0 ? before.slice(tailAt) : [];
    const covered = [...head, ...(c && questionAt >= 0 ? [this.live[questionAt] as Live] : [])];
    const covers = covered.map((x) => x.id);
    const sources = [startSeq, summarySeq, ...covered.map((x) => x.seq)];
    const firstTail = tail[0];
    let questionSeq = -1;
    if (c) {
      const question: EventOf<'item'> = {
        kind: 'item',
        item: {
          id: `${cid}:question`,
          role: 'user',
          blocks: [{ type: 'text', text: COMPACTION_QUESTION }],
          meta: true,
          origin: 'compaction',
          derivation: { kind: 'checkpoint', compactionId: cid, covers, part: 'continuation' },
        },
        op:
          head.length > 0
            ? { op: 'replace', from: (head[0] as Live).id, to: (head[head.length - 1] as Live).id }
            : firstTail
              ? { op: 'insert', before: firstTail.id }
              : { op: 'append' },
        sources,
      };
      questionSeq = this.sink.emit(question, l);
    }
    const handoff: EventOf<'item'> = {
      kind: 'item',
      item: {
        id: `${cid}:summary`,
        role: 'assistant',
        blocks: [{ type: 'text', text }],
        origin: 'summary',
        derivation: { kind: 'checkpoint', compactionId: cid, covers, part: c ? 'handoff' : 'summary' },
      },
      op: firstTail ? { op: 'insert', before: firstTail.id } : { op: 'append' },
      sources,
    };
    const handoffSeq = this.sink.emit(handoff, l);
    const after = this.live.slice(questionAt < 0 ? this.live.length : questionAt + 1);
    this.live.length = 0;
    if (c) this.live.push({ id: `${cid}:question`, message: c.id, seq: questionSeq });
    this.live.push({ id: `${cid}:summary`, message: str(a.info.id) ?? '', seq: handoffSeq }, ...tail, ...after);
    this.sink.emit({ kind: 'compaction/end', id: cid, outcome: 'committed' }, l);
    if (c) this.compactions.delete(c.id);
  }

  /** The message ended: its last response, a failed compaction, or an errored answer left out of later views. */
  private closeMessage(): void {
    this.user = null;
    const a = this.assistant;
    this.assistant = null;
    if (!a) return;
    if (!a.request) this.startRequest(a, a.line);
    this.respond(a);
    if (a.summary && a.summaryText === null) {
      const cid = a.compaction?.id ?? str(a.info.id) ?? '';
      const error = errorOf(a.info.error) ?? { message: 'the summary message recorded no summary text' };
      if (!a.compaction)
        this.sink.emit({ kind: 'compaction/start', id: cid, trigger: 'unknown', source: this.live.map((x) => x.id) }, a.line);
      this.sink.emit({ kind: 'compaction/summary-error', id: cid, error }, a.line);
      this.sink.emit({ kind: 'compaction/end', id: cid, outcome: 'failed', error }, a.line);
      if (a.compaction) this.compactions.delete(a.compaction.id);
      return;
    }
    const err = obj(a.info.error);
    const aborted = str(err?.name) === 'MessageAbortedError';
    if (err && !(aborted && a.produced) && a.items.length > 0) {
      const gone = new Set(a.items);
      this.sink.emit({ kind: 'drop', items: a.items, reason: 'other' }, a.line);
      for (let i = this.live.length - 1; i >= 0; i--) if (gone.has((this.live[i] as Live).id)) this.live.splice(i, 1);
    }
  }

  end(): void {
    this.closeMessage();
    this.flushMasks(null);
    for (const c of this.compactions.values()) {
      const error = { message: 'no summary message answers this compaction request' };
      this.sink.emit({ kind: 'compaction/end', id: c.id, outcome: 'failed', error }, c.line);
    }
    if (!this.sessionSeen) {
      this.sink.diagnostic({
        rule: 'OPENCODE_NO_SESSION',
        severity: 'warning',
        message: 'The copy has no session record; the session id, title and version are unknown.',
        line: null,
        seqs: [],
      });
    }
    if (this.bad > 1) {
      this.sink.diagnostic({
        rule: 'OPENCODE_BAD_ROW',
        severity: 'warning',
        message: `${this.bad} rows or files of this session could not be read and were skipped (first at line ${this.firstBad ?? '?'}).`,
        line: this.firstBad,
        seqs: [],
      });
    }
  }
}
