import type { Severity } from '../../../shared/model/diagnostic';
import type { EventBody, EventOf, Finish, Usage } from '../../../shared/model/event';
import type { Item } from '../../../shared/model/item';
import type { JsonLine } from '../../reader/types';
import type { FileImport, FileInfo, ImportSink, SessionImport } from '../types';
import { answeredCalls, attachmentBlocks, mapContent, mapFinish, mapSystem, mapTools, mapUsage } from './blocks';
import { type Obj, id, isObj, nat, obj, oneLine, str } from './json';
import {
  KNOWN_FIELDS, KNOWN_SYSTEM_SUBTYPES, KNOWN_TYPES, LAST_VERSION_WITHOUT_API_REQUESTS, NEWEST_KNOWN_VERSION, SPAWN_TOOLS, compareVersions,
} from './known';
import { ApiRequestIndex, type PendingBlob } from './requests';
import { type NodeData, type SurfaceNode, contains, fromArray, insertBefore, push, toArray } from './surface';

/*
 * Claude Code transcripts → canonical events.
 *
 * INPUT. `~/.claude/projects/<cwd>/<sessionId>.jsonl` plus `<sessionId>/subagents/agent-*.jsonl`
 * (formats.md §4). The main file and its subagent files are one session (`sessionFiles`), read
 * main file first, through one `ClaudeSession` that shares state across them. Lines arrive in
 * file order and are never kept: per conversation record the importer keeps a small skeleton
 * (`Skel`: order, parent, branch, item id, message id, the seq of its last event, the surface
 * right after it); any other record with a uuid only maps it to its nearest conversation
 * ancestor; per branch a head and a persistent list of item ids (./surface.ts); per distinct
 * message.id one request entry (ids, usage numbers, a line location).
 *
 * BRANCHES (the uuid/parentUuid DAG, decided as we go). Only conversation records (user,
 * assistant, attachment, and compact_boundary) are nodes; other records with uuids (progress,
 * system lines) are looked through: a conversation record whose parent is a progress record hangs
 * off that record's nearest conversation ancestor. A record continues the branch whose head is its
 * parent. It also continues it when its parent is an earlier line of the message the branch is
 * answering (one API response is split over several lines, and parallel tool results hang off
 * different lines of it: the parent walk alone would orphan them, as Claude Code's own
 * `recoverOrphanedParallelToolResults` knows) — unless it is a new human prompt. Any other parent
 * is a rewind: a new branch `rewind-<n>` starts with a `fork` whose ref is {parent's branch, seq
 * of the parent's last event}. Replay opens the branch with the newest event; because subagent
 * files are read after the main file, the main file holds back the response of its newest leaf's
 * last request and the session writes it last (located in the main file: `ImportSink.emit` with
 * its index), so that branch stays the default. When there is no such response (the main file
 * ends on a user message), a `record` of type `leaf` on that branch does the same.
 * A parent that is not in the session → placed after the previous record of the file, reported
 * (CC_MISSING_PARENT); if it turns up later in the file it was a forward reference
 * (CC_FORWARD_PARENT) and, if following it leads back to the record, a cycle (CC_PARENT_CYCLE).
 * A second record with a uuid already seen → a `record` (the first one stands), CC_DUPLICATE_UUID.
 * A later root (parentUuid null) in the main file → its own branch `root-<n>` (CC_NEW_ROOT).
 * Sidechain records in the main file (`isSidechain: true`, older versions) → their own branches
 * `sidechain-<n>`, never `op: log`: their requests are model calls with views of their own.
 *
 * ITEMS. user line → one item (id = uuid, role `user`, as the Messages API has it: tool results
 * stay `tool_result` blocks of user items); `isMeta` lines (reminders, caveats, re-read files)
 * are items with `meta: true` — they are sent. assistant lines sharing `message.id` → the first
 * is an item (id = message.id, role `assistant`), later ones `op: extend` of it; thinking →
 * reasoning, redacted_thinking → redacted reasoning, tool_use → tool_call (input as JSON).
 * Consecutive user items are not merged here: Claude Code merges them on the wire.
 * `<synthetic>` assistant lines are items without a request; `isApiErrorMessage` ones are a
 * request with an error response and an `op: log` item. `attachment` (2.1.332) → a meta user item.
 *
 * REQUESTS. Before the first line of each distinct message.id on a branch: `request` (id =
 * message.id, purpose `agent`, or `compaction` on a summarizer branch), preceded by a `header`
 * {route.model} when the model changes. Its `response` is written once the message is complete:
 * before the branch's next request, at a compaction boundary, or at the end of the file — with
 * the usage of the message's LAST line (Claude Code repeats usage on every line; output_tokens
 * grows), so usage is counted once per message.id. Usage: input_tokens → input,
 * cache_read_input_tokens → cacheRead, cache_creation_input_tokens → cacheWrite, output_tokens →
 * output (reported context = input + cacheRead + cacheWrite). Finish: end_turn/stop_sequence →
 * stop, tool_use → tool_calls, max_tokens → length, refusal, pause_turn → pause, other → unknown;
 * 2.1.x logs `stop_reason: null` on every line, so there is usually no finish (never guessed).
 * A rewind inherits requests whose response its parent branch wrote after the fork point (the
 * response waits for the message to be complete): the fork gets its own copy of that response
 * right after the `fork` event, located at the same line. (Subagents inherit nothing; see below.)
 *
 * ENVELOPE. Claude Code (≤ 2.1.39) logs neither the system prompt nor the tool schemas: the
 * session starts with `header` {system: null, tools: null, route {provider: anthropic}}; the gap
 * between the reported context and the logged items is the unlogged envelope. An
 * `api-request-shape` record (2.1.332) → `header` {system, tools} from its `shape`.
 *
 * COMPACTION. `system/compact_boundary` (a new root; `logicalParentUuid` names the last
 * pre-compact record; missing → file order, CC_LOGICAL_PARENT_MISSING) → `compaction/start` {id =
 * boundary uuid, trigger, preTokens, source = the items it covers}. The `isCompactSummary` user
 * line after it → item with derivation checkpoint {covers: every item live on the branch before
 * the boundary except the preserved ones, part summary}, `sources` = start + covered items'
 * events; it is `insert`ed before the first preserved item (else appended), so the view after it
 * is [summary, preserved…, what follows]; then `compaction/end` {committed, postTokens}. Preserved
 * = `compactMetadata.preservedMessages.uuids` ∪ the `preservedSegment` head…tail walk; preserved
 * assistant lines written after the boundary are items without a new request. A boundary with no
 * summary line → `drop` of the covered items and `compaction/end` fallback (CC_COMPACT_NO_SUMMARY).
 * The summarizer's own log, `subagents/agent-acompact-*.jsonl`, becomes branch
 * `agent-acompact-<hex>` forked at the compaction's `compaction/start` (linked to the first
 * unlinked compaction after the record its first line hangs off): its requests have purpose
 * `compaction` and the compaction's id, so its view is the pre-compact surface + what the
 * summarizer file adds (the summary prompt) and its response carries the summarizer's usage.
 * Records of that file whose parents are main-file records are inserted before the item that
 * followed that parent on the main branch; when the main branch went on after that parent, the
 * main log lacks a message the model saw (CC_UNLOGGED_CONTEXT).
 * `system/microcompact_boundary` → `mask` {by harness, no reference: the log does not record the
 * placeholder} of the live items answering `compactedToolIds` (the tool_result stays on the wire
 * with cleared content, so it is a mask, not a drop).
 *
 * SUBAGENTS. `subagents/agent-<id>.jsonl` → branch `agent-<id>`: a `fork` {inherit: false} whose
 * parent ref is the assistant line holding the Task/Agent tool call that spawned it (agentId →
 * call id from `agent_progress` or the result's `toolUseResult.agentId`), then its own envelope
 * `header`: a fresh subagent sees only its own prompt, and none of the parent's requests are on
 * its branch. Sidechain records of older main files linked to a Task call are spawned the same
 * way. Not linkable → a branch of its own with its own header, CC_SUBAGENT_UNLINKED.
 *
 * RECORDS. progress → `record` `progress/<data.type>`; file-history-snapshot, queue-operation,
 * summary, system/* (turn_duration, stop_hook_summary, local_command, …), last-prompt, cost-state,
 * mode, tools-used, atis-latch, api-request-blob, api-request → `record` on the branch of the
 * conversation record they hang off (or the file's current branch). `api-request` (one per model
 * call in 2.1.332: querySource, shapeHash, params, keep/base/tail) is only recorded: rebuilding a
 * request's messages from keep/base/tail blobs waits for real samples of that dialect.
 *
 * FORMAT HEALTH. Unknown record types → `unknown` events, UNKNOWN_RECORDS (count and first line per
 * type and file); unknown top-level fields and content block types → UNKNOWN_FIELDS; a `version`
 * newer than 2.1.332 → CC_VERSION_NEWER. A line that cannot be mapped is reported, never thrown.
 */

