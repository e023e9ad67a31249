import { lowerBoundBy } from '../seq-search';

/**
 * The surface: the ordered items the model would see next. Each item gets a sort key the first
 * time it enters the surface and keeps it for life, so a replacement can take the position of the
 * range it replaces, and any past surface can be rebuilt from a snapshot plus the operations after
 * it (random access without replaying from the start).
 */

/** Items are named by their index in the replay's item table (numbers: cheap to copy and compare). */
export type SurfaceOp =
  | { readonly seq: number; readonly type: 'add'; readonly id: number; readonly key: string }
  | { readonly seq: number; readonly type: 'remove'; readonly id: number; readonly key: string }
  /** Take `count` consecutive items off, starting with `id` (a replaced range: one splice, not one per item). */
  | { readonly seq: number; readonly type: 'removeRange'; readonly id: number; readonly key: string; readonly count: number }
  | { readonly seq: number; readonly type: 'mask'; readonly id: number; readonly masked: boolean };

export interface SurfaceState {
  /** Sort keys (./keys.ts), ascending; `ids[i]` has key `keys[i]`. */
  readonly keys: string[];
  readonly ids: number[];
  readonly masked: Set<number>;
}

export function emptySurface(): SurfaceState {
  return { keys: [], ids: [], masked: new Set() };
}

export function cloneSurface(s: SurfaceState): SurfaceState {
  return { keys: s.keys.slice(), ids: s.ids.slice(), masked: new Set(s.masked) };
}

/** Index of the first key ≥ `key`. */
export function lowerBound(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((keys[mid] as string) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Position of the live item `id` with sort key `key`, or -1. The id is checked too: a replacement
 * inherits the key of the first item it replaced, so a key alone does not say who is live.
 */
export function positionOf(s: SurfaceState, key: string, id: number): number {
  const i = lowerBound(s.keys, key);
  return i < s.keys.length && s.keys[i] === key && s.ids[i] === id ? i : -1;
}

export function applyOp(s: SurfaceState, op: SurfaceOp): void {
  switch (op.type) {
    case 'add': {
      const i = lowerBound(s.keys, op.key);
      if (s.keys[i] === op.key) return; // already live: idempotent
      if (i === s.keys.length) {
        s.keys.push(op.key);
        s.ids.push(op.id);
      } else {
        s.keys.splice(i, 0, op.key);
        s.ids.splice(i, 0, op.id);
      }
      return;
    }
    case 'remove': {
      const i = positionOf(s, op.key, op.id);
      if (i < 0) return;
      s.keys.splice(i, 1);
      s.ids.splice(i, 1);
      s.masked.delete(op.id);
      return;
    }
    case 'removeRange': {
      const i = positionOf(s, op.key, op.id);
      if (i < 0) return;
      const gone = s.ids.splice(i, op.count);
      s.keys.splice(i, op.count);
      for (const id of gone) s.masked.delete(id);
      return;
    }
    case 'mask':
      if (op.masked) s.masked.add(op.id);
      else s.masked.delete(op.id);
      return;
  }
}

/** Told by a cursor what it does: a state built afresh, and each operation just before it applies it. */
export interface SurfaceWatch {
  reset(state: SurfaceState): void;
  before(op: SurfaceOp, state: SurfaceState): void;
}

interface Snapshot {
  /** Ops before this index are included. */
  readonly opIndex: number;
  readonly state: SurfaceState;
}

/**
 * The history of the surface as a list of operations with snapshots taken whenever the operations
 * since the last snapshot outnumber the live items: total snapshot memory stays within a small
 * multiple of the operation count, and rebuilding any past surface costs at most about twice the
 * size of that surface.
 */
export class SurfaceHistory {
  readonly live: SurfaceState = emptySurface();
  private readonly ops: SurfaceOp[] = [];
  private readonly snapshots: Snapshot[] = [{ opIndex: 0, state: emptySurface() }];
  private sinceSnapshot = 0;

  apply(op: SurfaceOp): void {
    this.ops.push(op);
    applyOp(this.live, op);
    this.sinceSnapshot++;
    if (this.sinceSnapshot >= Math.max(64, this.live.ids.length)) {
      this.snapshots.push({ opIndex: this.ops.length, state: cloneSurface(this.live) });
      this.sinceSnapshot = 0;
    }
  }

  get opCount(): number {
    return this.ops.length;
  }

  /** The surface after every operation with seq < `beforeSeq`. */
  at(beforeSeq: number): SurfaceState {
    return this.atOpIndex(this.opsBefore(beforeSeq));
  }

  /**
   * A reader of surfaces for seqs that mostly increase (a pass over every request): it applies the
   * operations since the previous call to its own state instead of copying a snapshot per call. The
   * state it returns is shared: valid until the next call, never to be changed by the caller.
   * A seq lower than the previous one, or so far ahead that a snapshot is nearer, starts again from
   * a snapshot (then the watch is reset).
   */
  cursor(watch?: SurfaceWatch): (beforeSeq: number) => SurfaceState {
    let state: SurfaceState | null = null;
    let opIndex = 0;
    let last = Number.NEGATIVE_INFINITY;
    return (beforeSeq) => {
      const target = this.opsBefore(beforeSeq);
      // Rebuilding from a snapshot costs about the surface's size plus the ops since the snapshot.
      if (state === null || beforeSeq < last || target - opIndex > 2 * Math.max(64, state.ids.length)) {
        state = this.atOpIndex(target);
        opIndex = target;
        watch?.reset(state);
      } else {
        for (; opIndex < target; opIndex++) {
          const op = this.ops[opIndex] as SurfaceOp;
          watch?.before(op, state);
          applyOp(state, op);
        }
      }
      last = beforeSeq;
      return state;
    };
  }

  /** The number of operations with seq < `beforeSeq` (ops are in seq order). */
  private opsBefore(beforeSeq: number): number {
    return lowerBoundBy(this.ops, beforeSeq);
  }

  private atOpIndex(opIndex: number): SurfaceState {
    let sLo = 0;
    let sHi = this.snapshots.length - 1;
    while (sLo < sHi) {
      const mid = (sLo + sHi + 1) >>> 1;
      if ((this.snapshots[mid] as Snapshot).opIndex <= opIndex) sLo = mid;
      else sHi = mid - 1;
    }
    const snap = this.snapshots[sLo] as Snapshot;
    const state = cloneSurface(snap.state);
    for (let i = snap.opIndex; i < opIndex; i++) applyOp(state, this.ops[i] as SurfaceOp);
    return state;
  }
}
