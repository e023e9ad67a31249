import type { ApiError, Discovery, LibraryHarness, PalimpsestApi, SessionSummary } from '../../shared/api/contract';
import type { GetState, SetState } from '../store';
import { entryOf, forget, loadRecent, remember, type RecentEntry } from './recent';

/** The library: what discovery lists, recent sessions, the filter, and opening by dialog. */

export type HarnessFilter = LibraryHarness | 'all' | 'unknown';

export interface Notice {
  readonly kind: 'error' | 'info';
  readonly text: string;
}

export interface LibrarySlice {
  discovery: Discovery | null;
  discovering: boolean;
  discoveryError: ApiError | null;
  recent: readonly RecentEntry[];
  /** Text the listed sessions must contain (path, project, title, model, harness). */
  filter: string;
  harness: HarnessFilter;
  /** What the library has to say (a dialog that is not available, a drop it cannot use). */
  notice: Notice | null;

  discover(refresh: boolean): Promise<void>;
  /** The native dialog (Electron); files picked are opened, a folder picked is listed. */
  pick(kind: 'files' | 'folder'): Promise<void>;
  setFilter(text: string): void;
  setHarness(h: HarnessFilter): void;
  forgetRecent(path: string): void;
  rememberOpened(path: string, summary: SessionSummary): void;
  setNotice(n: Notice | null): void;
}

export function librarySlice(api: PalimpsestApi, set: SetState, get: GetState): LibrarySlice {
  let ticket = 0;
  return {
    discovery: null,
    discovering: false,
    discoveryError: null,
    recent: loadRecent(),
    filter: '',
    harness: 'all',
    notice: null,

    async discover(refresh) {
      const mine = ++ticket;
      set({ discovering: true, discoveryError: null });
      const r = await api.discoverSessions({ refresh });
      if (mine !== ticket) return;
      if (r.ok) set({ discovery: r.value, discovering: false });
      else set({ discoveryError: r.error, discovering: false });
    },

    async pick(kind) {
      set({ notice: null });
      const r = await api.pickPaths({ kind });
      if (!r.ok) {
        set({ notice: { kind: 'error', text: r.error.message } });
        return;
      }
      if (r.value.paths.length === 0) return;
      if (kind === 'folder') {
        await get().discover(true);
        return;
      }
      for (const p of r.value.paths) await get().openPath(p);
    },

    setFilter(text) {
      set({ filter: text });
    },

    setHarness(h) {
      set({ harness: h });
    },

    forgetRecent(path) {
      set((s) => ({ recent: forget(s.recent, path) }));
    },

    rememberOpened(path, summary) {
      set((s) => ({ recent: remember(s.recent, entryOf(path, summary, new Date())) }));
    },

    setNotice(n) {
      set({ notice: n });
    },
  };
}