const EMPTY: Obj = Object.freeze({}) as Obj;
/** Seqs cited by one aggregated diagnostic, at most. */
const MAX_CITED = 20;
/** Missing-parent references remembered for the end-of-session check, at most. */
const MAX_REFS = 10_000;

/** A line's location without its parsed value (which is never kept). */
function locOf(l: JsonLine): JsonLine {
  return { value: EMPTY, line: l.line, offset: l.offset, length: l.length };
}

class Skel {
  branch: Branch | null = null;
  tailSeq = -1;
  itemId: string | undefined = undefined;
  /** The message this record belongs to (assistant lines, tool results and meta lines of a turn). */
  msgId: string | undefined = undefined;
  /** The branch's surface right after this record. */
  node: SurfaceNode | null = null;
  /** The latest request in its branch's history at this record. */
  req: RequestEntry | null = null;
  /** The item placed right after this record on its path. */
  succ: string | undefined = undefined;
  /** Nearest conversation record at or above it. */
  anchor: Skel | null;
  constructor(
    readonly uuid: string,
    readonly order: number,
    readonly file: number,
    readonly line: number,
    readonly parent: Skel | null,
  ) {
    this.anchor = null;
  }
}

/** What the uuid of a record without a conversation ancestor maps to. */
const NO_ANCHOR = new Skel('', -1, -1, 0, null);

class Branch {
  head: Skel | null = null;
  /** The message the branch is answering (for split responses and parallel tool results). */
  turnMsg: string | undefined = undefined;
  /** The request whose response this branch still has to write. */
  pending: RequestEntry | null = null;
  /** The latest request in this branch's history. */
  lastReq: RequestEntry | null = null;
  model: string | undefined = undefined;
  compaction: Compaction | null = null;
  /** Uuids the last compaction preserved (their assistant lines are not new requests). */
  preserved: ReadonlySet<string> | null = null;
  compactionId: string | undefined = undefined;
  /** The last file that wrote to it. */
  touchedBy = -1;
  constructor(
    readonly name: string,
    readonly fork: { readonly branch: Branch; readonly seq: number } | null,
    public node: SurfaceNode | null,
    /** A subagent's conversation (set by the first record of a main file opened on its own). */
    public sidechain: boolean,
    readonly purpose: 'agent' | 'compaction',
  ) {}

  /** The `branch` field of its events (absent for main). */
  get key(): string | undefined {
    return this.name === 'main' ? undefined : this.name;
  }
}

interface RequestEntry {
  readonly id: string;
  readonly branch: Branch;
  /** Seq of the request event; -1 for a preserved message (no request of its own). */
  readonly seq: number;
  readonly itemSeq: number;
  readonly file: number;
  usage: Usage | undefined;
  finish: Finish | undefined;
  error: { code?: string; message: string } | undefined;
  last: JsonLine;
  /** Response events written for it, per branch. */
  readonly responses: { branch: Branch; seq: number }[];
}

interface Compaction {
  readonly id: string;
  readonly branch: Branch;
  readonly startSeq: number;
  readonly order: number;
  /** The surface at the boundary (before the compaction). */
  readonly node: SurfaceNode | null;
  readonly covers: readonly SurfaceNode[];
  readonly keep: readonly SurfaceNode[];
  readonly postTokens: number | undefined;
  linked: boolean;
}

type Parent =
  | { readonly state: 'root' }
  | { readonly state: 'missing'; readonly uuid: string }
  | { readonly state: 'found'; readonly anchor: Skel | null };

interface Placement {
  readonly branch: Branch;
  /** The record it hangs off, when known. */
  readonly parent: Skel | null;
  /** Put the new item before this live item instead of appending it. */
  readonly before?: string;
}

interface Count {
  count: number;
  line: number;
  seqs: number[];
}

interface MissingRef {
  readonly file: FileInfo;
  readonly line: number;
  readonly uuid: string;
  readonly skel: Skel | null;
  readonly logical: boolean;
}

/** One session: the main file and its companions, sharing the DAG. */
export class ClaudeSession implements SessionImport {
  readonly uuids = new Map<string, Skel>();
  readonly requests = new Map<string, RequestEntry>();
  readonly compactions: Compaction[] = [];
  /** Task/Agent tool call id → the record holding the call. */
  readonly taskCalls = new Map<string, Skel>();
  /** agentId → the tool call id that spawned it. */
  readonly agentLinks = new Map<string, string>();
  readonly branchNames = new Set<string>();
  readonly missing: MissingRef[] = [];
  order = 0;
  counters = { rewind: 0, sidechain: 0, root: 0 };
  main: Branch | null = null;
  /** Branch of the newest non-sidechain conversation record of the main file. */
  leaf: Branch | null = null;
  lastEmitted: Branch | null = null;
  /** The main file's last line (and the main file's index), where a closing `leaf` record is located. */
  mainLast: JsonLine | null = null;
  mainFile = 0;
  files: FileInfo[] = [];

  constructor(readonly sink: ImportSink) {}

  file(file: FileInfo): FileImport {
    this.files.push(file);
    return new ClaudeFile(this, file);
  }

  newBranch(base: string, fork: Branch['fork'], node: SurfaceNode | null, sidechain: boolean, purpose: Branch['purpose']): Branch {
    let name = base;
    for (let n = 2; this.branchNames.has(name); n++) name = `${base}~${n}`;
    this.branchNames.add(name);
    return new Branch(name, fork, node, sidechain, purpose);
  }

  /** Emit on branch `b`; `fileIndex`: the file `from` is in, when it is not the file being read. */
  emit(b: Branch, event: EventBody, from: JsonLine, fileIndex?: number): number {
    if (b.key !== undefined) event.branch = b.key;
    this.lastEmitted = b;
    return this.sink.emit(event, from, fileIndex);
  }

  /** The response of request `r` on branch `b`, located at the last line of its message (in its own file). */
  respond(r: RequestEntry, b: Branch): void {
    const e: EventOf<'response'> = { kind: 'response', request: r.id };
    if (r.finish) e.finish = r.finish;
    if (r.usage) e.usage = r.usage;
    if (r.error) e.error = r.error;
    r.responses.push({ branch: b, seq: this.emit(b, e, r.last, r.file) });
  }

