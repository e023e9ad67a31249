import {
  BAD,
  COLON,
  IdTable,
  KeyCursor,
  LBRACE,
  LBRACKET,
  QUOTE,
  RBRACE,
  ascii,
  bytesAt,
  isTrue,
  objectBounds,
  parseObject,
  readString,
  realQuote,
  skipNested,
  skipString,
  stringIs,
  walkBackward,
} from './json-bytes';
import { SYNTHETIC_MODEL, isModelCall } from '../dialects/claude-model-call';
import { preservedRefs, walkSegment } from '../dialects/claude-preserved';
import type { BlockScanner } from './scan-file';
import type { ScanResult } from './types';

/*
 * Claude Code, fast: the number of model calls and compactions on the session's default branch,
 * read from the main transcript `<sessionId>.jsonl` only (subagent and summarizer files are other
 * branches: they count in the session's size, not in its requests).
 *
 * What the full importer (src/main/importers/claude-code) does, and this reproduces:
 * - A request is a distinct `message.id` of an assistant record; `<synthetic>` assistant records
 *   are not requests (unless `isApiErrorMessage`), nor are preserved messages re-written after a
 *   partial compaction (`compactMetadata.preservedMessages` / `preservedSegment`).
 * - The default branch is the branch of the last non-sidechain conversation record (user,
 *   assistant, attachment, compact_boundary) of the main file; its requests are those of that
 *   record's ancestry. Ancestry is the uuid → parentUuid chain as the importer resolves it while
 *   reading: a parent that is a progress/system record stands for that record's nearest
 *   conversation ancestor (as of when it was read); an unknown (or later) parent continues from
 *   the previous conversation record of the file; a compact_boundary hangs off its
 *   logicalParentUuid (or, unknown, the previous conversation record); a duplicate uuid is ignored.
 *   Rewinds, new roots and sidechains are then other branches, as in the importer.
 * - A compaction is a compact_boundary on that ancestry.
 *
 * How: each line is read at byte level (./json-bytes.ts), never decoded or parsed whole. From the
 * front, `parentUuid` and `isSidechain` where Claude Code writes them (the first two keys), the
 * top-level `type` (the first `"type":"` before any nested value) and `message.id` /
 * `message.model` from the start of `message`; from the back, the scalar keys after the last
 * nested value (`uuid`, `timestamp`, an assistant's `type`); only when a needed key sits between
 * two nested values (a user record's uuid, between `message` and `toolUseResult`) is the value
 * before it skipped with a depth count. The first lines of a file, and any line of another shape,
 * are walked key by key; system records (few, small) and lines the walk does not understand are
 * JSON.parse-d. Uuids go into a byte hash table (no string per record).
 *
 * Exactness: equal to the importer on every Claude Code fixture, on each line shape it resolves
 * (test/main/discovery/scan.test.ts), and on the real sample with its keys reordered, spaced,
 * CRLF-terminated. What it does not reproduce: nothing known; a future importer rule (a new
 * record type that is a conversation node, say) needs the same rule here, and that test shows it.
 */

const K = {
  type: ascii('type'),
  uuid: ascii('uuid'),
  parentUuid: ascii('parentUuid'),
  logicalParentUuid: ascii('logicalParentUuid'),
  isSidechain: ascii('isSidechain'),
  subtype: ascii('subtype'),
  timestamp: ascii('timestamp'),
  cwd: ascii('cwd'),
  version: ascii('version'),
  sessionId: ascii('sessionId'),
  message: ascii('message'),
  id: ascii('id'),
  model: ascii('model'),
  isApiErrorMessage: ascii('isApiErrorMessage'),
  customTitle: ascii('customTitle'),
  summary: ascii('summary'),
};
/** What a Claude Code record line starts with, and the `type` and `message` keys as they appear. */
const P = {
  parentUuid: Buffer.from('{"parentUuid":', 'latin1'),
  isSidechain: Buffer.from(',"isSidechain":', 'latin1'),
  type: Buffer.from('"type":"', 'latin1'),
  message: Buffer.from('"message":', 'latin1'),
  null: Buffer.from('null', 'latin1'),
  progress: Buffer.from(',"type":"progress","data":{', 'latin1'),
  uuidKey: Buffer.from(',"uuid":"', 'latin1'),
  timeKey: Buffer.from(',"timestamp":"', 'latin1'),
  messageOpen: Buffer.from(',"message":{', 'latin1'),
  assistantType: Buffer.from(',"type":"assistant"', 'latin1'),
  userMessage: Buffer.from(',"type":"user","message":{', 'latin1'),
  modelKey: Buffer.from('{"model":"', 'latin1'),
  idKey: Buffer.from(',"id":"', 'latin1'),
};
/** Lines walked key by key at the start of a file, for its session id, cwd and version. */
const HEAD_LINES = 64;
/** Lines the fast path does not take are JSON.parse-d below this many bytes, walked above. */
const PARSE_BELOW = 32 * 1024;

const V = {
  user: ascii('user'),
  assistant: ascii('assistant'),
  attachment: ascii('attachment'),
  system: ascii('system'),
  progress: ascii('progress'),
  compactBoundary: ascii('compact_boundary'),
  synthetic: ascii(SYNTHETIC_MODEL),
  customTitle: ascii('custom-title'),
  summary: ascii('summary'),
};

