import { PREPARED_MS, type ApiError, type OpenSessionProgress, type PalimpsestApi } from '../../shared/api/contract';
import { OPEN_POLL_MS } from '../library/opening';
import type { Focus, GetState, SessionTab, SetState } from '../store';

/**
 * Tabs of open sessions and navigation between them and the library (null `active`). Sessions are
 * opened and closed through the API; the session view of the active tab (./session) does the rest.
 */

export interface ShellSlice {
  readonly api: PalimpsestApi;
  /**
   * starting: asking the host what it was started with, then opening the first session it was given
   * (`opening` says how far); error: the host cannot be reached.
   */
  phase: 'starting' | 'ready' | 'error';
  error: ApiError | null;
  /** Session files the host was started with. */
  initialPaths: readonly string[];
  tabs: readonly SessionTab[];
  /** The active tab's session id; null: the library. */
  active: string | null;
  /** Paths being opened. */
  opening: readonly string[];
  /** How far the opens under way have got, as the host last said (asked every OPEN_POLL_MS while opening). */
  openProgress: readonly OpenSessionProgress[];
  /** The last open that failed, said where it was asked for (the library). */
  openError: { readonly path: string; readonly error: ApiError } | null;
  /** See store.ts. */
  focus: Focus | null;
  /** The keyboard shortcuts overlay. */
  help: boolean;

  start(): Promise<void>;
  /** Opens a session in a new tab (or shows its tab when it is open already); false when it failed. */
  /** `session`: one session of a database or folder that holds several (an OpenCode database). */
  openPath(path: string, session?: string): Promise<boolean>;
  /**
   * The user is reaching for this session (pointing at its row, its row picked with the keyboard):
   * the host may begin reading it, for the openPath that may follow. Nothing waits on it.
   */
  prepare(path: string, session?: string): void;
  activate(sessionId: string | null): void;
  closeTab(sessionId: string): void;
  /** The next (1) or previous (-1) tab, the library counting as the first. */
  cycleTab(delta: number): void;
  /** Sends the active session's view to a raw event and/or a request (sets `focus`). */
  goTo(target: { readonly seq?: number; readonly request?: number }): void;
  setHelp(open: boolean): void;
  dismissOpenError(): void;
  /** Turns Follow on or off for a tab (see SessionTab.following). */
  setFollowing(sessionId: string, on: boolean): void;
}

/** How long one watch request is held (ms): a tab no longer shown lets its request go within this. */
const WATCH_MS = 10_000;

/** How long the page waits for the first session given to open before it draws the library anyway (ms). */
export const START_WAIT_MS = 1000;