  end(): void {
    this.checkReferences();
    const leaf = this.leaf;
    if (!leaf) return;
    // The main file held back the response of its newest leaf's last request: written now, after
    // every subagent file, it makes that branch the one with the newest event (the default).
    const r = leaf.pending;
    if (r) {
      leaf.pending = null;
      this.respond(r, leaf);
      return;
    }
    // Nothing held back (the main file ends without a response to write): a record says it.
    const last = this.mainLast;
    if (this.lastEmitted !== leaf && last) {
      this.emit(leaf, { kind: 'record', type: 'leaf', summary: `the main file's newest leaf is on branch ${leaf.name}` }, last, this.mainFile);
    }
  }

  /** Missing parents that turned up later (forward references), and cycles through them. */
  private checkReferences(): void {
    const byFile = new Map<FileInfo, { missing: MissingRef[]; forward: MissingRef[]; cycles: MissingRef[]; logical: MissingRef[]; logicalLater: MissingRef[] }>();
    const forwardTarget = new Map<Skel, Skel>();
    for (const m of this.missing) {
      const later = this.uuids.get(m.uuid);
      if (later && m.skel) forwardTarget.set(m.skel, later);
    }
    for (const m of this.missing) {
      let g = byFile.get(m.file);
      if (!g) {
        g = { missing: [], forward: [], cycles: [], logical: [], logicalLater: [] };
        byFile.set(m.file, g);
      }
      const later = this.uuids.get(m.uuid);
      if (m.logical) {
        (later ? g.logicalLater : g.logical).push(m);
        continue;
      }
      if (!later) {
        g.missing.push(m);
        continue;
      }
      if (m.skel && leadsBack(later, m.skel, forwardTarget)) g.cycles.push(m);
      else g.forward.push(m);
    }
    const list = (ms: MissingRef[]): string => ms.slice(0, 5).map((m) => `line ${m.line} (${m.uuid.slice(0, 13)})`).join(', ') + (ms.length > 5 ? ', …' : '');
    for (const [file, g] of byFile) {
      const report = (rule: string, severity: Severity, ms: MissingRef[], one: string, many: string): void => {
        const first = ms[0];
        if (!first) return;
        const text = ms.length === 1 ? `1 record ${one}` : `${ms.length} records ${many}`;
        this.sink.diagnostic({ rule, severity, file: file.path, line: first.line, seqs: [], message: `${text}: ${list(ms)}.` });
      };
      report('CC_MISSING_PARENT', 'warning', g.missing,
        'names a parentUuid that is in no file of the session; it is placed after the record before it in the file',
        'name a parentUuid that is in no file of the session; each is placed after the record before it in the file');
      report('CC_FORWARD_PARENT', 'info', g.forward,
        'names a parent written later in the session; it was placed after the record before it in the file',
        'name a parent written later in the session; each was placed after the record before it in the file');
      report('CC_PARENT_CYCLE', 'warning', g.cycles,
        'sits on a cycle of parentUuid links (following the parents leads back to it); it was placed in file order',
        'sit on a cycle of parentUuid links (following the parents leads back to the record); each was placed in file order');
      report('CC_LOGICAL_PARENT_MISSING', 'warning', g.logical,
        'is a compaction boundary whose logicalParentUuid is in no file of the session; it continues the branch of the record before it in the file',
        'are compaction boundaries whose logicalParentUuid is in no file of the session; each continues the branch of the record before it in the file');
      report('CC_LOGICAL_PARENT_LATER', 'info', g.logicalLater,
        'is a compaction boundary whose logicalParentUuid is written later in the file (a preserved message re-linked after the summary); it continues the branch of the record before it in the file',
        'are compaction boundaries whose logicalParentUuid is written later in the file (preserved messages re-linked after the summary); each continues the branch of the record before it in the file');
    }
  }
}

/** Where a registered conversation record hangs. */
function parentOf(v: Obj, skel: Skel): Parent {
  const p = id(v.parentUuid);
  if (p === undefined) return { state: 'root' };
  if (!skel.parent) return { state: 'missing', uuid: p };
  return { state: 'found', anchor: skel.parent.anchor };
}

/** True when following parents (and forward references) from `from` reaches `target`. */
function leadsBack(from: Skel, target: Skel, forward: ReadonlyMap<Skel, Skel>): boolean {
  const seen = new Set<Skel>();
  let s: Skel | null | undefined = from;
  while (s && !seen.has(s)) {
    if (s === target) return true;
    seen.add(s);
    s = s.parent ?? forward.get(s);
  }
  return false;
}

/** One file of the session. */
class ClaudeFile implements FileImport {
  private cur: JsonLine = { value: EMPTY, line: 0, offset: 0, length: 0 };
  private started = false;
  /** The branch the file's records go to by default (main; a subagent's own branch). */
  private fileBranch: Branch | null = null;
  /** Branch of the file's latest conversation record. */
  private current: Branch | null = null;
  private readonly subagent: boolean;
  private readonly acompact: boolean;
  private readonly agentIdFromName: string | undefined;
  /** Branches this file wrote to, in order. */
  private readonly touched: Branch[] = [];
  private readonly unknownTypes = new Map<string, Count>();
  private readonly unknownFields = new Map<string, Count>();
  private readonly unknownBlock: (what: string) => void;
  private duplicates: { count: number; line: number; first: number } | null = null;
  private unlogged: { count: number; line: number; parents: number[] } | null = null;
  private lastVersion: string | undefined;
  /** Whether messages are hashed for `api-request` keep/base/tail: not for versions that never write them. */
  private hashMessages = true;
  private lastUuid: string | undefined;
  private lastEntry: Skel | undefined;
  private versionWarned = false;
  private failures = 0;
  /** The messages `api-request` records name (2.1.332): hashes → items, blobs, per-request lists. */
  private readonly api = new ApiRequestIndex();
  private apiUnresolved: { count: number; line: number; what: string } | null = null;

  constructor(private readonly s: ClaudeSession, private readonly info: FileInfo) {
    const name = /(?:^|[\\/])agent-([^\\/]+)\.jsonl$/.exec(info.path);
    this.subagent = info.index > 0;
    if (!this.subagent) s.mainFile = info.index;
    this.agentIdFromName = name?.[1];
    this.acompact = this.agentIdFromName?.startsWith('acompact') ?? false;
    this.unknownBlock = (what) => this.count(this.unknownFields, what);
  }

  private report(rule: string, severity: Severity, message: string, seqs: number[] = [], line: number | null = this.cur.line): void {
    this.s.sink.diagnostic({ rule, severity, message, seqs, line, file: this.info.path });
  }

  private count(map: Map<string, Count>, key: string, seq?: number): void {
    let c = map.get(key);
    if (!c) {
      c = { count: 0, line: this.cur.line, seqs: [] };
      map.set(key, c);
    }
    c.count++;
    if (seq !== undefined && c.seqs.length < MAX_CITED) c.seqs.push(seq);
  }

  private emit(b: Branch, event: EventBody): number {
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
    this.health(v);
    const type = v.type;
    if (typeof type !== 'string') return this.unknownRecord('(no type)', v);
    if (!KNOWN_TYPES.has(type)) return this.unknownRecord(type, v);
    switch (type) {
      case 'user':
      case 'assistant':
      case 'attachment':
        return this.conversation(type, v);
      case 'system':
        return this.system(v);
      case 'progress':
        return this.progress(v);
      case 'api-request-shape':
        return this.shape(v);
      default:
        return this.plain(type, v);
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
      this.envelope(b);
      return;
    }
    this.fileBranch = this.acompact ? this.openSummarizer(v) : this.openSubagent(v);
  }

  /** Claude Code does not log the system prompt or the tool schemas (older versions): unknown, never guessed. */
  private envelope(b: Branch): void {
    this.emit(b, { kind: 'header', system: null, tools: null, route: { provider: 'anthropic' }, reason: 'initial' });
  }