/** Kinds of records with a uuid. */
const OTHER = 0;
const USER = 1;
const ASSISTANT = 2;
const BOUNDARY = 3;

const NONE = -1;
const LF = 0x0a;
const NONE_KEPT: ReadonlySet<number> = new Set<number>();

/** The fields of one line the walk needs (reused between lines). */
class LineFields {
  type = -1;
  typeVs = 0;
  typeVe = 0;
  /** The uuid's bytes (`uuidBuf[uuidS, uuidE)`), null when the record has none. */
  uuidBuf: Buffer | null = null;
  uuidS = 0;
  uuidE = 0;
  /** The parentUuid's bytes, null when it is null or absent. */
  parentBuf: Buffer | null = null;
  parentS = 0;
  parentE = 0;
  sidechain = false;
  apiError = false;
  subtypeBoundary = false;
  timestamp: string | undefined;
  /** The message id's bytes (`msgBuf[msgS, msgE)`), null when the line has none. */
  msgBuf: Buffer | null = null;
  msgS = 0;
  msgE = 0;
  msgModel: string | undefined;
  synthetic = false;
  cwd: string | undefined;
  version: string | undefined;
  sessionId: string | undefined;
  title: string | undefined;
  /** Which of the fields above were seen (to know when the walk may stop). */
  haveType = false;
  haveUuid = false;

  reset(): void {
    this.type = -1;
    this.uuidBuf = null;
    this.parentBuf = null;
    this.sidechain = false;
    this.apiError = false;
    this.subtypeBoundary = false;
    this.timestamp = undefined;
    this.msgBuf = null;
    this.msgModel = undefined;
    this.synthetic = false;
    this.cwd = undefined;
    this.version = undefined;
    this.sessionId = undefined;
    this.title = undefined;
    this.haveType = false;
    this.haveUuid = false;
  }

  setUuid(buf: Buffer, vs: number, ve: number): void {
    if (buf[vs] !== QUOTE || ve - vs < 2) return;
    if (!hasEscape(buf, vs + 1, ve - 1)) {
      this.uuidBuf = buf;
      this.uuidS = vs + 1;
      this.uuidE = ve - 1;
      return;
    }
    const b = decoded(buf, vs, ve);
    if (b) [this.uuidBuf, this.uuidS, this.uuidE] = [b, 0, b.length];
  }

  setParent(buf: Buffer, vs: number, ve: number): void {
    if (buf[vs] !== QUOTE || ve - vs < 2) return;
    if (!hasEscape(buf, vs + 1, ve - 1)) {
      this.parentBuf = buf;
      this.parentS = vs + 1;
      this.parentE = ve - 1;
      return;
    }
    const b = decoded(buf, vs, ve);
    if (b) [this.parentBuf, this.parentS, this.parentE] = [b, 0, b.length];
  }
}

/** Id tables, one of each per thread, reused by each scanner in turn (scans of a thread never overlap). */
let idTable: IdTable | null = null;
let msgTable: IdTable | null = null;
function sharedIds(owner: unknown): IdTable {
  idTable ??= new IdTable();
  idTable.reset();
  idTable.owner = owner;
  return idTable;
}
function sharedMsgIds(owner: unknown): IdTable {
  msgTable ??= new IdTable();
  msgTable.reset();
  msgTable.owner = owner;
  return msgTable;
}

const TYPE_OTHER = 0;
const TYPE_USER = 1;
const TYPE_ASSISTANT = 2;
const TYPE_SYSTEM = 3;
const TYPE_ATTACHMENT = 4;
const TYPE_PROGRESS = 5;
const TYPE_TITLE = 6;
const TYPE_SUMMARY = 7;

function typeCode(buf: Buffer, vs: number, ve: number): number {
  if (buf[vs] !== QUOTE) return TYPE_OTHER;
  // The record types Claude Code writes all differ in length: one comparison each.
  switch (ve - vs - 2) {
    case 9:
      return stringIs(buf, vs, ve, V.assistant) ? TYPE_ASSISTANT : TYPE_OTHER;
    case 4:
      return stringIs(buf, vs, ve, V.user) ? TYPE_USER : TYPE_OTHER;
    case 8:
      return stringIs(buf, vs, ve, V.progress) ? TYPE_PROGRESS : TYPE_OTHER;
    case 6:
      return stringIs(buf, vs, ve, V.system) ? TYPE_SYSTEM : TYPE_OTHER;
    case 10:
      return stringIs(buf, vs, ve, V.attachment) ? TYPE_ATTACHMENT : TYPE_OTHER;
    case 12:
      return stringIs(buf, vs, ve, V.customTitle) ? TYPE_TITLE : TYPE_OTHER;
    case 7:
      return stringIs(buf, vs, ve, V.summary) ? TYPE_SUMMARY : TYPE_OTHER;
    default:
      return TYPE_OTHER;
  }
}

/**
 * One session's scan. Its id tables are the thread's own, reused from scan to scan: a scanner must
 * be fed and finished before the next one is made on the same thread (scans are synchronous, so
 * they never interleave unless a caller interleaves them by hand — which throws).
 */
export class ClaudeScanner implements BlockScanner {
  private readonly f = new LineFields();
  private readonly cur = new KeyCursor();
  private readonly inner = new KeyCursor();

