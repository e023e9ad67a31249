import { useSyncExternalStore } from 'react';
import type { PalimpsestApi } from '../../shared/api/contract';
import { createRerunStore, type RerunStore, type TargetRequest } from './store';

/**
 * One re-run store per open session, kept while the session's tab is open so a job keeps
 * streaming while the user is in the inspector; and which view of the session is showing
 * (the inspector or re-run & compare). The shell forgets a session with `forgetSession`.
 * The inspector's "Re-run this compaction / request" goes through `rerunTarget`.
 */

export type SessionMode = 'inspect' | 'rerun';

const stores = new Map<string, RerunStore>();
const modes = new Map<string, SessionMode>();
const listeners = new Set<() => void>();
/** Targets asked for before the session's re-run store existed (it is made when the panel first shows). */
const pendingTargets = new Map<string, TargetRequest>();
/** Sessions whose re-run panel should take the keyboard focus when it shows (it was opened by a button that is gone). */
const focusWanted = new Set<string>();

export function rerunStoreFor(api: PalimpsestApi, sessionId: string): RerunStore {
  let s = stores.get(sessionId);
  if (!s) {
    s = createRerunStore(api, sessionId, pendingTargets.get(sessionId));
    pendingTargets.delete(sessionId);
    stores.set(sessionId, s);
    void s.getState().load();
  }
  return s;
}

export function modeOf(sessionId: string): SessionMode {
  return modes.get(sessionId) ?? 'inspect';
}

export function setMode(sessionId: string, mode: SessionMode): void {
  if (modeOf(sessionId) === mode) return;
  modes.set(sessionId, mode);
  for (const l of listeners) l();
}

/** Shows re-run & compare aimed at this compaction or request (the inspector's buttons). */
export function rerunTarget(sessionId: string, request: TargetRequest): void {
  const s = stores.get(sessionId);
  if (s) void s.getState().aim(request);
  else pendingTargets.set(sessionId, request);
  focusWanted.add(sessionId);
  setMode(sessionId, 'rerun');
}

/** True once after rerunTarget: the panel then moves the focus to the target it was opened on. */
export function takeFocus(sessionId: string): boolean {
  return focusWanted.delete(sessionId);
}

/** Drops what was kept for sessions that are no longer open. */
export function keepOnly(open: readonly string[]): void {
  const keep = new Set(open);
  for (const id of [...stores.keys()]) if (!keep.has(id)) stores.delete(id);
  for (const id of [...modes.keys()]) if (!keep.has(id)) modes.delete(id);
  for (const id of [...pendingTargets.keys()]) if (!keep.has(id)) pendingTargets.delete(id);
  for (const id of [...focusWanted]) if (!keep.has(id)) focusWanted.delete(id);
}

function subscribe(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

export function useSessionMode(sessionId: string): SessionMode {
  return useSyncExternalStore(subscribe, () => modeOf(sessionId));
}
