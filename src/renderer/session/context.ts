import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import type { PalimpsestApi } from '../../shared/api/contract';
import type { SessionState, SessionStore } from './store';

export const SessionContext = createContext<SessionStore | null>(null);

/** An API to use instead of the shell's (component tests, a second window). */
export const SessionApiContext = createContext<PalimpsestApi | null>(null);

/** Read the session view's state (re-renders when the selected part changes). */
export function useSession<T>(selector: (s: SessionState) => T): T {
  const store = useContext(SessionContext);
  if (!store) throw new Error('useSession outside <SessionView>');
  return useStore(store, selector);
}