  /** The records' uuids, numbered in file order: a record's number indexes the arrays below. */
  private readonly ids = sharedIds(this);
  private readonly kind: number[] = [];
  /** Conversation records: the effective parent (a conversation record) or NONE. Others: their anchor. */
  private readonly link: number[] = [];
  /** The parent as written, when it was known when the record was read (for preserved segments). */
  private readonly rawParent: number[] = [];
  /** Assistant records: the number of their message id in `msgIds` (-1 for other records). */
  private readonly msg: number[] = [];
  private readonly msgIds = sharedMsgIds(this);
  /** Assistant records that are not requests of their own (synthetic, not an API error). */
  private readonly noRequest = new Set<number>();
  private readonly preserved = new Map<number, Set<string>>();

  private lastConv = NONE;
  private leaf = NONE;

  private id: string | null = null;
  private project: string | null = null;
  private title: string | null = null;
  private summaryTitle: string | null = null;
  private version: string | null = null;
  private model: string | null = null;
  private startedAt: string | null = null;
  private bad = 0;
  private lines = 0;
  private readonly lastTime = new Uint8Array(64);
  private lastTimeLen = 0;
  /**
   * The fast path's last timestamp, not copied yet: `pendBuf[pendS, pendE)`. Copied into
   * `lastTime` by flush(), when the reader is about to reuse its buffer, rather than on every
   * line (a Buffer#copy per line made V8 optimise Node's own copy code, a large compile job).
   */
  private pendBuf: Buffer | null = null;
  private pendS = 0;
  private pendE = 0;
  private readonly versionBytes = new Uint8Array(64);
  /** The last model's bytes, as the fast path last decoded it (-1: none, or set by another path): decoded only when it changes. */
  private readonly modelBytes = Buffer.alloc(128);
  private modelLen = -1;
  private versionLen = 0;

  /** Every line of `buf[start, end)` (see BlockScanner). */
  block(buf: Buffer, start: number, end: number): void {
    let p = start;
    while (p < end) {
      let e = buf.indexOf(LF, p);
      if (e < 0 || e > end) e = end;
      this.line(buf, p, e);
      p = e + 1;
    }
  }

  line(buf: Buffer, start: number, end: number): void {
    if (this.ids.owner !== this) throw new Error('ClaudeScanner: another Claude Code scan started on this thread before this one ended');
    // The object's bounds (a BOM or spaces around it are allowed).
    let o = start;
    let c = end - 1;
    if (buf[o] !== LBRACE || buf[c] !== RBRACE) {
      const b = objectBounds(buf, start, end);
      if (!b) {
        if (end > start && !isBlank(buf, start, end)) this.bad++;
        return;
      }
      [o, c] = b;
    }
    if (this.fastRecord(buf, o, c)) return;
    const f = this.f;
    f.reset();
    this.buf = buf;
    let v: Record<string, unknown> | null = null;
    if (c - o < PARSE_BELOW) {
      // A line of another shape, and short: JSON.parse, native, is as quick as a walk that has
      // warmed up, and keeps the walkers cold (a listing spends less on compiling them).
      this.lines++;
      v = parseObject(buf, o, c + 1);
      if (!v) {
        this.bad++;
        return;
      }
      fieldsOf(v, f);
    } else if (!this.readFields(buf, o, c + 1)) {
      v = parseObject(buf, o, c + 1);
      if (!v) {
        this.bad++;
        return;
      }
      f.reset();
      fieldsOf(v, f);
    } else if (f.type === TYPE_SYSTEM && f.subtypeBoundary) {
      // compact_boundary: the logical parent and the preserved messages, from the whole line.
      v = parseObject(buf, o, c + 1);
    }
    this.record(f, v);
  }

