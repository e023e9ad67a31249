import type { Severity } from '../../../shared/model/diagnostic';
import type { EventBody, EventOf } from '../../../shared/model/event';
import type { JsonLine } from '../../reader/types';
import type { FileImport, FileInfo } from '../types';
import { apiRequest, shape } from './api-request';
import { flush } from './assistant';
import { envelope, reloadChanged } from './branches';
import { noSummary } from './compaction';
import { conversation } from './conversation';
import { FileFindings } from './findings';
import { health, unknownRecord } from './health';
import type { ClaudeSession } from './importer';
import { type Obj, id, isObj, obj, str } from './json';
import { KNOWN_TYPES } from './known';
import { plain, progress, system } from './records';
import { ApiRequestIndex } from './requests';
import { type Branch, EMPTY, type Skel } from './skeleton';
import { openSubagent, openSummarizer, stem } from './subagents';
import { noteRecord } from './unlogged';

/** Events that open a branch or set its envelope: a reload note goes after them, not before. */
const OPENING: ReadonlySet<EventBody['kind']> = new Set(['session', 'fork', 'header']);

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
  readonly agentIdFromName: string | undefined;
  /** Branches this file wrote to, in order. */
  readonly touched: Branch[] = [];
  /** What the file's lines showed, told once at its end. */
  readonly findings = new FileFindings();
  lastVersion: string | undefined;
  /** Whether the version of the file's records so far may leave out parallel calls after a reload (undefined: none had a version). */
  reloadMayDrop: boolean | undefined;
  /** Whether messages are hashed for `api-request` keep/base/tail: not for versions that never write them. */
  hashMessages = true;
  lastUuid: string | undefined;
  lastEntry: Skel | undefined;
  private failures = 0;
  /**
   * Leading queue-operation lines of a main file, held until a line names the client version: a
   * headless session opens with them, and they carry none, so the session event would name none.
   */
  private held: JsonLine[] = [];
  private versionAhead: Obj | undefined;
  /** The messages `api-request` records name (2.1.332): hashes → items, blobs, per-request lists. */
  readonly api = new ApiRequestIndex();

  constructor(
    readonly s: ClaudeSession,
    readonly info: FileInfo,
  ) {
    const name = /(?:^|[\\/])agent-([^\\/]+)\.jsonl$/.exec(info.path);
    this.subagent = info.index > 0;
    if (!this.subagent) s.mainFile = info.index;
    this.agentIdFromName = name?.[1];
    this.acompact = this.agentIdFromName?.startsWith('acompact') ?? false;
    this.aside = this.subagent && (this.agentIdFromName?.startsWith('aside_question') ?? false);
    this.copiesConversation = this.subagent && (this.acompact || this.aside);
  }

  /** A content block of a type nobody knows, on the current line. A method, not a closure kept per file: a followed session copies the file's state (session/read-on.ts). */
  unknownBlock(what: string): void {
    this.findings.block(what, this.cur.line);
  }

  report(rule: string, severity: Severity, message: string, seqs: number[] = [], line: number | null = this.cur.line): void {
    this.s.sink.diagnostic({ rule, severity, message, seqs, line, file: this.info.path });
  }

  emit(b: Branch, event: EventBody): number {
    if (b.touchedBy !== this.info.index) {
      b.touchedBy = this.info.index;
      this.touched.push(b);
    }
    // A session resumed by a client on the other side of 2.1.97: its records change the branch's note.
    const version = this.lastVersion;
    if (this.reloadMayDrop !== undefined && version !== undefined && this.reloadMayDrop !== b.reloadMayDrop && !OPENING.has(event.kind))
      this.s.emit(b, reloadChanged(this, b, version), this.cur);
    return this.s.emit(b, event, this.cur);
  }

  line(l: JsonLine): void {
    if (!this.started && !this.subagent && this.held.length < HOLD_MAX && isQueueOnly(l.value)) {
      this.held.push(l);
      return;
    }
    this.release(l.value);
    this.take(l);
  }

  /** The held lines, in their order, before `next` (whose version and cwd the session takes). */
  private release(next: unknown): void {
    if (this.held.length === 0) return;
    const held = this.held;
    this.held = [];
    if (isObj(next)) this.versionAhead = next;
    for (const h of held) this.take(h);
  }

  private take(l: JsonLine): void {
    this.cur = l;
    if (!this.subagent) this.s.mainLast = l;
    try {
      this.handle(l.value);
    } catch (err) {
      // A bug or an input shape nobody foresaw: report it with the line and go on.
      this.failures++;
      if (this.failures <= 5) {
        this.report(
          'CC_IMPORT_FAILED',
          'error',
          `Line ${l.line} could not be imported (${err instanceof Error ? err.message : String(err)}); it is skipped.`,
        );
      }
    }
  }

  private handle(v: Obj): void {
    if (!this.started) this.start(v);
    health(this, v);
    const type = v.type;
    if (typeof type !== 'string') return unknownRecord(this, '(no type)', v);
    noteRecord(this, type, str(v.subtype), type === 'attachment' ? str(obj(v.attachment)?.type) : undefined);
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
      const version = str(v.version) ?? str(this.versionAhead?.version);
      if (version !== undefined) session.harnessVersion = version;
      const cwd = str(v.cwd) ?? str(this.versionAhead?.cwd);
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
    this.release(undefined);
    if (!this.started) return;
    for (const b of this.touched) if (b.compaction) noSummary(this, b);
    // The main file's newest leaf keeps its last response for the end of the session (ClaudeSession.end).
    const held = this.subagent ? null : this.s.leaf;
    for (const b of this.touched) if (b !== held) flush(this, b);
    this.findings.report((rule, severity, message, seqs, line) => this.report(rule, severity, message, seqs, line));
  }
}

/** Lines held at most before a main file starts anyway. */
const HOLD_MAX = 16;

/** A queue-operation line naming no client version. */
function isQueueOnly(v: unknown): boolean {
  return isObj(v) && v.type === 'queue-operation' && v.version === undefined;
}
