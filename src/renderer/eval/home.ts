import { useSyncExternalStore } from 'react';

/**
 * What the Library tab shows: the library of sessions, compaction health across them
 * (docs/health.md), or the evals (docs/eval.md). Kept outside the
 * app store (as the re-run panel keeps a session's mode, ../rerun/registry.ts) so the eval view
 * stays in its own files; it survives switching to a session tab and back.
 */

export type HomeMode = 'library' | 'health' | 'evals';

let mode: HomeMode = 'library';
const listeners = new Set<() => void>();

export function homeMode(): HomeMode {
  return mode;
}

export function setHomeMode(next: HomeMode): void {
  if (next === mode) return;
  mode = next;
  for (const l of listeners) l();
}

function subscribe(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

export function useHomeMode(): HomeMode {
  return useSyncExternalStore(subscribe, homeMode);
}