  /**
   * Progress, assistant and user records — nearly every line of a 2.1.x transcript — by their
   * shape alone, with a few byte checks and native searches, no walk:
   *   `{"parentUuid":<uuid|null>,"isSidechain":<bool>,…,"type":"progress","data":{…},…,<tail>}`
   *   `{"parentUuid":<uuid|null>,"isSidechain":<bool>,…,"message":{"model":"…","id":"…",…},…,"type":"assistant",<tail>}`
   *   `{"parentUuid":<uuid|null>,"isSidechain":<bool>,…,"type":"user","message":{…},"uuid":"<uuid>","timestamp":"<time>",…}`
   * with a tail of `"uuid":"<uuid>"` and `"timestamp":"<time>"` in either order. The first `{` of
   * the line (after the opening one) must be that of `data` or `message`: the bytes just before it
   * (`,"type":"progress","data":`…) hold unescaped quotes, so they are not inside a string, and a
   * key cannot sit in an array, so they are the top-level keys they read as, whatever comes
   * between `isSidechain` and them (no key from there is needed; looking for a `[` there, as this
   * once did, searched three times the file's bytes). False for any other shape (and for `<synthetic>`
   * assistant messages, whose isApiErrorMessage may sit anywhere): the general reading takes it.
   */
  private fastRecord(buf: Buffer, o: number, c: number): boolean {
    if (this.lines < HEAD_LINES && (this.id === null || this.project === null || this.version === null)) return false;
    if (!bytesAt(buf, o, P.parentUuid)) return false;
    let i = o + P.parentUuid.length;
    let ps = -1;
    if (buf[i] === QUOTE && buf[i + 37] === QUOTE && isUuid(buf, i + 1)) {
      ps = i + 1;
      i += 38;
    } else if (bytesAt(buf, i, P.null)) i += 4;
    else return false;
    if (!bytesAt(buf, i, P.isSidechain)) return false;
    const sidechain = buf[i + P.isSidechain.length] === 0x74;
    const n = buf.indexOf(LBRACE, i);
    if (n < 0 || n > c) return false;
    const progress = bytesAt(buf, n - P.progress.length + 1, P.progress);
    const user = !progress && bytesAt(buf, n - P.userMessage.length + 1, P.userMessage);
    if (!progress && !user && !bytesAt(buf, n - P.messageOpen.length + 1, P.messageOpen)) return false;

    let us: number;
    let ts = -1;
    let te = -1;
    let head = 0; // where the tail's first key starts (assistant records)
    if (user) {
      // `…,"type":"user","message":{…},"uuid":"<uuid>","timestamp":"<time>"…`: the uuid right after message.
      const me = skipNested(buf, n, c + 1);
      if (me < 0 || buf[me + P.uuidKey.length + 36] !== QUOTE || !bytesAt(buf, me, P.uuidKey)) return false;
      us = me + P.uuidKey.length;
      const tk = us + 37;
      if (bytesAt(buf, tk, P.timeKey)) {
        ts = tk + P.timeKey.length;
        te = buf.indexOf(QUOTE, ts);
        if (te < 0 || te > c) return false;
      }
    } else {
      // The tail: the uuid and the time, in either order.
      if (buf[c - 1] !== QUOTE) return false;
      const q = buf.lastIndexOf(QUOTE, c - 2); // opening quote of the last value
      if (q === c - 38 && bytesAt(buf, c - 46, P.uuidKey)) {
        us = c - 37;
        const q2 = buf.lastIndexOf(QUOTE, c - 48);
        if (q2 > n && buf[c - 47] === QUOTE && bytesAt(buf, q2 - 13, P.timeKey)) {
          ts = q2 + 1;
          te = c - 47;
          head = q2 - 13;
        } else head = c - 46;
      } else if (q > n && bytesAt(buf, q - 13, P.timeKey)) {
        ts = q + 1;
        te = c - 1;
        const u = q - 14; // the uuid's closing quote
        if (buf[u] !== QUOTE || buf[u - 37] !== QUOTE || !bytesAt(buf, u - 45, P.uuidKey)) return false;
        us = u - 36;
        head = u - 45;
      } else return false;
    }
    if (!isUuid(buf, us)) return false;

    let msgKey = -1;
    if (!progress && !user) {
      // `…,"type":"assistant"` right before the tail, and the message's model and id first.
      if (!bytesAt(buf, head - P.assistantType.length, P.assistantType)) return false;
      if (!bytesAt(buf, n, P.modelKey)) return false;
      const ms = n + P.modelKey.length - 1;
      const me = skipString(buf, ms, c);
      if (me < 0 || !bytesAt(buf, me, P.idKey)) return false;
      const is = me + P.idKey.length - 1;
      const ie = skipString(buf, is, c);
      if (ie < 0) return false;
      if (stringIs(buf, ms, me, V.synthetic)) return false;
      if (!hasEscape(buf, is + 1, ie - 1)) msgKey = this.msgIds.intern(buf, is + 1, ie - 1);
      else {
        const d = decoded(buf, is, ie);
        if (d) msgKey = this.msgIds.intern(d, 0, d.length);
      }
      if (!this.sameModel(buf, ms, me)) {
        this.model = readString(buf, ms, me) ?? this.model;
        this.modelLen = me - ms <= this.modelBytes.length ? buf.copy(this.modelBytes, 0, ms, me) : -1;
      }
    }

    this.lines++;
    if (ts >= 0 && te - ts <= this.lastTime.length) {
      this.pendBuf = buf;
      this.pendS = ts;
      this.pendE = te;
      if (this.startedAt === null) this.startedAt = buf.toString('latin1', ts, te);
    }
    const parentIdx = ps < 0 ? NONE : this.ids.findRecent(buf, ps, ps + 36);
    const idx = this.ids.addNew(buf, us, us + 36);
    if (idx < 0) return true; // a duplicate uuid: the first record stands
    this.rawParent.push(parentIdx);
    if (progress) {
      this.kind.push(OTHER);
      this.link.push(parentIdx >= 0 ? this.anchorOf(parentIdx) : NONE);
      this.msg.push(-1);
      return true;
    }
    this.kind.push(user ? USER : ASSISTANT);
    this.link.push(ps < 0 ? NONE : parentIdx < 0 ? this.lastConv : this.anchorOf(parentIdx));
    this.msg.push(user ? -1 : msgKey >= 0 ? msgKey : this.msgIds.intern(buf, us, us + 36));
    this.lastConv = idx;
    if (!sidechain) this.leaf = idx;
    return true;
  }

  /** The line being read, for the backward walk's visitor. */
  private buf: Buffer = Buffer.alloc(0);
  private readonly visitBack = (ks: number, ke: number, vs: number, ve: number): boolean => {
    this.take(this.buf, ks, ke, vs, ve);
    return true;
  };

