import type { Block } from '../../../shared/model/content';
import type { EventOf } from '../../../shared/model/event';
import type { Item } from '../../../shared/model/item';
import type { JsonLine } from '../../reader/types';
import { type Obj, isObj, nat as natural } from '../json';
import type { FileImport, ImportSink } from '../types';
import { type SetEvidence, classifySet, isMaskedOutput, isTruncatedOutput, truncationOf } from './evidence';
import { COMPRESSION_ACK, RESPONSE_SUFFIX, type TargetItem, isResponseTurn, itemsOf, itemsOfList } from './history';
import { type GeminiMessage, MESSAGE_TYPES, isMetadata, listMessages, readMessage, setMessages, textOf, usageOf } from './records';
import { sessionIdFromPath, parentFromPath } from './paths';
import { GEMINI_CONTEXT_UNRECORDED } from '../../dialects/gemini-unrecorded';
import { geminiStubSessionId } from '../../dialects/gemini-stub';
import { UnloggedCompression } from './unlogged';

/**
 * One Gemini CLI session file, JSONL or a legacy whole `.json`, read into canonical events. The
 * recorder's list of messages is kept as the CLI keeps it (a message written again under the same
 * id replaces the earlier one in place), and every change to it becomes the change of the surface
 * it makes: new items appended, an item that reads differently replaced by a new version, items
 * gone dropped. A gemini message written by the model opens a request (the view before it is what
 * that call was sent, as far as the log knows); its `tokens` are that request's usage.
 */

/**
 * What the log does not record, named in the view's unknowns (the system instruction, the core
 * prompt with the GEMINI.md memory, and the tool declarations are the header's nulls).
 */
const UNRECORDED = [
  GEMINI_CONTEXT_UNRECORDED,
  'Requests the CLI makes besides the agent turns (compression summary and its verification, next-speaker checks, loop detection) are not recorded.',
];

/**
 * Before v0.44 a compression left nothing in the file, so a view after one would show more than
 * was sent. Only v0.44 and later write the whole list back (`$set` of `messages`): until a file
 * shows one, the view says so; from the first one on, compressions are in the file.
 */
const COMPRESSION_UNRECORDED =
  'Gemini CLI before 0.44 compressed the history without writing it to the file: if this chat was compressed, the model was sent less than these messages (a summary in place of the older ones).';
/** The same for the rules that reason about compactions (HeaderEvent.compactionUnlogged). */
const COMPRESSION_UNLOGGED = 'Gemini CLI before 0.44 writes no compression into the file, whether it succeeds or fails';

/** The header a chat opens with, main or subagent: nothing of the request envelope is recorded. */
function openingHeader(): EventOf<'header'> {
  return {
    kind: 'header',
    system: null,
    tools: null,
    unrecorded: [...UNRECORDED, COMPRESSION_UNRECORDED],
    compactionUnlogged: COMPRESSION_UNLOGGED,
  };
}

/** A subagent's chat read as a branch of its parent's session (./session.ts). */
export interface GeminiBranch {
  readonly key: string;
  readonly label: string;
  /** The parent's event the branch hangs off. */
  readonly parentSeq: number;
}

/** A `--resume` stub holds a metadata line and one or two context writes: more records, and it is not one. */
const STUB_RECORDS = 4;

interface Live {
  readonly key: string;
  readonly msgId: string;
  canon: string;
  fp: string;
  /** The seq of the item event that put this version on the surface. */
  seq: number;
}

export class GeminiFileImport implements FileImport {
  private readonly msgs = new Map<string, GeminiMessage>();
  private live: Live[] = [];
  private readonly logged = new Map<string, string>();
  private readonly versions = new Map<string, number>();
  private readonly firstSeq = new Map<string, number>();
  private readonly requestOf = new Map<string, { id: string; usage: boolean }>();
  private readonly compressedBy = new Set<string>();
  private started = false;
  /** Whether a `$set` of `messages` was seen: the file is v0.44 or later, compressions are in it. */
  private listWritten = false;
  private requests = 0;
  private compactions = 0;
  private lastMutation = -1;
  private model: string | null = null;
  /** `tokens.input` of the latest response: the CLI's `lastPromptTokenCount`, which its compression compares. */
  private lastPrompt: number | null = null;
  /** A compression the file would not show (before 0.44), named on the requests it may have changed. */
  private readonly unlogged = new UnloggedCompression();

