import { useStore } from 'zustand';
import { useApp } from '../useApp';
import { evalStoreFor, type EvalState, type EvalStore } from './store';

/** The window's eval store (./store.ts), through the app's API. */
export function useEvalStore(): EvalStore {
  const api = useApp((s) => s.api);
  return evalStoreFor(api);
}

export function useEval<T>(selector: (s: EvalState) => T): T {
  return useStore(useEvalStore(), selector);
}