  /**
   * Reads the line's fields at byte level: forwards until the first nested value (descending into
   * `message` for its id and model), backwards from the end until the last nested value, and in
   * between only when the uuid or the type is still missing. False: fall back to JSON.parse.
   */
  private readFields(buf: Buffer, open: number, end: number): boolean {
    const f = this.f;
    this.lines++;
    const head = this.lines <= HEAD_LINES && (this.id === null || this.project === null || this.version === null);
    const nested = head ? BAD : this.readFront(buf, open, end);
    if (nested === BAD) return this.walkFields(buf, open, end);
    const back = walkBackward(buf, open, end - 1, this.visitBack);
    if (back === BAD) return false;
    // System records are few and small: read them whole rather than risk missing a subtype.
    if (f.type === TYPE_SYSTEM) return false;
    if (f.haveUuid && f.haveType && (f.type !== TYPE_ASSISTANT || !f.synthetic || f.apiError)) return true;
    if (nested < 0) return true;
    return this.middle(buf, open, end, nested, back);
  }

  /**
   * The front of a record line without walking its envelope: `parentUuid` (the first key) and
   * `isSidechain` (the second) where Claude Code writes them; the top-level `type` when it comes
   * before any nested value (the first `"type":"` before the first `{` or `[` byte: a pattern that
   * cannot occur inside a JSON string, and with no bracket before it, at depth 1); and `message`
   * when it is the first nested value. Returns where the first nested value starts, -1 when there
   * is none, or BAD when the line does not start that way (it is then walked key by key).
   */
  private readFront(buf: Buffer, open: number, end: number): number {
    const f = this.f;
    if (!bytesAt(buf, open, P.parentUuid)) return BAD;
    const i = open + P.parentUuid.length;
    let e: number;
    if (buf[i] === QUOTE) {
      e = skipString(buf, i, end);
      if (e < 0) return BAD;
      f.setParent(buf, i, e);
    } else if (bytesAt(buf, i, P.null)) e = i + 4;
    else return BAD;
    if (!bytesAt(buf, e, P.isSidechain)) return BAD;
    f.sidechain = buf[e + P.isSidechain.length] === 0x74;
    let n = buf.indexOf(LBRACE, open + 1);
    if (n < 0 || n >= end) n = -1;
    const b = buf.indexOf(LBRACKET, e);
    if (b >= 0 && b < end && (n < 0 || b < n)) n = b;
    let t = buf.indexOf(P.type, e);
    if (t >= end || (n >= 0 && t > n)) t = -1;
    // A bracket in a string value before the first nested value: not the shape expected.
    if (n >= 0 && !(buf[n - 1] === COLON && buf[n - 2] === QUOTE && realQuote(buf, n - 2))) return BAD;
    if (t >= 0) {
      const vs = t + P.type.length - 1;
      const ve = skipString(buf, vs, end);
      if (ve < 0) return BAD;
      f.type = typeCode(buf, vs, ve);
      f.haveType = true;
    }
    if (n >= 0 && buf[n] === LBRACE && bytesAt(buf, n - P.message.length, P.message)) this.readMessage(buf, n, end);
    return n;
  }

  /** The keys between the first nested value (at `nested`) and where the backward walk stopped. */
  private middle(buf: Buffer, open: number, end: number, nested: number, back: number): boolean {
    const c = this.cur.open(buf, open, end);
    c.resumeAt(nested);
    if (c.skip() < 0) return false;
    while (c.next()) {
      if (back >= 0 && c.vs > back) break;
      if (c.nested) {
        if (c.skip() < 0) return false;
        continue;
      }
      const e = c.skip();
      if (e < 0) return false;
      this.take(buf, c.ks, c.ke, c.vs, e);
      if (this.f.haveUuid && this.f.haveType && this.f.type !== TYPE_ASSISTANT) return true;
    }
    return !c.bad;
  }

  /** Every top-level key, forwards (the first lines, and lines of another shape). */
  private walkFields(buf: Buffer, open: number, end: number): boolean {
    const f = this.f;
    const c = this.cur.open(buf, open, end);
    let stoppedAt = -1;
    while (c.next()) {
      if (c.nested) {
        if (c.is(K.message)) this.readMessage(buf, c.vs, end);
        stoppedAt = c.vs;
        break;
      }
      const e = c.skip();
      if (e < 0) return false;
      this.take(buf, c.ks, c.ke, c.vs, e);
    }
    if (c.bad) return false;
    if (stoppedAt < 0) return true;
    const back = walkBackward(buf, open, end - 1, this.visitBack);
    if (back === BAD) return false;
    if (f.type === TYPE_SYSTEM) return false;
    if (f.haveUuid && f.haveType && (f.type !== TYPE_ASSISTANT || !f.synthetic || f.apiError)) return true;
    return this.middle(buf, open, end, stoppedAt, back);
  }

