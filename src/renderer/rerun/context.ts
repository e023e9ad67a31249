import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import type { RerunState, RerunStore } from './store';

/** The re-run store of the session on screen (./registry.ts gives one per session). */
export const RerunContext = createContext<RerunStore | null>(null);

export function useRerunStore(): RerunStore {
  const store = useContext(RerunContext);
  if (!store) throw new Error('useRerun outside <RerunContext.Provider>');
  return store;
}

export function useRerun<T>(selector: (s: RerunState) => T): T {
  return useStore(useRerunStore(), selector);
}
