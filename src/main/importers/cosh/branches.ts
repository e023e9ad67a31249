import type { ItemKind } from './parse';
import { type BranchState, type Context, cloneBranch, newContext } from './state';
import type { CanonSurface } from './surface';

/**
 * A branch as the machine keeps it: cosh's mirror of its state (./state.ts) beside the simulation
 * of the canonical surface Palimpsest's replay will compute (./surface.ts), and what the machine
 * has written on it (the plan, the kind of the last new item, an open compaction bracket).
 */

export interface OpenCompaction {
  readonly id: string;
  readonly startSeq: number;
  readonly strategy: string;
}

export interface Branch {
  state: BranchState;
  surface: CanonSurface;
  /** The canonical plan last written on this branch's history, as JSON (null: none yet). */
  todoCanon: string | null;
  lastNewKind: ItemKind | null;
  open: OpenCompaction | null;
  divergenceReported: boolean;
}

export function cloneB(b: Branch, name?: string): Branch {
  const state = cloneBranch(b.state);
  if (name !== undefined) state.name = name;
  return { state, surface: b.surface.clone(), todoCanon: b.todoCanon, lastNewKind: b.lastNewKind, open: b.open, divergenceReported: false };
}

/** The key of an event: its branch and event id. */
export const key = (branch: string, event: number): string => `${branch}\u0000${event}`;

/** The branch's context state, created on first use (a change before `initialize`). */
export function ctx(b: Branch): Context {
  b.state.context ??= newContext();
  return b.state.context;
}