  /** `message.id` and `message.model`: the first keys of an assistant's message. */
  private readMessage(buf: Buffer, brace: number, end: number): void {
    const f = this.f;
    const m = this.inner.open(buf, brace, end);
    let got = 0;
    while (got < 2 && m.next()) {
      if (m.nested) break;
      const e = m.skip();
      if (e < 0) break;
      if (m.is(K.id)) {
        if (buf[m.vs] === QUOTE && e - m.vs >= 2) {
          if (!hasEscape(buf, m.vs + 1, e - 1)) [f.msgBuf, f.msgS, f.msgE] = [buf, m.vs + 1, e - 1];
          else {
            const d = decoded(buf, m.vs, e);
            if (d) [f.msgBuf, f.msgS, f.msgE] = [d, 0, d.length];
          }
        }
        got++;
      } else if (m.is(K.model)) {
        f.synthetic = stringIs(buf, m.vs, e, V.synthetic);
        f.msgModel = readString(buf, m.vs, e);
        got++;
      }
    }
  }

  private take(buf: Buffer, ks: number, ke: number, vs: number, ve: number): void {
    const f = this.f;
    const n = ke - ks;
    const k0 = buf[ks];
    // Dispatch on length and first letter before comparing bytes.
    switch (n) {
      case 4:
        if (k0 === 0x74 /* t */ && bytesIs(buf, ks, ke, K.type)) {
          f.type = typeCode(buf, vs, ve);
          f.haveType = true;
        } else if (k0 === 0x75 /* u */ && bytesIs(buf, ks, ke, K.uuid)) {
          f.setUuid(buf, vs, ve);
          f.haveUuid = true;
        }
        return;
      case 10:
        if (k0 === 0x70 /* p */ && bytesIs(buf, ks, ke, K.parentUuid)) f.setParent(buf, vs, ve);
        return;
      case 11:
        if (k0 === 0x69 /* i */ && bytesIs(buf, ks, ke, K.isSidechain)) f.sidechain = isTrue(buf, vs, ve);
        else if (k0 === 0x63 /* c */ && bytesIs(buf, ks, ke, K.customTitle)) f.title = readString(buf, vs, ve);
        return;
      case 7:
        if (k0 === 0x73 /* s */ && bytesIs(buf, ks, ke, K.subtype)) f.subtypeBoundary = stringIs(buf, vs, ve, V.compactBoundary);
        else if (k0 === 0x76 /* v */ && bytesIs(buf, ks, ke, K.version)) {
          // Usually the same on every line: decoded only when it changes.
          const n2 = ve - vs;
          const vb = this.versionBytes;
          let same = n2 === this.versionLen;
          for (let i = 0; same && i < n2; i++) same = vb[i] === buf[vs + i];
          if (!same) {
            f.version = readString(buf, vs, ve);
            if (n2 <= vb.length) {
              for (let i = 0; i < n2; i++) vb[i] = buf[vs + i] as number;
              this.versionLen = n2;
            }
          }
        } else if (k0 === 0x73 && bytesIs(buf, ks, ke, K.summary)) f.title = f.title ?? readString(buf, vs, ve);
        return;
      case 9:
        if (k0 === 0x74 && bytesIs(buf, ks, ke, K.timestamp)) {
          // Only the first and the last are kept: copy the bytes, decode at the end.
          const n3 = ve - vs - 2;
          if (buf[vs] === QUOTE && n3 <= this.lastTime.length) {
            this.pendBuf = null;
            const t = this.lastTime;
            for (let i = 0; i < n3; i++) t[i] = buf[vs + 1 + i] as number;
            this.lastTimeLen = n3;
            if (this.startedAt === null) this.startedAt = readString(buf, vs, ve) ?? null;
          }
        } else if (k0 === 0x73 && this.id === null && bytesIs(buf, ks, ke, K.sessionId)) f.sessionId = readString(buf, vs, ve);
        return;
      case 3:
        if (k0 === 0x63 && this.project === null && bytesIs(buf, ks, ke, K.cwd)) f.cwd = readString(buf, vs, ve);
        return;
      case 17:
        if (k0 === 0x69 && bytesIs(buf, ks, ke, K.isApiErrorMessage)) f.apiError = isTrue(buf, vs, ve);
        return;
      default:
    }
  }

  /** Registers one record (`v`: the parsed line of a compact_boundary, or of a line read by JSON.parse). */
  private record(f: LineFields, v: Record<string, unknown> | null): void {
    if (f.timestamp !== undefined) {
      // A line read by JSON.parse.
      if (this.startedAt === null) this.startedAt = f.timestamp;
      const b = Buffer.from(f.timestamp.slice(0, 64), 'utf8');
      this.pendBuf = null;
      this.lastTimeLen = Math.min(b.length, 64);
      this.lastTime.set(b.subarray(0, this.lastTimeLen));
    }
    if (this.id === null && f.sessionId !== undefined) this.id = f.sessionId;
    if (this.project === null && f.cwd !== undefined) this.project = f.cwd;
    if (f.version !== undefined) {
      this.version = f.version;
      // Set from a parsed line: the walk's cache of the version's bytes no longer says which it is.
      if (v !== null) this.versionLen = -1;
    }
    if (f.type === TYPE_TITLE && f.title !== undefined) this.title = f.title;
    else if (f.type === TYPE_SUMMARY && f.title !== undefined && this.summaryTitle === null) this.summaryTitle = f.title;