  /** The first records while the file may still be a `--resume` stub (../../dialects/gemini-stub.ts); null once it cannot. */
  private head: Record<string, unknown>[] | null = [];

  constructor(
    private readonly sink: ImportSink,
    private readonly path: string,
    private readonly branch?: GeminiBranch,
  ) {}

  line(l: JsonLine): void {
    const v = l.value;
    if (this.head !== null) this.head = this.head.length < STUB_RECORDS ? [...this.head, v] : null;
    if ('$rewindTo' in v) return this.rewind(v.$rewindTo, l);
    if ('$set' in v) return this.set(v, l);
    if (isMetadata(v)) return this.metadata(v, l);
    const m = readMessage(v);
    if (m && MESSAGE_TYPES.has(m.type)) {
      this.start(l, null);
      return this.upsert(m, l);
    }
    this.start(l, null);
    const type = m ? `message:${m.type}` : typeof v.type === 'string' ? v.type : Object.keys(v).slice(0, 3).join(',') || '(empty)';
    this.sink.emit({ kind: 'unknown', type }, l);
  }

  /** Nothing is left open at the end of a file; unknown records are reported by the catalog (UNKNOWN_RECORDS). */
  end(): void {
    const id = this.head === null ? null : geminiStubSessionId(this.head);
    if (id === null) return;
    this.sink.diagnostic({
      rule: 'GEMINI_RESUME_STUB',
      severity: 'info',
      message: `This file holds only the metadata line (and perhaps the opening context), no prompt. Gemini CLI (0.41, 0.61) opens such a file under the resumed session's id when resuming (${id}) and appends the turn to that session's first file, session-*-${id.slice(0, 8)}.json(l) in this folder: the conversation is there. Without such a file beside it, this is a chat that has not had its first prompt.`,
      line: null,
      seqs: [],
    });
  }

  /** Request and compaction ids are the session's: a subagent's carry its branch. */
  private get idPrefix(): string {
    return this.branch ? `${this.branch.key}:` : '';
  }

  // -------------------------------------------------------------------------------------------
  // records
  // -------------------------------------------------------------------------------------------

  private start(l: JsonLine, meta: Obj | null): void {
    if (this.started) return;
    this.started = true;
    if (this.branch) {
      const b = this.branch;
      this.sink.emit({ kind: 'fork', parent: { seq: b.parentSeq }, label: b.label, inherit: false }, l);
      this.sink.emit(openingHeader(), l);
      return;
    }
    const session: EventOf<'session'> = {
      kind: 'session',
      id: meta && typeof meta.sessionId === 'string' ? meta.sessionId : sessionIdFromPath(this.path),
      harness: 'gemini-cli',
    };
    if (meta && typeof meta.startTime === 'string') session.at = meta.startTime;
    if (meta && typeof meta.summary === 'string' && meta.summary !== '') session.title = meta.summary;
    const parent = parentFromPath(this.path);
    if (parent !== null && (meta === null || meta.kind === 'subagent' || meta.kind === undefined))
      session.parent = { session: parent, origin: 'subagent' };
    this.sink.emit(session, l);
    this.sink.emit(openingHeader(), l);
  }

  private metadata(v: Obj, l: JsonLine): void {
    const first = !this.started;
    this.start(l, v);
    if (!first) {
      // Agent mode writes a metadata line at every restart into the same file.
      this.sink.emit({ kind: 'lifecycle', boundary: 'process-start' }, l);
    }
    if (Array.isArray(v.messages)) for (const raw of v.messages) this.fromList(raw, l);
  }