  private standalone(base: string, sidechain: boolean, purpose: Branch['purpose']): Branch {
    const b = this.s.newBranch(base, null, null, sidechain, purpose);
    this.envelope(b);
    return b;
  }

  /** A branch that inherits `from`'s history through `seq` (a rewind, a summarizer). */
  private forkAt(base: string, from: Branch, seq: number, node: SurfaceNode | null, sidechain: boolean, purpose: Branch['purpose'], label: string): Branch {
    const b = this.s.newBranch(base, { branch: from, seq }, node, sidechain, purpose);
    const parent: { branch?: string; seq: number } = { seq };
    if (from.key !== undefined) parent.branch = from.key;
    this.emit(b, { kind: 'fork', parent, label });
    return b;
  }

  /**
   * A subagent spawned by the Task call at `call`: a branch linked to that point (`inherit:
   * false`) whose history starts empty, with an envelope of its own — a subagent sees its own
   * prompt, not the parent's conversation.
   */
  private spawnAt(base: string, call: Skel, label: string): Branch {
    const from = call.branch as Branch;
    const b = this.s.newBranch(base, null, null, true, 'agent');
    const parent: { branch?: string; seq: number } = { seq: call.tailSeq };
    if (from.key !== undefined) parent.branch = from.key;
    this.emit(b, { kind: 'fork', parent, label, inherit: false });
    this.envelope(b);
    return b;
  }

  /** A subagent file: a branch spawned at the Task call that started it. */
  private openSubagent(v: Obj): Branch {
    const agentId = id(v.agentId) ?? this.agentIdFromName ?? stem(this.info.path);
    const callId = this.s.agentLinks.get(agentId);
    const call = callId === undefined ? undefined : this.s.taskCalls.get(callId);
    const base = `agent-${agentId}`;
    if (!call || !call.branch) {
      this.report('CC_SUBAGENT_UNLINKED', 'info', `Subagent ${agentId}: no Task call in the session names it${callId ? ` (its call ${callId} is not in the log)` : ''}; its records are a branch of their own.`);
      return this.standalone(base, true, 'agent');
    }
    return this.spawnAt(base, call, `subagent ${agentId} (${callId ?? ''}, line ${call.line} of the main file)`);
  }

  /** A summarizer file (`agent-acompact-*`): fork at the start of the compaction it summarised. */
  private openSummarizer(v: Obj): Branch {
    const agentId = id(v.agentId) ?? this.agentIdFromName ?? stem(this.info.path);
    const base = `agent-${agentId}`;
    const p = this.resolve(v.parentUuid);
    const anchor = p.state === 'found' ? p.anchor : null;
    const open = this.s.compactions.filter((c) => !c.linked);
    const c = (anchor ? open.find((x) => x.order > anchor.order) : undefined) ?? open[0];
    if (c) {
      c.linked = true;
      if (!anchor || anchor.order > c.order) {
        this.report('CC_SUMMARIZER_LINK', 'info', `Summarizer ${agentId}: its first record does not hang off the conversation before a compaction; it is linked to the first compaction without a summarizer (${c.id}).`);
      }
      const b = this.forkAt(base, c.branch, c.startSeq, c.node, true, 'compaction', `summarizer of compaction ${c.id}`);
      b.compactionId = c.id;
      return b;
    }
    this.report('CC_SUMMARIZER_LINK', 'info', `Summarizer ${agentId}: the session has no compaction boundary to link it to; its records are a branch of their own.`);
    if (anchor?.branch) return this.forkAt(base, anchor.branch, anchor.tailSeq, anchor.node, true, 'compaction', `summarizer ${agentId}`);
    return this.standalone(base, true, 'compaction');
  }

  // ---------------------------------------------------------------------------------------------
  // Format health.

  private health(v: Obj): void {
    for (const k in v) if (!KNOWN_FIELDS.has(k)) this.count(this.unknownFields, `field "${k}"`);
    const version = v.version;
    if (typeof version === 'string' && version !== this.lastVersion) {
      this.lastVersion = version;
      const old = compareVersions(version, LAST_VERSION_WITHOUT_API_REQUESTS);
      this.hashMessages = old === null || old > 0;
      const cmp = compareVersions(version, NEWEST_KNOWN_VERSION);
      if (cmp !== null && cmp > 0 && !this.versionWarned) {
        this.versionWarned = true;
        this.report('CC_VERSION_NEWER', 'warning', `Line ${this.cur.line}: Claude Code ${version} is newer than ${NEWEST_KNOWN_VERSION}, the newest version this importer knows; records it does not know are counted below.`);
      }
    }
  }

  private unknownRecord(type: string, v: Obj): void {
    const b = this.branchFor(this.registerRecord(v));
    const e: EventOf<'unknown'> = { kind: 'unknown', type };
    const at = str(v.timestamp);
    if (at !== undefined) e.at = at;
    this.count(this.unknownTypes, type, this.emit(b, e));
  }

  // ---------------------------------------------------------------------------------------------
  // The DAG.

  private resolve(parentUuid: unknown): Parent {
    const p = id(parentUuid);
    if (p === undefined) return { state: 'root' };
    const s = this.s.uuids.get(p);
    return s === undefined ? { state: 'missing', uuid: p } : { state: 'found', anchor: s.anchor };
  }

  /**
   * Remember a conversation record. Returns its skeleton, null without uuid, or 'duplicate' when
   * the uuid was seen before (the first record stands).
   */
  private register(v: Obj, logical = false): Skel | null | 'duplicate' {
    const uuid = id(v.uuid);
    const p = id(v.parentUuid);
    const parent = p === undefined ? null : (this.lookup(p) ?? null);
    const missing = p !== undefined && !parent && !logical;
    const s = this.s;
    if (uuid === undefined || s.uuids.has(uuid)) {
      if (missing) this.missing(p, null, false);
      return uuid === undefined ? null : this.duplicate(uuid);
    }
    const skel = new Skel(uuid, s.order++, this.info.index, this.cur.line, parent);
    skel.anchor = skel;
    s.uuids.set(uuid, skel);
    this.lastUuid = uuid;
    this.lastEntry = skel;
    if (missing) this.missing(p, skel, false);
    return skel;
  }

  /** The entry of a uuid; most records hang off the line just before them, so that one is cached. */
  private lookup(uuid: string): Skel | undefined {
    return uuid === this.lastUuid ? this.lastEntry : this.s.uuids.get(uuid);
  }

  /**
   * Remember a record that is not a conversation node (progress, system lines…): no skeleton of
   * its own, its uuid maps to its nearest conversation ancestor (70 % of a real transcript's lines
   * are such records; allocating nothing for them keeps the import fast).
   */
  private registerRecord(v: Obj): Skel | null {
    const uuid = id(v.uuid);
    const p = id(v.parentUuid);
    let anchor: Skel = NO_ANCHOR;
    if (p !== undefined) {
      const parent = this.lookup(p);
      if (parent) anchor = parent.anchor ?? NO_ANCHOR;
      else this.missing(p, null, false);
    }
    if (uuid !== undefined) {
      const map = this.s.uuids;
      if (map.has(uuid)) this.duplicate(uuid);
      else {
        map.set(uuid, anchor);
        this.lastUuid = uuid;
        this.lastEntry = anchor;
      }
    }
    return anchor.anchor;
  }

  private duplicate(uuid: string): 'duplicate' {
    const seen = this.s.uuids.get(uuid);
    if (this.duplicates) this.duplicates.count++;
    else this.duplicates = { count: 1, line: this.cur.line, first: seen?.uuid === uuid ? seen.line : 0 };
    return 'duplicate';
  }

