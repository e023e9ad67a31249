import { createStore, type StoreApi } from 'zustand/vanilla';
import type {
  ApiError, CompactionRow, DiagnosticRow, EventRow, PalimpsestApi, RequestRow, SessionSummary, ViewOutput,
} from '../shared/api/contract';

/** Events are fetched in windows of this many rows, as the raw history scrolls. */
export const EVENT_CHUNK = 200;

export type Phase = 'starting' | 'opening' | 'ready' | 'empty' | 'error';

export interface AppState {
  readonly api: PalimpsestApi;
  phase: Phase;
  /** Why the session could not be shown (phase 'error'). */
  error: ApiError | null;
  /** Sessions the host was started with. */
  paths: readonly string[];
  session: SessionSummary | null;
  branch: string | null;
  requests: readonly RequestRow[];
  compactions: readonly CompactionRow[];
  diagnostics: readonly DiagnosticRow[];
  selected: number | null;
  view: ViewOutput | null;
  viewError: ApiError | null;
  viewLoading: boolean;
  /** Re-read long texts from the source for the view. */
  fullText: boolean;
  /** Loaded windows of the raw history, by chunk number. */
  eventChunks: Readonly<Record<number, readonly EventRow[]>>;
  eventsError: ApiError | null;
  /** A raw-history row to bring into view (the nonce makes a repeated request count). */
  reveal: { readonly seq: number; readonly nonce: number } | null;

  start(): Promise<void>;
  open(path: string): Promise<void>;
  setBranch(branch: string): Promise<void>;
  select(index: number): Promise<void>;
  step(delta: number): void;
  setFullText(full: boolean): void;
  /** Make sure rows [from, to] of the raw history are loaded (or loading). */
  ensureEvents(from: number, to: number): void;
  revealSeq(seq: number): void;
}

export type AppStore = StoreApi<AppState>;

export function createAppStore(api: PalimpsestApi): AppStore {
  let started = false;
  let viewTicket = 0;
  let sessionTicket = 0;
  const pendingChunks = new Set<number>();

  return createStore<AppState>()((set, get) => {
    const fail = (error: ApiError) => set({ phase: 'error', error });

    async function loadBranch(sessionId: string, branch: string, ticket: number): Promise<boolean> {
      const [requests, compactions, diagnostics] = await Promise.all([
        api.listRequests({ sessionId, branch }),
        api.listCompactions({ sessionId, branch }),
        api.listDiagnostics({ sessionId, branch }),
      ]);
      if (ticket !== sessionTicket) return false;
      if (!requests.ok) return (fail(requests.error), false);
      if (!compactions.ok) return (fail(compactions.error), false);
      if (!diagnostics.ok) return (fail(diagnostics.error), false);
      set({
        branch,
        requests: requests.value.requests,
        compactions: compactions.value.compactions,
        diagnostics: diagnostics.value.diagnostics,
        selected: null,
        view: null,
        viewError: null,
      });
      return true;
    }

    return {
      api,
      phase: 'starting',
      error: null,
      paths: [],
      session: null,
      branch: null,
      requests: [],
      compactions: [],
      diagnostics: [],
      selected: null,
      view: null,
      viewError: null,
      viewLoading: false,
      fullText: false,
      eventChunks: {},
      eventsError: null,
      reveal: null,

      async start() {
        if (started) return;
        started = true;
        const init = await api.initialSessions({});
        if (!init.ok) return fail(init.error);
        set({ paths: init.value.paths });
        const first = init.value.paths[0];
        if (first === undefined) {
          set({ phase: 'empty' });
          return;
        }
        await get().open(first);
      },

      async open(path) {
        const ticket = ++sessionTicket;
        const previous = get().session;
        pendingChunks.clear();
        set({ phase: 'opening', error: null, session: null, requests: [], compactions: [], diagnostics: [], selected: null, view: null, eventChunks: {}, eventsError: null });
        if (previous) void api.closeSession({ sessionId: previous.sessionId });
        const opened = await api.openSession({ path });
        if (ticket !== sessionTicket) {
          if (opened.ok) void api.closeSession({ sessionId: opened.value.sessionId });
          return;
        }
        if (!opened.ok) return fail(opened.error);
        set({ session: opened.value });
        if (!(await loadBranch(opened.value.sessionId, opened.value.defaultBranch, ticket))) return;
        set({ phase: 'ready' });
        if (get().requests.length > 0) await get().select(0);
      },

      async setBranch(branch) {
        const s = get().session;
        if (!s || branch === get().branch) return;
        if (await loadBranch(s.sessionId, branch, sessionTicket) && get().requests.length > 0) await get().select(0);
      },

      async select(index) {
        const { session, branch, requests, fullText } = get();
        if (!session || branch === null || index < 0 || index >= requests.length) return;
        const ticket = ++viewTicket;
        const seq = requests[index]?.seq;
        set((st) => ({
          selected: index, viewLoading: true, viewError: null,
          reveal: seq === undefined ? st.reveal : { seq, nonce: (st.reveal?.nonce ?? 0) + 1 },
        }));
        const r = await api.getView({ sessionId: session.sessionId, index, branch, full: fullText });
        if (ticket !== viewTicket) return;
        if (r.ok) set({ view: r.value, viewLoading: false });
        else set({ view: null, viewError: r.error, viewLoading: false });
      },

      step(delta) {
        const { selected, requests } = get();
        if (requests.length === 0) return;
        const next = Math.min(requests.length - 1, Math.max(0, (selected ?? -1) + delta));
        if (next !== selected) void get().select(next);
      },

      setFullText(full) {
        set({ fullText: full });
        const { selected } = get();
        if (selected !== null) void get().select(selected);
      },

      revealSeq(seq) {
        set((st) => ({ reveal: { seq, nonce: (st.reveal?.nonce ?? 0) + 1 } }));
      },

      ensureEvents(from, to) {
        const s = get().session;
        if (!s) return;
        const total = s.counts.events;
        const ticket = sessionTicket;
        for (let chunk = Math.floor(Math.max(0, from) / EVENT_CHUNK); chunk * EVENT_CHUNK <= Math.min(to, total - 1); chunk++) {
          if (get().eventChunks[chunk] || pendingChunks.has(chunk)) continue;
          pendingChunks.add(chunk);
          void api.listEvents({ sessionId: s.sessionId, from: chunk * EVENT_CHUNK, count: EVENT_CHUNK }).then((r) => {
            if (ticket !== sessionTicket) return;
            pendingChunks.delete(chunk);
            if (r.ok) set((st) => ({ eventChunks: { ...st.eventChunks, [chunk]: r.value.events } }));
            else set({ eventsError: r.error });
          });
        }
      },
    };
  });
}

/** The loaded event at `seq`, or undefined while its window is loading. */
export function eventAt(chunks: AppState['eventChunks'], seq: number): EventRow | undefined {
  return chunks[Math.floor(seq / EVENT_CHUNK)]?.[seq % EVENT_CHUNK];
}