export function shellSlice(api: PalimpsestApi, set: SetState, get: GetState): ShellSlice {
  let started = false;
  // The last path hinted to the host (prepare) and when.
  let prepared: { path: string; at: number } | null = null;
  // Never reset: a session view applies each nonce once, even across tab switches.
  let nonce = 0;
  // Asks the host how far the opens have got while any is under way; stops (and forgets) after.
  let poll: ReturnType<typeof setInterval> | null = null;
  const watchOpening = (): void => {
    if (get().opening.length === 0) {
      if (poll !== null) clearInterval(poll);
      poll = null;
      set({ openProgress: [] });
      return;
    }
    poll ??= setInterval(() => {
      void api.openingSessions({}).then((r) => {
        if (r.ok && get().opening.length > 0) set({ openProgress: r.value.opening });
      });
    }, OPEN_POLL_MS);
  };

  const tabOf = (sessionId: string): SessionTab | undefined => get().tabs.find((t) => t.sessionId === sessionId);
  /**
   * The active tab's session is watched: a held request (the push over either transport) answers
   * once the host has read a change of its files into it, under the same id, and the tab records
   * the new summary and revision; the session view then asks for what changed (./session/store.ts,
   * `refresh`), selecting the newest request when the tab follows. Only the active tab is watched:
   * a tab shown again catches up at once (the host reads what was written meanwhile).
   */
  let watching: string | null = null;
  const watch = async (sessionId: string | null): Promise<void> => {
    if (watching === sessionId) return;
    watching = sessionId;
    while (sessionId !== null && watching === sessionId) {
      const tab = tabOf(sessionId);
      if (!tab) break;
      // A host without the method (an older one) throws: then the tab is not watched.
      const r = await Promise.resolve()
        .then(() => api.awaitSessionChange({ sessionId, since: tab.revision ?? 0, waitMs: WATCH_MS }))
        .catch(() => null);
      if (r === null) break;
      if (!r.ok) {
        // The session went (closed, unreadable): stop here; a tab shown again starts over.
        get().setFollowing(sessionId, false);
        break;
      }
      const { changed, revision, summary, reloaded, findings } = r.value;
      const before = tabOf(sessionId);
      if (changed && summary && before && revision > (before.revision ?? 0)) {
        // A first view's whole session came in: the recent list remembers the session now.
        if (before.summary.partial && !summary.partial && before.session === undefined) get().rememberOpened(before.path, summary);
        set((s) => ({
          tabs: s.tabs.map((t) =>
            t.sessionId === sessionId && revision > (t.revision ?? 0)
              ? { ...t, summary, revision, change: { reloaded, withdrawn: findings.withdrawn } }
              : t,
          ),
        }));
      }
    }
    if (watching === sessionId) watching = null;
  };

  return {
    api,
    phase: 'starting',
    error: null,
    initialPaths: [],
    tabs: [],
    active: null,
    opening: [],
    openProgress: [],
    openError: null,
    focus: null,
    help: false,

    async start() {
      if (started) return;
      started = true;
      const init = await api.initialSessions({});
      if (!init.ok) {
        set({ phase: 'error', error: init.error });
        return;
      }
      const first = init.value.paths[0];
      // The first session given is opened; the others wait in the library ("Started with"). The
      // library is not drawn before it: drawing it first held the session's first view back by
      // about a tenth of a second (docs/performance.md), for a page that would leave it at once.
      set(first === undefined ? { phase: 'ready', initialPaths: init.value.paths } : { initialPaths: init.value.paths });
      void get().discover(false);
      if (first === undefined) return;
      // An open that takes long (a slow disk, a large folder) does not keep the library from the
      // user: it is drawn then, the open's progress in its open bar.
      const later = setTimeout(() => set({ phase: 'ready' }), START_WAIT_MS);
      await get().openPath(first);
      clearTimeout(later);
      set({ phase: 'ready' });
    },

    async openPath(input, session) {
      const path = input.trim();
      if (path === '') return false;
      const open = get().tabs.find((t) => t.path === path && t.session === session);
      if (open) {
        get().activate(open.sessionId);
        return true;
      }
      if (get().opening.includes(path)) return false;
      set((s) => ({ opening: [...s.opening, path], openError: null }));
      watchOpening();
      const r = await api.openSession(session === undefined ? { path } : { path, session });
      set((s) => ({ opening: s.opening.filter((p) => p !== path) }));
      watchOpening();
      if (!r.ok) {
        set({ openError: { path, error: r.error } });
        return false;
      }
      set((s) => ({
        tabs: [...s.tabs, { sessionId: r.value.sessionId, path, ...(session === undefined ? {} : { session }), summary: r.value }],
      }));
      // The recent list reopens a path; one session of a database is reopened from the library instead.
      // A first view (SessionSummary.partial: a large session's first lines) would be remembered
      // with its counts as the session's: the recent list waits for the whole (`watch`).
      if (session === undefined && !r.value.partial) get().rememberOpened(path, r.value);
      get().activate(r.value.sessionId);
      return true;
    },

    prepare(path, session) {
      // One session of a database is not read ahead: the host's hint takes a file.
      if (session !== undefined || get().opening.includes(path) || get().tabs.some((t) => t.path === path && t.session === undefined))
        return;
      const now = Date.now();
      if (prepared?.path === path && now - prepared.at < PREPARED_MS) return;
      prepared = { path, at: now };
      // A host without the method (an older one) throws, and a hint lost costs nothing.
      void Promise.resolve()
        .then(() => api.prepareSession({ path }))
        .catch(() => null);
    },

    activate(sessionId) {
      const known = sessionId === null || get().tabs.some((t) => t.sessionId === sessionId);
      if (!known) return;
      set((s) => ({
        active: sessionId,
        focus: s.active === sessionId ? s.focus : null,
        search: s.search.sessionId === sessionId ? s.search : { ...s.search, open: false },
      }));
      void watch(sessionId);
    },

    closeTab(sessionId) {
      const { tabs, active } = get();
      const at = tabs.findIndex((t) => t.sessionId === sessionId);
      if (at < 0) return;
      const rest = tabs.filter((t) => t.sessionId !== sessionId);
      const next = active !== sessionId ? active : (rest[Math.min(at, rest.length - 1)]?.sessionId ?? null);
      set((s) => ({
        tabs: rest,
        search: s.search.sessionId === sessionId ? { ...s.search, open: false, sessionId: null, result: null } : s.search,
      }));
      get().activate(next);
      // Frees the session in the host; nothing waits on it, and a failure leaves only memory in use.
      void api.closeSession({ sessionId });
    },

    cycleTab(delta) {
      const order: (string | null)[] = [null, ...get().tabs.map((t) => t.sessionId)];
      const at = order.indexOf(get().active);
      const next = order[(((at + delta) % order.length) + order.length) % order.length];
      get().activate(next ?? null);
    },

    goTo({ seq, request }) {
      nonce++;
      set({ focus: { ...(seq !== undefined ? { seq } : {}), ...(request !== undefined ? { request } : {}), nonce } });
    },

    setHelp(open) {
      set({ help: open });
    },

    dismissOpenError() {
      set({ openError: null });
    },

    setFollowing(sessionId, on) {
      const tab = tabOf(sessionId);
      if (!tab || Boolean(tab.following) === on) return;
      set((s) => ({ tabs: s.tabs.map((t) => (t.sessionId === sessionId ? { ...t, following: on } : t)) }));
      if (!on) return;
      // The newest request now; the session view selects it at each change after.
      const newest = tab.summary.counts.requests - 1;
      if (newest >= 0 && get().active === sessionId) get().goTo({ request: newest });
    },
  };
}
