import type { EventBody, EventOf } from '../../../shared/model/event';
import type { JsonLine } from '../../reader/types';
import type { FileImport, FileInfo, ImportSink, SessionImport } from '../types';
import { type MissingRef, checkReferences } from './dag';
import { ClaudeFile } from './file';
import { Branch, type Compaction, type RequestEntry, type Skel } from './skeleton';
import type { SurfaceNode } from './surface';
import { UnloggedFacts } from './unlogged';

/*
 * Claude Code transcripts → canonical events.
 *
 * INPUT. `~/.claude/projects/<cwd>/<sessionId>.jsonl` plus `<sessionId>/subagents/agent-*.jsonl`
 * (2.1.x) or the `agent-*.jsonl` beside it whose first line names the session (2.0.x). The main file and its subagent files are one session (`sessionFiles`), read
 * main file first, through one `ClaudeSession` that shares state across them. Lines arrive in
 * file order and are never kept: per conversation record the importer keeps a small skeleton
 * (`Skel`: order, parent, branch, item id, message id, the seq of its last event, the surface
 * right after it); any other record with a uuid only maps it to its nearest conversation
 * ancestor; per branch a head and a persistent list of item ids (./surface.ts); per distinct
 * message.id one request entry (ids, usage numbers, a line location).
 *
 * BRANCHES (the uuid/parentUuid DAG, decided as we go; ./dag.ts, ./placement.ts, ./branches.ts). Only conversation records (user,
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
 * ITEMS (./conversation.ts, ./assistant.ts). user line → one item (id = uuid, role `user`, as the Messages API has it: tool results
 * stay `tool_result` blocks of user items); `isMeta` lines (reminders, caveats, re-read files)
 * are items with `meta: true` — they are sent. assistant lines sharing `message.id` → the first
 * is an item (id = message.id, role `assistant`), later ones `op: extend` of it; thinking →
 * reasoning, redacted_thinking → redacted reasoning, tool_use → tool_call (input as JSON).
 * Consecutive user items are not merged here: Claude Code merges them on the wire.
 * `<synthetic>` assistant lines are items without a request; `isApiErrorMessage` ones are a
 * request with an error response (no usage: the zeros Claude Code writes are not a report) and an
 * `op: log` item. `attachment` (2.1.332) → a meta user item.
 *
 * REQUESTS (./assistant.ts). Before the first line of each distinct message.id on a branch: `request` (id =
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
 * ENVELOPE (./branches.ts, ./api-request.ts). Claude Code (≤ 2.1.39) logs neither the system prompt nor the tool schemas: the
 * session starts with `header` {system: null, tools: null, route {provider: anthropic}}; the gap
 * between the reported context and the logged items is the unlogged envelope. An
 * `api-request-shape` record (2.1.332) → `header` {system, tools} from its `shape`.
 *
 * COMPACTION (./compaction.ts, ./microcompact.ts, ./subagents.ts). `system/compact_boundary` (a new root; `logicalParentUuid` names the last
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
 * UNLOGGED (./unlogged.ts). What some versions change in a request by rules of their own without a
 * record (src/shared/compat/claude-unlogged.ts): the microcompact of 2.0.77 (never logged) and of
 * 2.1.9 to 2.1.39 in print mode, and 2.1.9's headless todo reminder. Before each agent request the
 * rule is evaluated on the branch's surface and the last reply's usage: results certainly cleared →
 * `mask` {by harness, no reference}; what is not certain either way (a threshold known only as a
 * bracket, a process that may have restarted at a prompt) → the request's `unlogged`, named only
 * where the rule could have fired. A record print mode never writes (file-history-snapshot,
 * attachment, system lines but compact_boundary) marks the session interactive: its log records
 * both, and the rules are not applied from then on.
 *
 * SUBAGENTS (./subagents.ts). `subagents/agent-<id>.jsonl` → branch `agent-<id>`: a `fork` {inherit: false} whose
 * parent ref is the assistant line holding the Task/Agent tool call that spawned it (agentId →
 * call id from `agent_progress` or the result's `toolUseResult.agentId`), then its own envelope
 * `header`: a fresh subagent sees only its own prompt, and none of the parent's requests are on
 * its branch. Sidechain records of older main files linked to a Task call are spawned the same
 * way. Not linkable → a branch of its own with its own header, CC_SUBAGENT_UNLINKED.
 *
 * RECORDS (./records.ts, ./api-request.ts). progress → `record` `progress/<data.type>`; file-history-snapshot, queue-operation,
 * summary, system/* (turn_duration, stop_hook_summary, local_command, …), last-prompt, cost-state,
 * mode, tools-used, atis-latch, api-request-blob, api-request → `record` on the branch of the
 * conversation record they hang off (or the file's current branch). `api-request` (one per model
 * call in 2.1.332: querySource, shapeHash, params, keep/base/tail) is also recorded, and the
 * branch's surface is rebuilt as the messages it names (keep/base/tail, ./requests.ts).
 *
 * FORMAT HEALTH (./health.ts, ./file.ts). Unknown record types → `unknown` events, UNKNOWN_RECORDS (count and first line per
 * type and file); unknown top-level fields and content block types → UNKNOWN_FIELDS; a `version`
 * newer than the newest version verified on the wire (src/shared/compat/versions.ts) → CC_VERSION_NEWER. A line that cannot be mapped is reported, never thrown.
 */

/** One session: the main file and its companions, sharing the DAG. */
export class ClaudeSession implements SessionImport {
  readonly uuids = new Map<string, Skel>();
  readonly requests = new Map<string, RequestEntry>();
  readonly compactions: Compaction[] = [];
  /** What the rules for unlogged changes read (./unlogged.ts). */
  readonly unlogged = new UnloggedFacts();
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
    const b = new Branch(name, fork, node, sidechain, purpose);
    // A fork inherits its parent's envelope, and with it the reload note.
    if (fork) b.reloadMayDrop = fork.branch.reloadMayDrop;
    // …and what its process may have cleared or added unlogged, as of now.
    if (fork) b.unlogged = fork.branch.unlogged;
    return b;
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
    checkReferences(this);
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
      this.emit(
        leaf,
        { kind: 'record', type: 'leaf', summary: `the main file's newest leaf is on branch ${leaf.name}` },
        last,
        this.mainFile,
      );
    }
  }
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
