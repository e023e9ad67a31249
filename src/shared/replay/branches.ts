import type { Ref } from '../model/event';
import { branchAt, eventAt, kindAt, type EventLog } from '../model/event-log';

export const MAIN_BRANCH = 'main';

export interface BranchInfo {
  readonly name: string;
  /** Where the branch was forked from, if it was. */
  readonly forkedFrom: Ref | null;
  /** Seq of its newest own event. */
  readonly lastSeq: number;
  readonly ownEvents: number;
}

export interface BranchProblem {
  readonly seq: number;
  readonly message: string;
}

/** The events a branch consists of, in order: inherited prefix, then its own, minus what a revert or rollback abandoned. */
export interface ResolvedBranch {
  readonly name: string;
  readonly seqs: readonly number[];
  readonly problems: readonly BranchProblem[];
}

export function listBranches(events: EventLog): BranchInfo[] {
  const byName = new Map<string, { forkedFrom: Ref | null; lastSeq: number; ownEvents: number }>();
  for (let seq = 0; seq < events.length; seq++) {
    const name = branchAt(events, seq) ?? MAIN_BRANCH;
    let b = byName.get(name);
    if (!b) {
      b = { forkedFrom: null, lastSeq: seq, ownEvents: 0 };
      byName.set(name, b);
    }
    b.lastSeq = seq;
    b.ownEvents++;
    if (b.forkedFrom === null && kindAt(events, seq) === 'fork') {
      const e = eventAt(events, seq);
      if (e.kind === 'fork') b.forkedFrom = e.parent;
    }
  }
  return [...byName].map(([name, b]) => ({ name, ...b }));
}

/**
 * The branch a user most likely wants first: the one with the newest event. Forks, reverts and
 * rollbacks all resolve by reference, so this only chooses which head to show.
 */
export function defaultBranch(events: EventLog): string {
  let best = MAIN_BRANCH;
  let bestSeq = -1;
  for (const b of listBranches(events)) {
    if (b.lastSeq > bestSeq) {
      best = b.name;
      bestSeq = b.lastSeq;
    }
  }
  return best;
}

/**
 * Resolve a branch into the sequence of events its model views are built from. Every event has a
 * predecessor: the previous event of its branch; for a fork, the referenced parent event; for a
 * revert or rollback, its target — which may be an event an earlier revert abandoned, so a
 * rollback restores the exact prior head. A branch's history is the path from its newest event
 * back to the first. Abandoned events stay in the raw history; they are just not on the path.
 */
export function resolveBranch(events: EventLog, name: string): ResolvedBranch {
  const problems: BranchProblem[] = [];
  const pred = new Int32Array(events.length).fill(-1);
  const seen = new Uint8Array(events.length);
  const head = new Map<string, number>();
  // Kind and branch come from the log's columns; only forks, reverts and rollbacks are built.
  for (let seq = 0; seq < events.length; seq++) {
    const branch = branchAt(events, seq) ?? MAIN_BRANCH;
    const own = head.get(branch) ?? -1;
    let p = own;
    const kind = kindAt(events, seq);
    if (kind === 'fork' || kind === 'revert' || kind === 'rollback') {
      const e = eventAt(events, seq);
      const target = e.kind === 'fork' ? e.parent.seq : e.kind === 'revert' || e.kind === 'rollback' ? e.target.seq : -1;
      if (target >= seq || seen[target] !== 1) {
        problems.push({ seq, message: `${kind} at seq ${seq} refers to seq ${target}, which is not an earlier event; it is ignored.` });
      } else if (e.kind === 'fork' && own >= 0) {
        problems.push({ seq, message: `Fork at seq ${seq} comes after events of branch ${branch}; only a first fork sets the parent.` });
      } else {
        p = e.kind === 'fork' && e.inherit === false ? -1 : target;
      }
    }
    pred[seq] = p;
    seen[seq] = 1;
    head.set(branch, seq);
  }
  const seqs: number[] = [];
  for (let s = head.get(name) ?? -1; s >= 0; s = pred[s] as number) seqs.push(s);
  seqs.reverse();
  return { name, seqs, problems: problems.filter((p) => seqs.includes(p.seq)) };
}
