import type { ApiError, ApiOutput, PalimpsestApi } from '../../shared/api/contract';
import type { GetState, SetState } from '../store';

/**
 * Search within the active session (Ctrl/Cmd+F). The search runs in main (`searchSession`); this
 * keeps the query, the answer and the selected match, and turns "show this match" into the
 * store's `focus` (see store.ts), which the session view follows.
 */

/** Matches asked for per search. */
export const SEARCH_MAX = 200;

export interface SearchState {
  readonly open: boolean;
  /** The session searched; a search belongs to one tab. */
  readonly sessionId: string | null;
  readonly query: string;
  readonly loading: boolean;
  readonly result: ApiOutput<'searchSession'> | null;
  readonly error: ApiError | null;
  /** Index of the selected match. */
  readonly selected: number;
}

export interface SearchSlice {
  search: SearchState;
  /** Opens the search bar for the active session (nothing to search in the library). */
  openSearch(): void;
  closeSearch(): void;
  setQuery(q: string): void;
  runSearch(): Promise<void>;
  /** Moves the selection; wraps around. */
  moveMatch(delta: number): void;
  /** Selects a match and sends the session view to its raw event (`seq`) or its request. */
  showMatch(index: number, target: 'seq' | 'request'): void;
}

const CLOSED: SearchState = { open: false, sessionId: null, query: '', loading: false, result: null, error: null, selected: 0 };

export function searchSlice(api: PalimpsestApi, set: SetState, get: GetState): SearchSlice {
  let ticket = 0;
  const update = (patch: Partial<SearchState>) => set((s) => ({ search: { ...s.search, ...patch } }));

  return {
    search: CLOSED,

    openSearch() {
      const active = get().active;
      if (active === null) return;
      const s = get().search;
      set({ search: s.sessionId === active ? { ...s, open: true } : { ...CLOSED, open: true, sessionId: active } });
    },

    closeSearch() {
      ticket++;
      update({ open: false, loading: false });
    },

    setQuery(q) {
      update({ query: q });
    },

    async runSearch() {
      const { sessionId, query } = get().search;
      if (sessionId === null) return;
      const mine = ++ticket;
      if (query.trim() === '') {
        update({ result: null, error: null, loading: false, selected: 0 });
        return;
      }
      update({ loading: true, error: null });
      const r = await api.searchSession({ sessionId, query, max: SEARCH_MAX });
      if (mine !== ticket) return;
      if (r.ok) update({ result: r.value, loading: false, selected: 0 });
      else update({ result: null, error: r.error, loading: false });
    },

    moveMatch(delta) {
      const n = get().search.result?.matches.length ?? 0;
      if (n === 0) return;
      update({ selected: (((get().search.selected + delta) % n) + n) % n });
    },

    showMatch(index, target) {
      const m = get().search.result?.matches[index];
      if (!m) return;
      update({ selected: index });
      if (target === 'seq') get().goTo({ seq: m.seq, ...(m.request !== null ? { request: m.request } : {}) });
      else if (m.request !== null) get().goTo({ request: m.request });
    },
  };
}