  private missing(uuid: string, skel: Skel | null, logical: boolean): void {
    if (this.s.missing.length < MAX_REFS) this.s.missing.push({ file: this.info, line: this.cur.line, uuid, skel, logical });
  }

  /** Branch for a record that is not a conversation node. */
  private recordBranch(v: Obj): Branch {
    const p = id(v.parentUuid);
    return this.branchFor(p === undefined ? null : (this.s.uuids.get(p)?.anchor ?? null));
  }

  /** Branch for a record hanging off conversation record `a`. */
  private branchFor(a: Skel | null): Branch {
    if (a?.branch && (!this.subagent || a.file === this.info.index)) return a.branch;
    return this.current ?? this.fileBranch ?? this.s.main ?? this.s.newBranch('main', null, null, false, 'agent');
  }

  /** Where a conversation record goes (creating a branch for a rewind, sidechain or new root). */
  private place(p: Parent, sidechain: boolean, prompt: boolean, agentId: string | undefined): Placement {
    const fallback = this.current ?? this.fileBranch as Branch;
    if (p.state === 'missing') return { branch: fallback, parent: null };
    const a = p.state === 'found' ? p.anchor : null;
    if (!a || !a.branch) {
      // A root: the file's first conversation record, or a new conversation in the same file.
      const fb = this.fileBranch as Branch;
      if (this.subagent || !fb.head) return { branch: fb, parent: null };
      if (sidechain) return { branch: this.sidechainBranch(agentId), parent: null };
      this.report('CC_NEW_ROOT', 'info', `Line ${this.cur.line} starts a new conversation (no parent) after the first one; it is a branch of its own.`);
      return { branch: this.standalone(`root-${++this.s.counters.root}`, false, 'agent'), parent: null };
    }
    if (this.subagent && a.file !== this.info.index) {
      // A subagent or summarizer record hanging off a record of another file: context it inherited.
      const b = this.fileBranch as Branch;
      if (a.succ !== undefined) {
        if (this.unlogged) {
          this.unlogged.count++;
          if (this.unlogged.parents.length < 5) this.unlogged.parents.push(a.line);
        } else this.unlogged = { count: 1, line: this.cur.line, parents: [a.line] };
        if (contains(b.node, a.succ)) return { branch: b, parent: a, before: a.succ };
      }
      return { branch: b, parent: a };
    }
    const b = a.branch;
    if (sidechain !== b.sidechain && !this.subagent) {
      return { branch: this.forkFrom(a, sidechain ? `sidechain-${++this.s.counters.sidechain}` : `root-${++this.s.counters.root}`, sidechain, `${sidechain ? 'sidechain' : 'conversation'} at line ${this.cur.line}`), parent: a };
    }
    if (a === b.head) return { branch: b, parent: a };
    // One response split over several lines; parallel tool results hang off different lines of it.
    if (!prompt && a.msgId !== undefined && a.msgId === b.turnMsg) return { branch: b, parent: a };
    return { branch: this.forkFrom(a, `rewind-${++this.s.counters.rewind}`, b.sidechain, `rewind to line ${a.line} (line ${this.cur.line})`), parent: a };
  }

  private sidechainBranch(agentId: string | undefined): Branch {
    const callId = agentId === undefined ? undefined : this.s.agentLinks.get(agentId);
    const call = callId === undefined ? undefined : this.s.taskCalls.get(callId);
    const base = agentId !== undefined ? `agent-${agentId}` : `sidechain-${++this.s.counters.sidechain}`;
    if (!call?.branch) return this.standalone(base, true, 'agent');
    return this.spawnAt(base, call, `sidechain ${agentId ?? ''} (${callId ?? ''})`);
  }

  /**
   * A new branch from record `a`, with its own copy of a response its parent wrote after `a`: the
   * parent writes a response once its message is complete (at its next request), so a fork at a
   * record after the message but before that request inherits the request without its response.
   */
  private forkFrom(a: Skel, base: string, sidechain: boolean, label: string): Branch {
    const from = a.branch as Branch;
    const b = this.forkAt(base, from, a.tailSeq, a.node, sidechain, from.purpose, label);
    b.head = a;
    b.turnMsg = a.msgId;
    b.lastReq = a.req;
    b.model = undefined;
    b.compactionId = from.compactionId;
    b.preserved = from.preserved;
    const r = a.req;
    if (r && r.seq >= 0 && !r.responses.some((x) => inHistory(from, a.tailSeq, x.branch, x.seq))) this.s.respond(r, b);
    return b;
  }

  // ---------------------------------------------------------------------------------------------
  // Requests and responses.

  /** Write the response of the branch's last request, now that the message is complete. */
  private flush(b: Branch): void {
    const r = b.pending;
    if (!r) return;
    b.pending = null;
    this.s.respond(r, b);
  }

  // ---------------------------------------------------------------------------------------------
  // Conversation records.

  private conversation(type: 'user' | 'assistant' | 'attachment', v: Obj): void {
    const skel = this.register(v);
    if (skel === 'duplicate') {
      const b = this.recordBranch(v);
      this.emit(b, { kind: 'record', type, summary: `duplicate uuid ${str(v.uuid) ?? ''}: the first record with it stands` });
      return;
    }
    const message = obj(v.message);
    const content = message?.content;
    const calls = type === 'user' ? answeredCalls(content) : undefined;
    const meta = v.isMeta === true || type === 'attachment';
    const prompt = type === 'user' && !meta && calls === undefined && v.isCompactSummary !== true;
    const sidechain = v.isSidechain === true;
    const p = skel ? parentOf(v, skel) : this.resolve(v.parentUuid);
    // A subagent file opened on its own: its main branch is a sidechain.
    if (!this.subagent && this.current === null && this.fileBranch) this.fileBranch.sidechain = sidechain;
    const pl = this.place(p, sidechain, prompt, id(v.agentId));
    const b = pl.branch;
    // Attachments (2.1.332 writes some between the boundary and the summary) do not end a compaction.
    if (b.compaction && type !== 'attachment' && !(type === 'user' && v.isCompactSummary === true)) this.noSummary(b);
    if (type === 'assistant') this.assistant(v, message, skel, pl);
    else this.userItem(type, v, content, calls, meta, skel, pl);
    this.current = b;
    if (!this.subagent && !sidechain) this.s.leaf = b;
  }

