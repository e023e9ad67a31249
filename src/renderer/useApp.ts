import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import type { AppState, AppStore } from './store';

/** The app shell's store (./store.ts). The session view (./session) reads `api` and `focus` through it. */
export const StoreContext = createContext<AppStore | null>(null);

/** The store itself, for handlers that must read the state as it is now rather than as rendered. */
export function useAppStore(): AppStore {
  const store = useContext(StoreContext);
  if (!store) throw new Error('useAppStore outside <StoreContext.Provider>');
  return store;
}

/** Read the app state (re-renders when the selected part changes). */
export function useApp<T>(selector: (s: AppState) => T): T {
  return useStore(useAppStore(), selector);
}
