import type { Severity } from '../../../shared/model/diagnostic';
import type { EventBody, EventOf } from '../../../shared/model/event';
import type { JsonLine } from '../../reader/types';
import type { FileImport, FileInfo } from '../types';
import { MAX_CONTENT_DEPTH } from '../../../shared/json-depth';
import { apiRequest, shape } from './api-request';
import { TOO_DEEP_INPUT } from './blocks';
import { flush } from './assistant';
import { envelope } from './branches';
import { noSummary } from './compaction';
import { conversation } from './conversation';
import { health, unknownRecord } from './health';
import type { ClaudeSession } from './importer';
import { type Obj, id, str } from './json';
import { KNOWN_TYPES } from './known';
import { plain, progress, system } from './records';
import { ApiRequestIndex } from './requests';
import { type Branch, EMPTY, type Skel } from './skeleton';
import { openSubagent, openSummarizer, stem } from './subagents';

/** Seqs cited by one aggregated diagnostic, at most. */
const MAX_CITED = 20;

interface Count {
  count: number;
  line: number;
  seqs: number[];
}

/**
 * One file of the session: the per-file state every part of the import reads and writes, the
 * plumbing it writes through (events on a branch, diagnostics of this file), each line routed by
 * record type, and the file's end (responses still to write, aggregated diagnostics).
 */
export class ClaudeFile implements FileImport {
  cur: JsonLine = { value: EMPTY, line: 0, offset: 0, length: 0 };
  started = false;
  /** The branch the file's records go to by default (main; a subagent's own branch). */
  fileBranch: Branch | null = null;
  /** Branch of the file's latest conversation record. */
  current: Branch | null = null;
  readonly subagent: boolean;
  readonly acompact: boolean;
  /** A side question (`agent-aside_question-*`): asked beside the conversation, never part of it. */
  readonly aside: boolean;
  /**
   * Summarizer and side-question files copy the conversation before their own prompt, by design:
   * the copies reuse the session's uuids and are not duplicates to report.
   */
  readonly copiesConversation: boolean;
  /** Records of this file that are copies of records already in the session. */
  copied = 0;
  readonly agentIdFromName: string | undefined;
  /** Branches this file wrote to, in order. */
  readonly touched: Branch[] = [];
  readonly unknownTypes = new Map<string, Count>();
  readonly unknownFields = new Map<string, Count>();
  /** Tool inputs nested too deep to keep as structure (blocks.ts), kept as their JSON text. */
  readonly tooDeep = new Map<string, Count>();
  readonly unknownBlock: (what: string) => void;
  duplicates: { count: number; line: number; first: number } | null = null;
  unlogged: { count: number; line: number; parents: number[] } | null = null;
  lastVersion: string | undefined;
  /** Whether messages are hashed for `api-request` keep/base/tail: not for versions that never write them. */
  hashMessages = true;
  lastUuid: string | undefined;
  lastEntry: Skel | undefined;
  versionWarned = false;
  private failures = 0;
  /** The messages `api-request` records name (2.1.332): hashes → items, blobs, per-request lists. */
  readonly api = new ApiRequestIndex();
  apiUnresolved: { count: number; line: number; what: string } | null = null;
  /** Api-requests whose `keep` no conversation of this log can hold (a finding, not a length). */
  apiBadCount: { count: number; line: number; what: string } | null = null;

  constructor(readonly s: ClaudeSession, readonly info: FileInfo) {
    const name = /(?:^|[\\/])agent-([^\\/]+)\.jsonl$/.exec(info.path);
    this.subagent = info.index > 0;
    if (!this.subagent) s.mainFile = info.index;
    this.agentIdFromName = name?.[1];
    this.acompact = this.agentIdFromName?.startsWith('acompact') ?? false;
    this.aside = this.subagent && (this.agentIdFromName?.startsWith('aside_question') ?? false);
    this.copiesConversation = this.subagent && (this.acompact || this.aside);
    this.unknownBlock = (what) => (what === TOO_DEEP_INPUT ? this.count(this.tooDeep, what) : this.count(this.unknownFields, what));
  }

  report(rule: string, severity: Severity, message: string, seqs: number[] = [], line: number | null = this.cur.line): void {
    this.s.sink.diagnostic({ rule, severity, message, seqs, line, file: this.info.path });
  }

  count(map: Map<string, Count>, key: string, seq?: number): void {
    let c = map.get(key);
    if (!c) {
      c = { count: 0, line: this.cur.line, seqs: [] };
      map.set(key, c);
    }
    c.count++;
    if (seq !== undefined && c.seqs.length < MAX_CITED) c.seqs.push(seq);
  }

  emit(b: Branch, event: EventBody): number {
    if (b.touchedBy !== this.info.index) {
      b.touchedBy = this.info.index;
      this.touched.push(b);
    }
    return this.s.emit(b, event, this.cur);
  }

  line(l: JsonLine): void {
    this.cur = l;
    if (!this.subagent) this.s.mainLast = l;
    try {
      this.handle(l.value);
    } catch (err) {
      // A bug or an input shape nobody foresaw: report it with the line and go on.
      this.failures++;
      if (this.failures <= 5) {
        this.report('CC_IMPORT_FAILED', 'error', `Line ${l.line} could not be imported (${err instanceof Error ? err.message : String(err)}); it is skipped.`);
      }
    }
  }