    const t = f.type;
    const ub = f.uuidBuf;
    if (ub === null) return;
    const conv = t === TYPE_USER || t === TYPE_ASSISTANT || t === TYPE_ATTACHMENT || (t === TYPE_SYSTEM && f.subtypeBoundary);
    const pb = f.parentBuf;
    const parentIdx = pb === null ? NONE : this.ids.find(pb, f.parentS, f.parentE);
    const i = this.ids.addNew(ub, f.uuidS, f.uuidE);
    if (i < 0) return; // a duplicate uuid: the first record stands
    this.rawParent.push(parentIdx);
    if (!conv) {
      // Progress, system lines…: stand for their parent's conversation anchor (none for an unknown parent).
      this.kind.push(OTHER);
      this.link.push(parentIdx >= 0 ? this.anchorOf(parentIdx) : NONE);
      this.msg.push(-1);
      return;
    }
    let link: number;
    if (t === TYPE_SYSTEM) {
      const logical = v && typeof v.logicalParentUuid === 'string' ? Buffer.from(v.logicalParentUuid, 'utf8') : undefined;
      const li = logical === undefined ? -1 : this.ids.find(logical, 0, logical.length);
      link = li < 0 ? this.lastConv : this.anchorOf(li);
      this.kind.push(BOUNDARY);
      const cm = v && isObj(v.compactMetadata) ? v.compactMetadata : undefined;
      const keep = cm ? this.preservedOf(cm) : null;
      if (keep && keep.size > 0) this.preserved.set(i, keep);
    } else {
      if (pb === null) link = NONE;
      else if (parentIdx < 0) link = this.lastConv;
      else link = this.anchorOf(parentIdx);
      this.kind.push(t === TYPE_ASSISTANT ? ASSISTANT : USER);
    }
    this.link.push(link);
    if (t === TYPE_ASSISTANT) {
      this.msg.push(f.msgBuf !== null ? this.msgIds.intern(f.msgBuf, f.msgS, f.msgE) : this.msgIds.intern(ub, f.uuidS, f.uuidE));
      // Preserved records are known only once the boundary's segment is resolved: see `count`.
      if (!isModelCall(f.synthetic, f.apiError, false)) this.noRequest.add(i);
      if (f.msgModel !== undefined && !f.synthetic) {
        this.model = f.msgModel;
        this.modelLen = -1;
      }
    } else this.msg.push(-1);
    this.lastConv = i;
    if (!f.sidechain) this.leaf = i;
  }

  /** `buf[ms, me)` are the bytes of the model the fast path decoded last. */
  private sameModel(buf: Buffer, ms: number, me: number): boolean {
    const n = this.modelLen;
    if (n !== me - ms) return false;
    const m = this.modelBytes;
    for (let i = 0; i < n; i++) if (m[i] !== buf[ms + i]) return false;
    return true;
  }

  /** The buffers given to line() so far are about to be reused: keep what is still needed of them. */
  flush(): void {
    const b = this.pendBuf;
    if (b === null) return;
    const n = this.pendE - this.pendS;
    const t = this.lastTime;
    for (let i = 0; i < n; i++) t[i] = b[this.pendS + i] as number;
    this.lastTimeLen = n;
    this.pendBuf = null;
  }

  private anchorOf(i: number): number {
    return this.kind[i] === OTHER ? (this.link[i] as number) : i;
  }

  /** `preservedMessages.uuids` ∪ the records from `preservedSegment.tailUuid` back to its head (when the walk reaches it). */
  private preservedOf(cm: Record<string, unknown>): Set<string> {
    const refs = preservedRefs(cm);
    const out = new Set<string>();
    for (const u of refs.uuids) out.add(asKey(u));
    const head = refs.segment ? this.lookup(refs.segment.head) : NONE;
    const tail = refs.segment ? this.lookup(refs.segment.tail) : NONE;
    if (head >= 0 && tail >= 0) {
      const record = (i: number): number | null => (i >= 0 ? i : null);
      const parentOf = (i: number): number | null => {
        const p = this.rawParent[i] as number;
        return p >= 0 ? record(this.anchorOf(p)) : null;
      };
      const walked = walkSegment(record(this.anchorOf(tail)), (i) => i === head, parentOf);
      if (walked) for (const w of walked) out.add(this.ids.text(w));
    }
    return out;
  }

  private lookup(uuid: string): number {
    const b = Buffer.from(uuid, 'utf8');
    return this.ids.find(b, 0, b.length);
  }

  result(): ScanResult {
    if (this.ids.owner !== this) throw new Error('ClaudeScanner: another Claude Code scan started on this thread before this one ended');
    this.flush();
    const [requests, compactions] = this.countChain();
    return {
      id: this.id,
      project: this.project,
      title: this.title ?? this.summaryTitle,
      startedAt: this.startedAt,
      endedAt: this.lastTimeLen > 0 ? Buffer.from(this.lastTime.buffer, 0, this.lastTimeLen).toString('utf8') : null,
      requests,
      compactions,
      harnessVersion: this.version,
      model: this.model,
      badLines: this.bad,
      problems: [],
    };
  }

  /** The preserved messages of each boundary, by record number (their uuids are all known by now). */
  private preservedRecords(): Map<number, Set<number>> {
    const keepOf = new Map<number, Set<number>>();
    for (const [b, uuids] of this.preserved) {
      const idx = new Set<number>();
      for (const u of uuids) {
        const i = this.ids.find(Buffer.from(u, 'latin1'), 0, u.length);
        if (i >= 0) idx.add(i);
      }
      keepOf.set(b, idx);
    }
    return keepOf;
  }