  private assistant(v: Obj, message: Obj | undefined, skel: Skel | null, pl: Placement): void {
    const b = pl.branch;
    const s = this.s;
    const blocks = mapContent(message?.content, this.unknownBlock);
    if (!blocks) this.report('CC_BAD_RECORD', 'warning', `Line ${this.cur.line}: an assistant record without message content; it is kept as an empty message.`);
    const msgId = id(message?.id) ?? id(v.uuid) ?? `line-${this.info.index}-${this.cur.line}`;
    const model = str(message?.model);
    const synthetic = model === '<synthetic>';
    const apiError = v.isApiErrorMessage === true;
    const at = str(v.timestamp);
    const usage = mapUsage(message?.usage);
    const finish = mapFinish(message?.stop_reason);

    let entry = s.requests.get(msgId);
    let itemId = msgId;
    if (entry && !inHistory(b, Number.MAX_SAFE_INTEGER, entry.branch, entry.itemSeq)) {
      // The same message id on another line of history: a message of its own.
      itemId = `${msgId}~${b.name}`;
      entry = s.requests.get(itemId);
    }
    let seq: number;
    let isNew = false;
    if (entry) {
      const ext: EventOf<'item'> = { kind: 'item', item: { id: entry.id, role: 'assistant', blocks: blocks ?? [] }, op: { op: 'extend' } };
      if (at !== undefined) ext.at = at;
      seq = this.emit(b, ext);
      if (usage) entry.usage = usage;
      if (finish) entry.finish = finish;
      entry.last = locOf(this.cur);
    } else {
      isNew = true;
      const uuid = id(v.uuid);
      const preserved = uuid !== undefined && (b.preserved?.has(uuid) ?? false);
      const request = apiError || (!synthetic && !preserved);
      let reqSeq = -1;
      if (request) {
        this.flush(b);
        if (model !== undefined && !synthetic && model !== b.model) {
          this.emit(b, { kind: 'header', route: { model } });
          b.model = model;
        }
        const req: EventOf<'request'> = { kind: 'request', id: itemId, purpose: b.purpose };
        if (b.compactionId !== undefined) req.compactionId = b.compactionId;
        if (at !== undefined) req.at = at;
        reqSeq = this.emit(b, req);
      }
      const item: Item = { id: itemId, role: 'assistant', blocks: blocks ?? [] };
      if (apiError) item.origin = 'api-error';
      else if (synthetic) item.origin = 'synthetic';
      const ev = this.itemEvent(item, apiError ? { op: 'log' } : pl.before !== undefined ? { op: 'insert', before: pl.before } : { op: 'append' }, at);
      seq = this.emit(b, ev);
      entry = {
        id: itemId, branch: b, seq: reqSeq, itemSeq: seq, file: this.info.index, usage, finish, error: undefined,
        last: locOf(this.cur), responses: [],
      };
      s.requests.set(itemId, entry);
      if (!apiError) this.enter(b, pl, { id: itemId, seq, calls: undefined });
      if (request) {
        b.lastReq = entry;
        b.pending = entry;
      }
      if (apiError) {
        const text = blocks?.find((x) => x.type === 'text');
        entry.error = { message: text?.type === 'text' ? oneLine(text.text, 500) : 'API error' };
        const code = str(v.error);
        if (code !== undefined) entry.error.code = code;
        this.flush(b);
      }
    }
    if (blocks) {
      for (const x of blocks) if (x.type === 'tool_call' && SPAWN_TOOLS.has(x.name) && skel) s.taskCalls.set(x.id, skel);
    }
    b.turnMsg = entry.id;
    if (this.hashMessages) this.api.assistant(entry.id, message?.content);
    this.settle(skel, pl, seq, entry.id, isNew, entry.id);
  }

  private userItem(type: 'user' | 'attachment', v: Obj, content: unknown, calls: string[] | undefined, meta: boolean, skel: Skel | null, pl: Placement): void {
    const b = pl.branch;
    const blocks = type === 'attachment' ? attachmentBlocks(v, this.unknownBlock) : mapContent(content, this.unknownBlock);
    const at = str(v.timestamp);
    if (!blocks) {
      this.report('CC_BAD_RECORD', 'warning', `Line ${this.cur.line}: a user record without message content; it is kept as a record.`);
      const r: EventOf<'record'> = { kind: 'record', type, summary: 'no message content' };
      if (at !== undefined) r.at = at;
      const seq = this.emit(b, r);
      this.settle(skel, pl, seq, undefined, false, undefined);
      return;
    }
    const itemId = id(v.uuid) ?? `line-${this.info.index}-${this.cur.line}`;
    const item: Item = { id: itemId, role: 'user', blocks };
    if (meta) item.meta = true;
    const summary = v.isCompactSummary === true;
    if (summary) item.origin = 'isCompactSummary';
    else if (type === 'attachment') item.origin = `attachment:${str(obj(v.attachment)?.type) ?? '?'}`;
    else if (v.isMeta === true) item.origin = 'isMeta';

    let seq: number;
    if (summary && b.compaction) seq = this.commit(b, item, at);
    else {
      if (summary) this.report('CC_SUMMARY_WITHOUT_BOUNDARY', 'warning', `Line ${this.cur.line}: a compact summary with no compaction boundary before it on its branch; it is kept as a plain message.`);
      seq = this.emit(b, this.itemEvent(item, pl.before !== undefined ? { op: 'insert', before: pl.before } : { op: 'append' }, at));
      this.enter(b, pl, { id: itemId, seq, calls });
    }
    if (type === 'user' && this.hashMessages) this.api.user(itemId, content);
    const result = obj(v.toolUseResult);
    const agentId = id(result?.agentId);
    const call = calls?.[0];
    if (agentId !== undefined && call !== undefined) this.s.agentLinks.set(agentId, call);
    this.settle(skel, pl, seq, itemId, true, calls !== undefined || meta ? b.turnMsg : undefined);
  }

  private itemEvent(item: Item, op: EventOf<'item'>['op'], at: string | undefined): EventOf<'item'> {
    const e: EventOf<'item'> = { kind: 'item', item, op };
    if (at !== undefined) e.at = at;
    return e;
  }

  /** Put a new item on the importer's copy of the branch's surface. */
  private enter(b: Branch, pl: Placement, data: NodeData): void {
    if (pl.before !== undefined) {
      const n = insertBefore(b.node, pl.before, data);
      if (n) {
        b.node = n;
        return;
      }
    }
    b.node = push(b.node, data);
  }

  /** The record is now the head of its branch. */
  private settle(skel: Skel | null, pl: Placement, seq: number, itemId: string | undefined, isNew: boolean, msgId: string | undefined): void {
    const b = pl.branch;
    if (isNew && itemId !== undefined && pl.parent && pl.parent.succ === undefined) pl.parent.succ = itemId;
    if (!skel) return;
    skel.branch = b;
    skel.tailSeq = seq;
    skel.itemId = itemId;
    skel.msgId = msgId;
    skel.node = b.node;
    skel.req = b.lastReq;
    b.head = skel;
  }

  // ---------------------------------------------------------------------------------------------
  // Compaction.

  private boundary(v: Obj): void {
    const skel = this.register(v);
    if (skel === 'duplicate') {
      this.emit(this.recordBranch(v), { kind: 'record', type: 'system/compact_boundary', summary: 'duplicate uuid: the first record with it stands' });
      return;
    }
    const logical = id(v.logicalParentUuid);
    let p: Parent = { state: 'missing', uuid: '' };
    if (logical !== undefined) {
      p = this.resolve(logical);
      if (p.state === 'missing') this.missing(logical, skel, true);
    }
    // Never part of a response: a logical parent that is not a branch head means a compaction after a rewind.
    const pl = this.place(p, v.isSidechain === true, true, undefined);
    const b = pl.branch;
    this.flush(b);
    if (b.compaction) this.noSummary(b);
    const cm = obj(v.compactMetadata) ?? {};
    const compactionId = id(v.uuid) ?? `compaction-${this.info.index}-${this.cur.line}`;
    const preserved = this.preservedUuids(cm);
    const keepIds = new Set<string>();
    for (const u of preserved) {
      const item = this.s.uuids.get(u)?.itemId;
      if (item !== undefined) keepIds.add(item);
    }
    const surface = toArray(b.node);
    const covers = surface.filter((n) => !keepIds.has(n.id));
    const keep = surface.filter((n) => keepIds.has(n.id));
    const trigger = cm.trigger === 'auto' || cm.trigger === 'manual' ? cm.trigger : 'unknown';
    const start: EventOf<'compaction/start'> = { kind: 'compaction/start', id: compactionId, trigger, source: covers.map((n) => n.id) };
    const pre = nat(cm.preTokens);
    if (pre !== undefined) start.preTokens = pre;
    const at = str(v.timestamp);
    if (at !== undefined) start.at = at;
    const startSeq = this.emit(b, start);
    const c: Compaction = {
      id: compactionId, branch: b, startSeq, order: skel ? skel.order : this.s.order++, node: b.node, covers, keep,
      postTokens: nat(cm.postTokens), linked: false,
    };
    b.compaction = c;
    b.preserved = preserved.size > 0 ? preserved : null;
    this.s.compactions.push(c);
    if (skel) {
      skel.branch = b;
      skel.tailSeq = startSeq;
      skel.node = b.node;
      skel.req = b.lastReq;
      b.head = skel;
    }
    b.turnMsg = undefined;
    this.current = b;
    if (!this.subagent && v.isSidechain !== true) this.s.leaf = b;
  }

