import type { LogEvent, Ref } from '../model/event';

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

const branchOf = (e: LogEvent): string => e.branch ?? MAIN_BRANCH;

export function listBranches(events: readonly LogEvent[]): BranchInfo[] {
  const byName = new Map<string, { forkedFrom: Ref | null; lastSeq: number; ownEvents: number }>();
  for (const e of events) {
    const name = branchOf(e);
    let b = byName.get(name);
    if (!b) {
      b = { forkedFrom: null, lastSeq: e.seq, ownEvents: 0 };
      byName.set(name, b);
    }
    b.lastSeq = e.seq;
    b.ownEvents++;
    if (e.kind === 'fork' && b.forkedFrom === null) b.forkedFrom = e.parent;
  }
  return [...byName].map(([name, b]) => ({ name, ...b }));
}

/**
 * The branch a user most likely wants first: the one with the newest event. Forks, reverts and
 * rollbacks all resolve by reference, so this only chooses which head to show.
 */
export function defaultBranch(events: readonly LogEvent[]): string {
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
 * Resolve a branch into the sequence of events its model views are built from. A fork inherits its
 * parent's resolved events up to the referenced seq; a revert or rollback cuts the branch back to
 * the referenced event and continues after itself. Abandoned events stay in the raw history.
 */
export function resolveBranch(events: readonly LogEvent[], name: string, depth = 0): ResolvedBranch {
  const problems: BranchProblem[] = [];
  let seqs: number[] = [];
  if (depth > 64) return { name, seqs, problems: [{ seq: 0, message: `Branch ${name}: fork chain deeper than 64 (a cycle?).` }] };
  const own = events.filter((e) => branchOf(e) === name);
  for (const e of own) {
    if (e.kind === 'fork') {
      const parentName = e.parent.branch ?? MAIN_BRANCH;
      if (parentName === name) {
        problems.push({ seq: e.seq, message: `Fork at seq ${e.seq} names its own branch as parent; ignored.` });
      } else if (seqs.length === 0) {
        const parent = resolveBranch(events, parentName, depth + 1);
        problems.push(...parent.problems);
        seqs = parent.seqs.filter((s) => s <= e.parent.seq);
        if (!parent.seqs.includes(e.parent.seq)) {
          problems.push({ seq: e.seq, message: `Fork at seq ${e.seq} references seq ${e.parent.seq}, which is not on branch ${parentName}.` });
        }
      } else {
        problems.push({ seq: e.seq, message: `Fork at seq ${e.seq} comes after events of branch ${name}; only a first fork sets the parent.` });
      }
      seqs.push(e.seq);
      continue;
    }
    if (e.kind === 'revert' || e.kind === 'rollback') {
      const target = e.target.seq;
      if (!seqs.includes(target)) {
        problems.push({ seq: e.seq, message: `${e.kind} at seq ${e.seq} targets seq ${target}, which is not in the history of branch ${name}; ignored.` });
      } else {
        seqs = seqs.filter((s) => s <= target);
      }
      seqs.push(e.seq);
      continue;
    }
    seqs.push(e.seq);
  }
  return { name, seqs, problems };
}