  /** A message of a whole legacy record, appended as the recorder loads it. */
  private fromList(raw: unknown, l: JsonLine): void {
    const m = readMessage(raw);
    if (!m || !MESSAGE_TYPES.has(m.type)) {
      this.sink.diagnostic({
        rule: 'GEMINI_BAD_MESSAGE',
        severity: 'warning',
        message: `Line ${l.line}: an entry of the messages list is not a message Gemini CLI records (no id or an unknown type); it is skipped.`,
        line: l.line,
        seqs: [],
      });
      return;
    }
    this.upsert(m, l);
  }

  private set(v: Obj, l: JsonLine): void {
    this.start(l, null);
    const list = setMessages(v);
    const keys = isObj(v.$set) ? Object.keys(v.$set).filter((k) => k !== 'messages') : [];
    if (keys.length > 0) this.sink.emit({ kind: 'record', type: '$set', summary: keys.join(', ') }, l);
    if (list === null) {
      if (keys.length === 0) this.sink.emit({ kind: 'record', type: '$set', summary: '(nothing)' }, l);
      return;
    }
    if (!this.listWritten) {
      this.listWritten = true;
      this.sink.emit({ kind: 'header', unrecorded: UNRECORDED, compactionUnlogged: null }, l);
    }
    const parsed = listMessages(list);
    if (parsed.length < list.length)
      this.sink.diagnostic({
        rule: 'GEMINI_BAD_MESSAGE',
        severity: 'warning',
        message: `Line ${l.line}: ${list.length - parsed.length} entr${list.length - parsed.length === 1 ? 'y' : 'ies'} of the $set messages list ${list.length - parsed.length === 1 ? 'is' : 'are'} not a message Gemini CLI records (no id or an unknown type); skipped.`,
        line: l.line,
        seqs: [],
      });
    const targets = itemsOfList(parsed);
    const before = new Map(this.live.map((x) => [x.key, x.fp]));
    const ev = classifySet(parsed, targets, before, (id) => this.compressedBy.has(id));
    this.msgs.clear();
    for (const m of parsed) this.msgs.set(m.id, m);
    this.applyList(targets, ev, l);
  }

  private upsert(m: GeminiMessage, l: JsonLine): void {
    const existed = this.msgs.has(m.id);
    this.msgs.set(m.id, m);
    if (!this.firstSeq.has(m.id)) this.firstSeq.set(m.id, this.sink.nextSeq);
    if (m.type === 'gemini') this.noteModel(m, l);
    if (m.type === 'gemini' && !existed && !this.synthetic(m)) {
      const id = `${this.idPrefix}req-${++this.requests}`;
      this.requestOf.set(m.id, { id, usage: false });
      const unlogged = this.unlogged.beforeRequest(this.listWritten);
      this.sink.emit({ kind: 'request', id, purpose: 'agent', ...(unlogged ? { unlogged } : {}) }, l);
    }
    this.syncMessage(m, l);
    const req = this.requestOf.get(m.id);
    if (req && !req.usage) {
      const usage = usageOf(m.value.tokens);
      if (usage) {
        req.usage = true;
        const prompt = usage.context !== undefined ? nat(m.value.tokens, 'input') : undefined;
        if (prompt !== undefined) {
          this.lastPrompt = prompt;
          this.unlogged.noteUsage(
            prompt,
            typeof m.value.model === 'string' && m.value.model !== '' ? m.value.model : this.model,
            req.id,
            m.id,
          );
        }
        this.sink.emit({ kind: 'response', request: req.id, usage }, l);
      }
    }
  }

  /** A gemini turn the CLI wrote itself (a compression's acknowledgement): no model call made it. */
  private synthetic(m: GeminiMessage): boolean {
    return typeof m.value.model !== 'string' && m.value.tokens == null && textOf(m.value.content).trim() === COMPRESSION_ACK;
  }

  private noteModel(m: GeminiMessage, l: JsonLine): void {
    const model = typeof m.value.model === 'string' && m.value.model !== '' ? m.value.model : null;
    if (model === null || model === this.model) return;
    this.model = model;
    this.sink.emit({ kind: 'header', route: { provider: 'gemini', model } }, l);
  }

