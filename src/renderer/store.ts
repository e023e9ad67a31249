import { createStore, type StoreApi } from 'zustand/vanilla';
import type { PalimpsestApi, SessionSummary } from '../shared/api/contract';
import { shellSlice, type ShellSlice } from './app/shell-slice';
import { librarySlice, type LibrarySlice } from './library/library-slice';
import { everywhereSlice, type EverywhereSlice } from './library/everywhere-slice';
import { searchSlice, type SearchSlice } from './search/search-slice';
import { themeSlice, type ThemeSlice } from './theme/theme-slice';

/**
 * The app shell's state (UI-1): open sessions as tabs, the library, search within the active
 * session, theme and the shortcuts overlay. One zustand store, in slices (./app, ./library,
 * ./search, ./theme), each with its own file.
 *
 * Shared with the session inspector (./session, UI-2), which reads two fields through
 * StoreContext (./useApp.ts):
 *
 * - `api: PalimpsestApi` — the window's API (Electron's bridge or the web host).
 * - `focus: { seq?: number; request?: number; nonce: number } | null` — where the active
 *   session's view should go: to a raw event (`seq`, with `request`, the first request whose model
 *   view can show it) or to a request (`request` alone). Search writes it ("go to seq N", "go to
 *   request N"); `nonce` grows with every write, so going to the same place twice still counts.
 *   It is reset to null when another tab becomes active: a focus is for the session it was made in.
 */

export interface Focus {
  readonly seq?: number;
  readonly request?: number;
  readonly nonce: number;
}

/** One open session: a tab. */
export interface SessionTab {
  readonly sessionId: string;
  /** The path as opened. */
  readonly path: string;
  /** The session chosen in it, when it holds several (an OpenCode database). */
  readonly session?: string;
  readonly summary: SessionSummary;
  /** Follow is on: each change of the session selects its newest request (changes are shown either way). */
  readonly following?: boolean;
  /** The host's revision of the session the tab shows (awaitSessionChange): 0 (or absent) as opened. */
  readonly revision?: number;
  /** What the last change read into the session said: why it was read again from the start (null: read on), findings withdrawn. */
  readonly change?: { readonly reloaded: string | null; readonly withdrawn: number };
}

export type AppState = ShellSlice & LibrarySlice & EverywhereSlice & SearchSlice & ThemeSlice;
export type AppStore = StoreApi<AppState>;
export type SetState = AppStore['setState'];
export type GetState = AppStore['getState'];

export function createAppStore(api: PalimpsestApi): AppStore {
  return createStore<AppState>()((set, get) => ({
    ...shellSlice(api, set, get),
    ...librarySlice(api, set, get),
    ...everywhereSlice(api, set, get),
    ...searchSlice(api, set, get),
    ...themeSlice(set, get),
  }));
}