  /** `preservedMessages.uuids` ∪ the records from `preservedSegment.tailUuid` back to its head. */
  private preservedUuids(cm: Obj): Set<string> {
    const out = new Set<string>();
    const pm = obj(cm.preservedMessages);
    if (Array.isArray(pm?.uuids)) for (const u of pm.uuids) if (typeof u === 'string') out.add(u);
    const seg = obj(cm.preservedSegment);
    const head = id(seg?.headUuid);
    const tail = id(seg?.tailUuid);
    if (head !== undefined && tail !== undefined) {
      // Walk from the tail back to the head through conversation records.
      const walked: string[] = [];
      const seen = new Set<Skel>();
      let s = this.s.uuids.get(tail)?.anchor ?? null;
      let reached = false;
      while (s && !seen.has(s)) {
        seen.add(s);
        walked.push(s.uuid);
        if (s.uuid === head) {
          reached = true;
          break;
        }
        s = s.parent?.anchor ?? null;
      }
      // Only a walk that reaches the head names the segment; otherwise the uuids list stands alone.
      if (reached) for (const u of walked) out.add(u);
    }
    return out;
  }

  /** The isCompactSummary line: the checkpoint, placed before the preserved messages. */
  private commit(b: Branch, item: Item, at: string | undefined): number {
    const c = b.compaction as Compaction;
    b.compaction = null;
    item.derivation = { kind: 'checkpoint', compactionId: c.id, covers: c.covers.map((n) => n.id), part: 'summary' };
    const live = toArray(b.node);
    const coverIds = new Set(c.covers.map((n) => n.id));
    const firstKept = c.keep.find((k) => live.some((n) => n.id === k.id));
    const ev = this.itemEvent(item, firstKept ? { op: 'insert', before: firstKept.id } : { op: 'append' }, at);
    ev.sources = [c.startSeq, ...c.covers.map((n) => n.seq)];
    const seq = this.emit(b, ev);
    const rest = live.filter((n) => !coverIds.has(n.id));
    const at0 = firstKept ? rest.findIndex((n) => n.id === firstKept.id) : rest.length;
    const summary: NodeData = { id: item.id, seq, calls: undefined };
    b.node = fromArray([...rest.slice(0, at0), summary, ...rest.slice(at0)]);
    const end: EventOf<'compaction/end'> = { kind: 'compaction/end', id: c.id, outcome: 'committed' };
    if (c.postTokens !== undefined) end.postTokens = c.postTokens;
    return this.emit(b, end);
  }

  /** A boundary with no summary line after it: the view restarted without a summary. */
  private noSummary(b: Branch): void {
    const c = b.compaction as Compaction;
    b.compaction = null;
    this.report('CC_COMPACT_NO_SUMMARY', 'warning', `Compaction ${c.id}: no isCompactSummary line follows its boundary on branch ${b.name}; the covered messages are dropped without a summary.`);
    const ids = new Set(c.covers.map((n) => n.id));
    const live = toArray(b.node).filter((n) => ids.has(n.id)).map((n) => n.id);
    if (live.length > 0) this.emit(b, { kind: 'drop', items: live, reason: 'compaction', compactionId: c.id });
    b.node = fromArray(toArray(b.node).filter((n) => !ids.has(n.id)));
    this.emit(b, {
      kind: 'compaction/end', id: c.id, outcome: 'fallback', fallback: { kind: 'other', marker: false },
      error: { message: 'no isCompactSummary line follows the compact_boundary' },
    });
  }

