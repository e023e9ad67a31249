import { useSyncExternalStore } from 'react';
import type { PalimpsestApi } from '../../shared/api/contract';
import { createRerunStore, type RerunStore } from './store';

/**
 * One re-run store per open session, kept while the session's tab is open so a job keeps
 * streaming while the user is in the inspector; and which view of the session is showing
 * (the inspector or re-run & compare). The shell forgets a session with `forgetSession`.
 */

export type SessionMode = 'inspect' | 'rerun';

const stores = new Map<string, RerunStore>();
const modes = new Map<string, SessionMode>();
const listeners = new Set<() => void>();

export function rerunStoreFor(api: PalimpsestApi, sessionId: string): RerunStore {
  let s = stores.get(sessionId);
  if (!s) {
    s = createRerunStore(api, sessionId);
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

/** Drops what was kept for sessions that are no longer open. */
export function keepOnly(open: readonly string[]): void {
  const keep = new Set(open);
  for (const id of [...stores.keys()]) if (!keep.has(id)) stores.delete(id);
  for (const id of [...modes.keys()]) if (!keep.has(id)) modes.delete(id);
}

function subscribe(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

export function useSessionMode(sessionId: string): SessionMode {
  return useSyncExternalStore(subscribe, () => modeOf(sessionId));
}