  private rewind(to: unknown, l: JsonLine): void {
    this.start(l, null);
    const id = typeof to === 'string' ? to : '';
    const order = [...this.msgs.keys()];
    const at = order.indexOf(id);
    const removed = at < 0 ? order : order.slice(at);
    const gone = new Set(removed);
    const first = at < 0 ? undefined : this.firstSeq.get(id);
    for (const r of removed) this.msgs.delete(r);
    if (at < 0)
      this.sink.diagnostic({
        rule: 'GEMINI_REWIND_UNKNOWN',
        severity: 'warning',
        message: `Line ${l.line}: a rewind names message ${JSON.stringify(id)}, which is not in the list; Gemini CLI then empties the whole list, and so does this view.`,
        line: l.line,
        seqs: [],
      });
    if (first !== undefined && first > 0 && this.lastMutation <= first) {
      // Nothing but appends since the message first appeared: the view before it is a point of the
      // log, and the rewind is a branch back to it (the abandoned turns stay in the raw history).
      const target: { branch?: string; seq: number } = { seq: first - 1 };
      if (this.branch) target.branch = this.branch.key;
      this.sink.emit({ kind: 'revert', target, label: `rewind to before message ${id}` }, l);
      this.live = this.live.filter((x) => !gone.has(x.msgId));
      for (const r of removed) this.firstSeq.delete(r);
      return;
    }
    const dropped = this.live.filter((x) => gone.has(x.msgId));
    this.live = this.live.filter((x) => !gone.has(x.msgId));
    for (const r of removed) this.firstSeq.delete(r);
    if (dropped.length > 0)
      this.drop(
        dropped.map((x) => x.canon),
        'other',
        l,
      );
  }

  // -------------------------------------------------------------------------------------------
  // the surface
  // -------------------------------------------------------------------------------------------

  private canonOf(key: string): string {
    const n = (this.versions.get(key) ?? 0) + 1;
    this.versions.set(key, n);
    return n === 1 ? key : `${key}~${n}`;
  }

  private emitItem(
    t: TargetItem,
    op: EventOf<'item'>['op'],
    l: JsonLine,
    extra?: Partial<Item>,
    sources?: number[],
  ): { canon: string; seq: number } {
    const canon = this.canonOf(t.key);
    const item: Item = { id: canon, ...t.item, ...extra };
    const e: EventOf<'item'> = { kind: 'item', item, op };
    if (sources && sources.length > 0) e.sources = sources;
    const at = this.msgs.get(t.msgId)?.timestamp;
    if (at !== undefined) e.at = at;
    const seq = this.sink.emit(e, l);
    if (op.op !== 'append' && op.op !== 'log') this.lastMutation = this.sink.nextSeq;
    return { canon, seq };
  }

  private drop(items: string[], reason: 'other', l: JsonLine): void {
    if (items.length === 0) return;
    this.sink.emit({ kind: 'drop', items, reason }, l);
    this.lastMutation = this.sink.nextSeq;
  }

  private emitLogged(t: TargetItem, l: JsonLine): void {
    if (this.logged.get(t.key) === t.fp) return;
    this.logged.set(t.key, t.fp);
    this.emitItem(t, { op: 'log' }, l);
  }

