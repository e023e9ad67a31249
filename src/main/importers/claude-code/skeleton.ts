import type { Finish, Usage } from '../../../shared/model/event';
import type { JsonLine } from '../../reader/types';
import type { Obj } from './json';
import type { SurfaceNode } from './surface';
import { UNLOGGED_NONE, type UnloggedBranch } from './unlogged';

/*
 * The skeleton the importer keeps instead of lines (see ./importer.ts, INPUT): per conversation
 * record a `Skel`, per branch a `Branch`, per distinct message.id a `RequestEntry`, per
 * compaction boundary a `Compaction`; and where a record goes (`Parent`, `Placement`).
 */

export const EMPTY: Obj = Object.freeze({}) as Obj;

/** A line's location without its parsed value (which is never kept). */
export function locOf(l: JsonLine): JsonLine {
  return { value: EMPTY, line: l.line, offset: l.offset, length: l.length };
}

export class Skel {
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
export const NO_ANCHOR = new Skel('', -1, -1, 0, null);

export class Branch {
  head: Skel | null = null;
  /** The message the branch is answering (for split responses and parallel tool results). */
  turnMsg: string | undefined = undefined;
  /** The request whose response this branch still has to write. */
  pending: RequestEntry | null = null;
  /**
   * Attachments written after an \`api-request\` (2.1.332) and before its response: the client
   * built the call before it logged them, so they are not in it (./api-request.ts). Null when no
   * rebuilt call is waiting for its response.
   */
  lateAttachments: string[] | null = null;
  /** The latest request in this branch's history. */
  lastReq: RequestEntry | null = null;
  model: string | undefined = undefined;
  compaction: Compaction | null = null;
  /** Uuids the last compaction preserved (their assistant lines are not new requests). */
  preserved: ReadonlySet<string> | null = null;
  compactionId: string | undefined = undefined;
  /** The last file that wrote to it. */
  touchedBy = -1;
  /** Whether its envelope says a reload may leave out parallel calls (HeaderEvent.reloadMayDrop). */
  reloadMayDrop = false;
  /** What the client may have changed in its requests without logging it (./unlogged.ts). */
  unlogged: UnloggedBranch = UNLOGGED_NONE;
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

export interface RequestEntry {
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

export interface Compaction {
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

export type Parent =
  | { readonly state: 'root' }
  | { readonly state: 'missing'; readonly uuid: string }
  | { readonly state: 'found'; readonly anchor: Skel | null };

export interface Placement {
  readonly branch: Branch;
  /** The record it hangs off, when known. */
  readonly parent: Skel | null;
  /** Put the new item before this live item instead of appending it. */
  readonly before?: string;
}

/** Is event (target, seq) in the history of branch `b` as of its event `at`? */
export function inHistory(b: Branch, at: number, target: Branch, seq: number): boolean {
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
