import type { ApiError, ApiOutput, LibraryHarness, LibraryHit, PalimpsestApi } from '../../shared/api/contract';
import type { GetState, SetState } from '../store';

/**
 * Search over every session of the library (the API's searchLibrary; docs/search.md): the query and
 * its filters, the answer, and opening a hit — its session, then the session view sent to the hit's
 * event at the first request that shows it.
 */

export interface EverywhereQuery {
  readonly query: string;
  readonly harness: LibraryHarness | 'all';
  readonly has: 'compaction' | 'finding' | 'any';
  /** A date, or a span back from now (7d); '' for any time. */
  readonly since: string;
}

export interface EverywhereState extends EverywhereQuery {
  readonly loading: boolean;
  readonly result: ApiOutput<'searchLibrary'> | null;
  readonly error: ApiError | null;
}

export interface EverywhereSlice {
  everywhere: EverywhereState;
  setEverywhere(patch: Partial<EverywhereQuery>): void;
  searchEverywhere(): Promise<void>;
  openHit(hit: LibraryHit): Promise<void>;
}

export function everywhereSlice(api: PalimpsestApi, set: SetState, get: GetState): EverywhereSlice {
  let ticket = 0;
  const update = (patch: Partial<EverywhereState>) => set((s) => ({ everywhere: { ...s.everywhere, ...patch } }));
  return {
    everywhere: { query: '', harness: 'all', has: 'any', since: '', loading: false, result: null, error: null },

    setEverywhere(patch) {
      update(patch);
    },

    async searchEverywhere() {
      const q = get().everywhere;
      if (q.query.trim() === '') {
        update({ result: null, error: null, loading: false });
        return;
      }
      const mine = ++ticket;
      update({ loading: true, error: null });
      const r = await api.searchLibrary({
        query: q.query,
        ...(q.harness !== 'all' ? { harness: q.harness } : {}),
        ...(q.has !== 'any' ? { has: q.has } : {}),
        ...(q.since.trim() !== '' ? { since: q.since.trim() } : {}),
      });
      if (mine !== ticket) return;
      if (r.ok) update({ result: r.value, loading: false });
      else update({ error: r.error, loading: false, result: null });
    },

    async openHit(hit) {
      const opened = await get().openPath(hit.path, hit.session ?? undefined);
      if (!opened) return;
      get().goTo({ seq: hit.seq, ...(hit.request !== null ? { request: hit.request } : {}) });
    },
  };
}
