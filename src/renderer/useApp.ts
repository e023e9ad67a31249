import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import type { AppState, AppStore } from './store';

export const StoreContext = createContext<AppStore | null>(null);

/** Read the app state (re-renders when the selected part changes). */
export function useApp<T>(selector: (s: AppState) => T): T {
  const store = useContext(StoreContext);
  if (!store) throw new Error('useApp outside <StoreContext.Provider>');
  return useStore(store, selector);
}