  /** One message changed or arrived: bring its items on the surface up to what it now says. */
  private syncMessage(m: GeminiMessage, l: JsonLine): void {
    const targets = this.answering(m) ?? itemsOf(m, (id) => this.msgs.has(id));
    const wanted = new Set(targets.map((t) => t.key));
    const stale = this.live.filter((x) => x.msgId === m.id && !wanted.has(x.key));
    if (stale.length > 0) {
      const s = new Set(stale);
      this.live = this.live.filter((x) => !s.has(x));
      this.drop(
        stale.map((x) => x.canon),
        'other',
        l,
      );
    }
    for (const t of targets) {
      if (t.log) {
        this.emitLogged(t, l);
        continue;
      }
      const i = this.live.findIndex((x) => x.key === t.key);
      if (i >= 0) {
        const cur = this.live[i] as Live;
        if (cur.fp === t.fp) continue;
        if (isMaskedOutput(t)) {
          // v0.40 – v0.43 write a masked output back by writing its gemini message again.
          this.sink.emit({ kind: 'mask', items: [cur.canon], masked: true, by: 'harness', reference: referenceOf(t.item.blocks) }, l);
          this.lastMutation = this.sink.nextSeq;
          cur.fp = t.fp;
          continue;
        }
        const v = this.emitItem(t, { op: 'replace', from: cur.canon, to: cur.canon }, l);
        cur.canon = v.canon;
        cur.seq = v.seq;
        cur.fp = t.fp;
        continue;
      }
      // After the message's own items, or at the end for a new message.
      let last = -1;
      for (let j = this.live.length - 1; j >= 0; j--)
        if ((this.live[j] as Live).msgId === m.id) {
          last = j;
          break;
        }
      const next = last >= 0 ? this.live[last + 1] : undefined;
      const v = this.emitItem(t, next ? { op: 'insert', before: next.canon } : { op: 'append' }, l);
      const entry: Live = { key: t.key, msgId: m.id, canon: v.canon, fp: t.fp, seq: v.seq };
      if (next) this.live.splice(last + 1, 0, entry);
      else this.live.push(entry);
    }
  }

  /**
   * A user message of function responses right after a gemini message: the results of that
   * message's calls, which its `toolCalls` already gave (0.61 records both, the wire sends them
   * once). It takes the key `<id>_response` the results have, as in a list written back whole
   * (`itemsOfList`); null when `m` is not such a message.
   */
  private answering(m: GeminiMessage): TargetItem[] | null {
    if (!isResponseTurn(m)) return null;
    const order = [...this.msgs.keys()];
    const prev = this.msgs.get(order[order.indexOf(m.id) - 1] ?? '');
    if (prev?.type !== 'gemini') return null;
    return itemsOf(m, () => false).map((t) => ({ ...t, key: `${prev.id}${RESPONSE_SUFFIX}` }));
  }