  private handle(v: Obj): void {
    if (!this.started) this.start(v);
    health(this, v);
    const type = v.type;
    if (typeof type !== 'string') return unknownRecord(this, '(no type)', v);
    if (!KNOWN_TYPES.has(type)) return unknownRecord(this, type, v);
    switch (type) {
      case 'user':
      case 'assistant':
      case 'attachment':
        return conversation(this, type, v);
      case 'system':
        return system(this, v);
      case 'progress':
        return progress(this, v);
      case 'api-request-shape':
        return shape(this, v);
      case 'api-request':
        return apiRequest(this, v);
      default:
        return plain(this, type, v);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Start of a file: the session and its envelope (main file) or the subagent's branch.

  private start(v: Obj): void {
    this.started = true;
    const s = this.s;
    if (!this.subagent) {
      const b = s.newBranch('main', null, null, false, 'agent');
      s.main = b;
      this.fileBranch = b;
      const session: EventOf<'session'> = { kind: 'session', id: id(v.sessionId) ?? stem(this.info.path), harness: 'claude-code' };
      const version = str(v.version);
      if (version !== undefined) session.harnessVersion = version;
      const cwd = str(v.cwd);
      if (cwd !== undefined) session.cwd = cwd;
      const at = str(v.timestamp);
      if (at !== undefined) session.at = at;
      this.emit(b, session);
      envelope(this, b);
      return;
    }
    // A side question's branch forks where its question hangs off the conversation (placement.ts).
    if (this.aside) return;
    this.fileBranch = this.acompact ? openSummarizer(this, v) : openSubagent(this, v);
  }

  // ---------------------------------------------------------------------------------------------

  end(): void {
    if (!this.started) return;
    for (const b of this.touched) if (b.compaction) noSummary(this, b);
    // The main file's newest leaf keeps its last response for the end of the session (ClaudeSession.end).
    const held = this.subagent ? null : this.s.leaf;
    for (const b of this.touched) if (b !== held) flush(this, b);
    for (const [type, u] of this.unknownTypes) {
      this.report('UNKNOWN_RECORDS', 'warning', `${u.count} record${u.count === 1 ? '' : 's'} of type "${type}", which this importer does not know (first at line ${u.line}); kept as unknown events.`, u.seqs, u.line);
    }
    if (this.unknownFields.size > 0) {
      // A log can name any number of fields: the message lists the first few, and the earliest
      // line is found without spreading them all as arguments (which overflows the stack).
      const parts: string[] = [];
      let first = Infinity;
      for (const [k, c] of this.unknownFields) {
        if (c.line < first) first = c.line;
        if (parts.length < MAX_CITED) parts.push(`${k} ×${c.count} (first at line ${c.line})`);
      }
      const more = this.unknownFields.size - parts.length;
      this.report('UNKNOWN_FIELDS', 'info', `Fields and content this importer does not know: ${parts.join('; ')}${more > 0 ? `; and ${more} more` : ''}. They are ignored.`, [], first);
    }
    for (const c of this.tooDeep.values()) {
      this.report('CC_TOO_DEEP', 'warning', `${c.count} tool input${c.count === 1 ? '' : 's'} nest${c.count === 1 ? 's' : ''} more than ${MAX_CONTENT_DEPTH} levels deep (first at line ${c.line}); each is kept as its JSON text.`, c.seqs, c.line);
    }
    if (this.duplicates) {
      const d = this.duplicates;
      const first = d.first > 0 ? `, first written at line ${d.first}` : '';
      this.report('CC_DUPLICATE_UUID', 'warning', `${d.count} record${d.count === 1 ? ' reuses a uuid' : 's reuse uuids'} already in the session (first at line ${d.line}${first}); the first record stands and the later ones are kept as records.`, [], d.line);
    }
    if (this.apiUnresolved) {
      const u = this.apiUnresolved;
      this.report('CC_API_REQUEST_UNRESOLVED', 'warning', `${u.count} api-request record${u.count === 1 ? '' : 's'} (first at line ${u.line}) could not be rebuilt (the first ${u.what}); the view${u.count === 1 ? '' : 's'} of ${u.count === 1 ? 'that request is' : 'those requests are'} the branch's surface, which may differ from what was sent.`, [], u.line);
    }
    if (this.apiBadCount) {
      const u = this.apiBadCount;
      this.report('CC_API_REQUEST_BAD_COUNT', 'warning', `${u.count} api-request record${u.count === 1 ? '' : 's'} (first at line ${u.line}) give${u.count === 1 ? 's' : ''} a "keep" that cannot count the messages the log holds (the first: ${u.what}); ${u.count === 1 ? 'it is' : 'they are'} kept as record${u.count === 1 ? '' : 's'} and the view${u.count === 1 ? '' : 's'} of ${u.count === 1 ? 'that request is' : 'those requests are'} the branch's surface.`, [], u.line);
    }
    if (this.unlogged) {
      const u = this.unlogged;
      this.report('CC_UNLOGGED_CONTEXT', 'warning', `${u.count} record${u.count === 1 ? '' : 's'} of this file (first at line ${u.line}) ${u.count === 1 ? 'is a message' : 'are messages'} the main conversation held after its line${u.parents.length === 1 ? '' : 's'} ${u.parents.join(', ')}, which the main log does not record: the main branch's views after ${u.parents.length === 1 ? 'that line' : 'those lines'} lack ${u.count === 1 ? 'it' : 'them'}.`, [], u.line);
    }
  }
}
