import type { EventOf } from '../../../shared/model/event';
import { parallelDropWhy, recoversParallelResults } from '../../dialects/claude-resume';
import { UNRECORDED_CONTEXT } from '../../dialects/claude-unrecorded';
import type { ClaudeFile } from './file';
import { str } from './json';
import { type Branch, type Skel, inHistory } from './skeleton';
import type { SurfaceNode } from './surface';

/** Opening branches: a fresh one with its own envelope, a fork that inherits history, a subagent spawned at a call. */

/**
 * Claude Code does not log the system prompt, the tool schemas or the context it adds to messages
 * (versions before the `api-request` records, which set all three: ./api-request.ts): unknown,
 * never guessed. What it adds to messages is named on the envelope (src/main/dialects/
 * claude-unrecorded.ts), and so is what a reload of a version before 2.1.97 may leave out of
 * parallel calls (src/main/dialects/claude-resume.ts), by the version of the record that opens
 * the branch; a record of a version on the other side of 2.1.97 changes it (ClaudeFile.emit).
 */
export function envelope(f: ClaudeFile, b: Branch): void {
  const h: EventOf<'header'> = {
    kind: 'header',
    system: null,
    tools: null,
    route: { provider: 'anthropic' },
    unrecorded: [UNRECORDED_CONTEXT],
    reason: 'initial',
  };
  const version = str(f.cur.value.version) ?? f.lastVersion;
  // No version: nothing to tell by yet; the first record that has one says (ClaudeFile.emit).
  b.reloadMayDrop = version !== undefined && !recoversParallelResults(version);
  if (b.reloadMayDrop) h.reloadMayDrop = parallelDropWhy(version);
  f.emit(b, h);
}

/** A header that turns branch `b`'s reload note on or off, for a record of `version` on it. */
export function reloadChanged(f: ClaudeFile, b: Branch, version: string): EventOf<'header'> {
  b.reloadMayDrop = !recoversParallelResults(version);
  return { kind: 'header', reloadMayDrop: b.reloadMayDrop ? parallelDropWhy(version) : null, reason: `version ${version}` };
}

export function standalone(f: ClaudeFile, base: string, sidechain: boolean, purpose: Branch['purpose']): Branch {
  const b = f.s.newBranch(base, null, null, sidechain, purpose);
  envelope(f, b);
  return b;
}

/** A branch that inherits `from`'s history through `seq` (a rewind, a summarizer). */
export function forkAt(
  f: ClaudeFile,
  base: string,
  from: Branch,
  seq: number,
  node: SurfaceNode | null,
  sidechain: boolean,
  purpose: Branch['purpose'],
  label: string,
): Branch {
  const b = f.s.newBranch(base, { branch: from, seq }, node, sidechain, purpose);
  const parent: { branch?: string; seq: number } = { seq };
  if (from.key !== undefined) parent.branch = from.key;
  f.emit(b, { kind: 'fork', parent, label });
  return b;
}

/**
 * A subagent spawned by the Task call at `call`: a branch linked to that point (`inherit:
 * false`) whose history starts empty, with an envelope of its own — a subagent sees its own
 * prompt, not the parent's conversation.
 */
export function spawnAt(f: ClaudeFile, base: string, call: Skel, label: string): Branch {
  const from = call.branch as Branch;
  const b = f.s.newBranch(base, null, null, true, 'agent');
  const parent: { branch?: string; seq: number } = { seq: call.tailSeq };
  if (from.key !== undefined) parent.branch = from.key;
  f.emit(b, { kind: 'fork', parent, label, inherit: false });
  envelope(f, b);
  return b;
}

/**
 * A new branch from record `a`, with its own copy of a response its parent wrote after `a`: the
 * parent writes a response once its message is complete (at its next request), so a fork at a
 * record after the message but before that request inherits the request without its response.
 */
export function forkFrom(f: ClaudeFile, a: Skel, base: string, sidechain: boolean, label: string): Branch {
  const from = a.branch as Branch;
  const b = forkAt(f, base, from, a.tailSeq, a.node, sidechain, from.purpose, label);
  b.head = a;
  b.turnMsg = a.msgId;
  b.lastReq = a.req;
  b.model = undefined;
  b.compactionId = from.compactionId;
  b.preserved = from.preserved;
  const r = a.req;
  if (r && r.seq >= 0 && !r.responses.some((x) => inHistory(from, a.tailSeq, x.branch, x.seq))) f.s.respond(r, b);
  return b;
}