  /** The whole list was written back: drop, replace, mask and insert until the surface reads as it does. */
  private applyList(targets: readonly TargetItem[], ev: SetEvidence, l: JsonLine): void {
    // Masking alone is a mask of the outputs by the harness, not a compaction: nothing takes the
    // place of what it hides (as Claude Code's microcompact is read).
    const id = ev.kind === 'compression' ? `${this.idPrefix}compression-${++this.compactions}` : null;
    // Outputs cut to the function-response budget alone are pruned in place, as a tool-result
    // pruner's are: no summary takes their place, so no compaction is recorded for them.
    if (ev.kind === 'truncation')
      this.sink.emit(
        {
          kind: 'record',
          type: 'content-truncated',
          summary: 'function responses cut to the 50,000-token budget after a failed compression',
        },
        l,
      );
    const fresh = new Set<string>();
    if (ev.kind === 'compression' && ev.summary && ev.ack) {
      fresh.add(ev.summary.id).add(ev.ack.id);
      this.compressedBy.add(ev.summary.id);
    }
    const byKey = new Map(this.live.map((x, i) => [x.key, i]));
    // Kept: in the list and in the same order as before (an item out of order is dropped and put
    // back where the list has it; the compression pair is always new).
    const kept = new Set<string>();
    let lastIndex = -1;
    for (const t of targets) {
      if (t.log || fresh.has(t.msgId)) continue;
      const i = byKey.get(t.key);
      if (i !== undefined && i > lastIndex) {
        kept.add(t.key);
        lastIndex = i;
      }
    }
    const gone = this.live.filter((x) => !kept.has(x.key));
    // The pair the recorder appended a moment before is moved, not summarised.
    const covered = gone.filter((x) => !fresh.has(x.msgId));
    const covers = covered.map((x) => x.canon);
    let startSeq = -1;
    if (id !== null) {
      const start: EventOf<'compaction/start'> = {
        kind: 'compaction/start',
        id,
        trigger: 'unknown',
        // No policy: the file does not record one (the preset names Gemini CLI's, from its source).
        strategy: 'summary',
      };
      if (covers.length > 0) start.source = covers;
      if (this.lastPrompt !== null) start.preTokens = this.lastPrompt;
      startSeq = this.sink.emit(start, l);
      if (ev.kind === 'compression' && ev.summary) {
        const summary: EventOf<'compaction/summary'> = { kind: 'compaction/summary', id, summary: summaryBlocks(ev.summary) };
        if (covers.length > 0) summary.source = covers;
        this.sink.emit(summary, l);
      }
    }
    const provenance = startSeq >= 0 ? [startSeq, ...covered.map((x) => x.seq)] : undefined;
    // A compression's summary takes what it covers off the surface itself (a checkpoint's covers).
    if (id === null) this.drop(covers, 'other', l);
    const moved = gone.filter((x) => fresh.has(x.msgId)).map((x) => x.canon);
    this.drop(moved, 'other', l);
    const next: Live[] = [];
    const keptLive = new Map(this.live.filter((x) => kept.has(x.key)).map((x) => [x.key, x]));
    // The kept items still to come, in order: a new item goes before the first of them.
    const keptOrder = targets.filter((t) => kept.has(t.key)).map((t) => t.key);
    let k = 0;
    for (const t of targets) {
      if (t.log) {
        this.emitLogged(t, l);
        continue;
      }
      const cur = keptLive.get(t.key);
      if (cur) {
        k++;
        if (cur.fp !== t.fp) {
          const cut = ev.kind === 'truncation' && isTruncatedOutput(t) ? truncationOf(t) : null;
          if (cut) {
            const v = this.emitItem(
              t,
              { op: 'replace', from: cur.canon, to: cur.canon },
              l,
              {
                derivation: { kind: 'pruned', of: cur.canon, unit: 'chars', ...cut },
              },
              [cur.seq],
            );
            cur.canon = v.canon;
            cur.seq = v.seq;
          } else if (isMaskedOutput(t)) {
            this.sink.emit({ kind: 'mask', items: [cur.canon], masked: true, by: 'harness', reference: referenceOf(t.item.blocks) }, l);
            this.lastMutation = this.sink.nextSeq;
          } else {
            const v = this.emitItem(t, { op: 'replace', from: cur.canon, to: cur.canon }, l);
            cur.canon = v.canon;
            cur.seq = v.seq;
          }
          cur.fp = t.fp;
        }
        next.push(cur);
        continue;
      }
      const before = keptOrder[k] !== undefined ? keptLive.get(keptOrder[k] as string) : undefined;
      let extra: Partial<Item> | undefined;
      if (id !== null && ev.summary && t.msgId === ev.summary.id)
        extra = { derivation: { kind: 'checkpoint', compactionId: id, covers, part: 'summary' }, meta: true, origin: 'state_snapshot' };
      if (id !== null && ev.ack && t.msgId === ev.ack.id) extra = { meta: true, origin: 'compression acknowledgement' };
      const v = this.emitItem(
        t,
        before ? { op: 'insert', before: before.canon } : { op: 'append' },
        l,
        extra,
        extra?.derivation ? provenance : undefined,
      );
      next.push({ key: t.key, msgId: t.msgId, canon: v.canon, fp: t.fp, seq: v.seq });
    }
    this.live = next;
    if (id !== null) this.sink.emit({ kind: 'compaction/end', id, outcome: 'committed' }, l);
  }
}

function summaryBlocks(m: GeminiMessage): Block[] {
  const text = textOf(m.value.content);
  return [{ type: 'text', text }];
}

/** What the model sees of a masked output: the text of the result as it now reads. */
function referenceOf(blocks: readonly Block[]): Block[] {
  const out: Block[] = [];
  for (const b of blocks) if (b.type === 'tool_result') for (const c of b.content) out.push(c);
  return out;
}

/** A count field of a `tokens` record. */
function nat(tokens: unknown, field: string): number | undefined {
  return isObj(tokens) ? natural(tokens[field]) : undefined;
}