  private microcompact(v: Obj): void {
    const b = this.branchFor(this.registerRecord(v));
    const mm = obj(v.microcompactMetadata);
    const ids = new Set<string>();
    if (Array.isArray(mm?.compactedToolIds)) for (const x of mm.compactedToolIds) if (typeof x === 'string') ids.add(x);
    const items = toArray(b.node).filter((n) => n.calls?.some((c) => ids.has(c))).map((n) => n.id);
    const at = str(v.timestamp);
    if (items.length > 0) {
      const m: EventOf<'mask'> = { kind: 'mask', items, masked: true, by: 'harness' };
      if (at !== undefined) m.at = at;
      this.emit(b, m);
    } else {
      if (ids.size > 0) this.report('CC_MICROCOMPACT_UNMATCHED', 'info', `Line ${this.cur.line}: none of the ${ids.size} tool results this microcompact clears is in the view of branch ${b.name}.`);
      const r: EventOf<'record'> = { kind: 'record', type: 'system/microcompact_boundary' };
      if (at !== undefined) r.at = at;
      this.emit(b, r);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Records that change nothing the model sees.

  private system(v: Obj): void {
    const subtype = str(v.subtype) ?? '?';
    if (subtype === 'compact_boundary') return this.boundary(v);
    if (subtype === 'microcompact_boundary') return this.microcompact(v);
    if (!KNOWN_SYSTEM_SUBTYPES.has(subtype)) return this.unknownRecord(`system/${subtype}`, v);
    let summary: string | undefined;
    if (subtype === 'turn_duration') {
      const ms = nat(v.durationMs);
      if (ms !== undefined) summary = `${ms} ms`;
    } else if (typeof v.content === 'string') summary = oneLine(v.content);
    this.record(typeName('system/', subtype), v, summary);
  }

  private progress(v: Obj): void {
    const d = obj(v.data);
    const type = str(d?.type) ?? '?';
    if (type === 'agent_progress') {
      const agentId = id(d?.agentId);
      const call = id(v.parentToolUseID);
      if (agentId !== undefined && call !== undefined && !this.s.agentLinks.has(agentId)) this.s.agentLinks.set(agentId, call);
    }
    const hook = str(d?.hookName);
    this.record(typeName('progress/', type), v, hook);
  }

  private shape(v: Obj): void {
    const shape = obj(v.shape);
    const system = mapSystem(shape?.system);
    const tools = mapTools(shape?.tools);
    if (!shape || (system === undefined && tools === undefined)) {
      this.report('CC_BAD_RECORD', 'warning', `Line ${this.cur.line}: an api-request-shape without shape.system or shape.tools; it is kept as a record.`);
      return this.record('api-request-shape', v, str(v.shapeHash));
    }
    const a = this.registerRecord(v);
    const h: EventOf<'header'> = { kind: 'header', reason: `api-request-shape ${str(v.shapeHash) ?? ''}`.trim() };
    if (system !== undefined) h.system = system;
    if (tools !== undefined) h.tools = tools;
    const at = str(v.timestamp);
    if (at !== undefined) h.at = at;
    this.emit(this.branchFor(a), h);
  }

  private plain(type: string, v: Obj): void {
    let summary: string | undefined;
    switch (type) {
      case 'queue-operation':
        summary = str(v.operation);
        break;
      case 'summary': {
        const text = str(v.summary);
        if (text !== undefined) summary = oneLine(text);
        break;
      }
      case 'custom-title':
        summary = str(v.customTitle);
        break;
      case 'tag':
        summary = str(v.tag);
        break;
      case 'last-prompt': {
        const text = str(v.lastPrompt);
        if (text !== undefined) summary = oneLine(text);
        break;
      }
      case 'api-request-blob':
        if (typeof v.hash === 'string' && isObj(v.message)) this.api.blob(v.hash, v.message, locOf(this.cur));
        break;
      case 'api-request': {
        // One model call of the 2.1.332 dialect. Its messages are the first `keep` messages of
        // request `base` plus the `tail` blobs; rebuilding them waits for real samples.
        const params = obj(v.params);
        summary = [str(v.querySource), str(params?.model), str(v.shapeHash)].filter((x) => x !== undefined).join(' ') || undefined;
        this.record(typeName('', type), v, summary);
        return this.apiRequest(v);
      }
      default:
        break;
    }
    this.record(typeName('', type), v, summary);
  }

  /**
   * An `api-request` (2.1.332): the messages of the model call about to be made. The branch's
   * surface becomes exactly those messages: blob messages (the prompt merged with its reminders,
   * attachments rendered as a system message, the summary with its reminders) become items of
   * their own, placed where the request has them; live items the request does not send (the
   * records a blob stands for) are dropped. The request event itself follows with the response's
   * first line. When a message cannot be resolved, or the surface cannot be brought to the
   * request's order, the surface is left as it is and CC_API_REQUEST_UNRESOLVED says so.
   */
  private apiRequest(v: Obj): void {
    const b = this.recordBranch(v);
    const r = this.api.resolve(v);
    const fail = (what: string): void => {
      if (this.apiUnresolved) this.apiUnresolved.count++;
      else this.apiUnresolved = { count: 1, line: this.cur.line, what };
    };
    if (r.unresolved.length > 0) return fail(`names ${r.unresolved.length} message${r.unresolved.length === 1 ? '' : 's'} the log does not hold (${r.unresolved.slice(0, 3).map((h) => h.slice(0, 16)).join(', ')})`);
    const live = toArray(b.node);
    const liveIds = new Set(live.map((n) => n.id));
    const want: { id: string; blob?: { hash: string; message: PendingBlob } }[] = [];
    const messages: string[][] = [];
    for (const m of r.messages) {
      if (!m) return fail('names a message the log does not hold');
      if ('items' in m) {
        for (const x of m.items) if (!liveIds.has(x)) return fail(`sends item ${x}, which is not in the view of branch ${b.name} at that point`);
        want.push(...m.items.map((x) => ({ id: x })));
        messages.push([...m.items]);
      } else {
        const itemId = `api-${m.blob.slice(0, 16)}${this.info.index > 0 ? `~f${this.info.index}` : ''}`;
        want.push({ id: itemId, blob: { hash: m.blob, message: m.message } });
        messages.push([itemId]);
      }
    }
    // The items kept must already be in the request's order.
    const wantIds = new Set(want.map((w) => w.id));
    const kept = live.filter((n) => wantIds.has(n.id)).map((n) => n.id);
    const order = want.filter((w) => !w.blob).map((w) => w.id);
    if (kept.length !== order.length || kept.some((x, i) => x !== order[i])) return fail('sends the items of the view in another order');
    const drop = live.filter((n) => !wantIds.has(n.id)).map((n) => n.id);
    if (drop.length > 0) this.emit(b, { kind: 'drop', items: drop, reason: 'other' });
    const byId = new Map(live.map((n) => [n.id, n] as const));
    const nodes: NodeData[] = [];
    const at = str(v.timestamp);
    for (let i = 0; i < want.length; i++) {
      const w = want[i] as (typeof want)[number];
      if (!w.blob) {
        const n = byId.get(w.id) as SurfaceNode;
        nodes.push({ id: n.id, seq: n.seq, calls: n.calls });
        continue;
      }
      const next = want.slice(i + 1).find((x) => !x.blob);
      const blob = w.blob.message;
      const item: Item = { id: w.id, role: blob.role, blocks: blob.blocks, origin: 'api-request-blob' };
      if (blob.role === 'system') item.meta = true;
      // Located at the blob line, where its full text is re-read from.
      const seq = this.s.emit(b, this.itemEvent(item, next ? { op: 'insert', before: next.id } : { op: 'append' }, at), blob.at);
      this.api.itemized(w.blob.hash, w.id);
      nodes.push({ id: w.id, seq, calls: undefined });
    }
    b.node = fromArray(nodes);
    this.api.remember(r.id, messages);
  }

  private record(type: string, v: Obj, summary: string | undefined): void {
    const a = this.registerRecord(v);
    const r: EventOf<'record'> = { kind: 'record', type };
    if (summary !== undefined && summary !== '') r.summary = summary;
    const at = str(v.timestamp);
    if (at !== undefined) r.at = at;
    this.emit(this.branchFor(a), r);
  }

  // ---------------------------------------------------------------------------------------------

  end(): void {
    if (!this.started) return;
    for (const b of this.touched) if (b.compaction) this.noSummary(b);
    // The main file's newest leaf keeps its last response for the end of the session (ClaudeSession.end).
    const held = this.subagent ? null : this.s.leaf;
    for (const b of this.touched) if (b !== held) this.flush(b);
    for (const [type, u] of this.unknownTypes) {
      this.report('UNKNOWN_RECORDS', 'warning', `${u.count} record${u.count === 1 ? '' : 's'} of type "${type}", which this importer does not know (first at line ${u.line}); kept as unknown events.`, u.seqs, u.line);
    }
    if (this.unknownFields.size > 0) {
      const parts = [...this.unknownFields].map(([k, c]) => `${k} ×${c.count} (first at line ${c.line})`);
      const first = Math.min(...[...this.unknownFields.values()].map((c) => c.line));
      this.report('UNKNOWN_FIELDS', 'info', `Fields and content this importer does not know: ${parts.join('; ')}. They are ignored.`, [], first);
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
    if (this.unlogged) {
      const u = this.unlogged;
      this.report('CC_UNLOGGED_CONTEXT', 'warning', `${u.count} record${u.count === 1 ? '' : 's'} of this file (first at line ${u.line}) ${u.count === 1 ? 'is a message' : 'are messages'} the main conversation held after its line${u.parents.length === 1 ? '' : 's'} ${u.parents.join(', ')}, which the main log does not record: the main branch's views after ${u.parents.length === 1 ? 'that line' : 'those lines'} lack ${u.count === 1 ? 'it' : 'them'}.`, [], u.line);
    }
  }
}

/** Is event (target, seq) in the history of branch `b` as of its event `at`? */
function inHistory(b: Branch, at: number, target: Branch, seq: number): boolean {
  let cur: Branch | null = b;
  let limit = at;
  while (cur) {
    if (cur === target) return seq <= limit;
    if (!cur.fork) return false;
    limit = Math.min(limit, cur.fork.seq);
    cur = cur.fork.branch;
  }
  return false;
}

const typeNames = new Map<string, Map<string, string>>();
/** `prefix + name`, one string per distinct record type however many records have it. */
function typeName(prefix: string, name: string): string {
  let m = typeNames.get(prefix);
  if (!m) {
    m = new Map();
    typeNames.set(prefix, m);
  }
  let x = m.get(name);
  if (x === undefined) {
    x = prefix + name;
    if (m.size < 1000) m.set(name, x);
  }
  return x;
}

function stem(path: string): string {
  const base = path.split(/[\\/]/).pop() ?? path;
  return base.replace(/\.jsonl$/, '');
}

/** A one-file session: what `Importer.open` hands out. */
export function openFile(file: FileInfo, sink: ImportSink): FileImport {
  const s = new ClaudeSession(sink);
  const f = s.file(file);
  return {
    line: (l) => f.line(l),
    end: () => {
      f.end();
      s.end();
    },
  };
}