  /**
   * Requests and compactions on the default branch's ancestry, root first. Every test in the loop
   * runs on every record of its kind (an empty set stands for "none preserved"), so that the
   * optimised loop never meets a path it has no type feedback for.
   */
  private countChain(): [number, number] {
    const n = this.kind.length;
    const onChain = new Uint8Array(n);
    const chain: number[] = [];
    for (let i = this.leaf; i >= 0 && onChain[i] === 0; i = this.link[i] as number) {
      onChain[i] = 1;
      chain.push(i);
    }
    const keepOf = this.preservedRecords();
    let requests = 0;
    let compactions = 0;
    let keep = NONE_KEPT;
    const counted = new Uint8Array(this.msgIds.count);
    for (let k = chain.length - 1; k >= 0; k--) {
      const i = chain[k] as number;
      const kind = this.kind[i];
      if (kind === BOUNDARY) {
        compactions++;
        keep = keepOf.get(i) ?? NONE_KEPT;
        continue;
      }
      if (kind !== ASSISTANT) continue;
      const m = this.msg[i] as number;
      if (counted[m] === 1) continue;
      counted[m] = 1;
      // Not isModelCall's rule for a preserved API error (the importer counts it, this does not):
      // no real transcript has one yet to pin either way.
      if (this.noRequest.has(i) || keep.has(i)) continue;
      requests++;
    }
    return [requests, compactions];
  }
}

/**
 * 36 bytes at `s`, between quotes, shaped as a uuid (dashes at 8, 13, 18, 23): the value Claude
 * Code writes (crypto.randomUUID), whose bytes are its text — no escape fits that shape.
 */
function isUuid(buf: Buffer, s: number): boolean {
  return buf[s + 8] === 0x2d && buf[s + 13] === 0x2d && buf[s + 18] === 0x2d && buf[s + 23] === 0x2d && buf[s + 35] !== 0x5c;
}

function hasEscape(buf: Buffer, s: number, e: number): boolean {
  // A uuid (8-4-4-4-12) has no room for an escape: five bytes say so.
  if (e - s === 36 && buf[s + 8] === 0x2d && buf[s + 13] === 0x2d && buf[s + 18] === 0x2d && buf[s + 23] === 0x2d && buf[s + 35] !== 0x5c) {
    return false;
  }
  for (let i = s; i < e; i++) if (buf[i] === 0x5c) return true;
  return false;
}

/** The UTF-8 bytes of a string value with escapes, decoded. */
function decoded(buf: Buffer, vs: number, ve: number): Buffer | null {
  const s = readString(buf, vs, ve);
  return s === undefined ? null : Buffer.from(s, 'utf8');
}

/** A decoded id in the form the table's text has: its UTF-8 bytes as latin1. */
const asKey = (s: string): string => Buffer.from(s, 'utf8').toString('latin1');

function bytesIs(buf: Buffer, ks: number, ke: number, key: Uint8Array): boolean {
  for (let i = 1; i < key.length; i++) if (buf[ks + i] !== key[i]) return false;
  return ke - ks === key.length;
}

function isBlank(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = buf[i];
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
  }
  return true;
}

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** The same fields from a parsed line (the fallback when the byte walk does not understand a line). */
function fieldsOf(v: Record<string, unknown>, f: LineFields): void {
  const s = (x: unknown): string | undefined => (typeof x === 'string' ? x : undefined);
  const t = v.type;
  f.type =
    t === 'assistant'
      ? TYPE_ASSISTANT
      : t === 'user'
        ? TYPE_USER
        : t === 'progress'
          ? TYPE_PROGRESS
          : t === 'system'
            ? TYPE_SYSTEM
            : t === 'attachment'
              ? TYPE_ATTACHMENT
              : t === 'custom-title'
                ? TYPE_TITLE
                : t === 'summary'
                  ? TYPE_SUMMARY
                  : TYPE_OTHER;
  f.haveType = true;
  const uuid = s(v.uuid);
  if (uuid !== undefined) {
    const b = Buffer.from(uuid, 'utf8');
    [f.uuidBuf, f.uuidS, f.uuidE] = [b, 0, b.length];
  }
  const parent = s(v.parentUuid);
  if (parent !== undefined) {
    const b = Buffer.from(parent, 'utf8');
    [f.parentBuf, f.parentS, f.parentE] = [b, 0, b.length];
  }
  f.sidechain = v.isSidechain === true;
  f.apiError = v.isApiErrorMessage === true;
  f.subtypeBoundary = v.subtype === 'compact_boundary';
  f.timestamp = s(v.timestamp);
  f.cwd = s(v.cwd);
  f.version = s(v.version);
  f.sessionId = s(v.sessionId);
  f.title = s(v.customTitle) ?? s(v.summary);
  const m = isObj(v.message) ? v.message : undefined;
  if (m) {
    const mid = s(m.id);
    if (mid !== undefined) {
      const b = Buffer.from(mid, 'utf8');
      [f.msgBuf, f.msgS, f.msgE] = [b, 0, b.length];
    }
    f.msgModel = s(m.model);
    f.synthetic = m.model === SYNTHETIC_MODEL;
  }
}
