import { createStore, type StoreApi } from 'zustand/vanilla';
import type {
  AlignRow,
  ApiError,
  ApiOutput,
  ApiResult,
  CompactionRow,
  DiagnosticRow,
  EventRow,
  PalimpsestApi,
  RequestRow,
  SessionSummary,
  TimelineRow,
  ViewHead,
  ViewWindowItem,
} from '../../shared/api/contract';
import { blocksFull } from '../preview';
import { compactionMarkers, diagnosticMarkers, nextMarker, requestAtOrAfter, stepRequest, type Marker } from './stepping';
import { chunkLoader, type Chunks, type Fetched } from './windows';

/**
 * The state of one open session in the inspector: the branch, its requests and markers, the
 * selected request's view (head, and items in windows), the raw history in windows with the
 * alignment of each row at the selected request, and what the user picked on either side.
 * Everything comes from the API in windows; stale answers (a request selected since) are dropped.
 */

export type DetailTab = 'tokens' | 'compaction' | 'diff' | 'diagnostics' | 'event';

/**
 * How often a first view (SessionSummary.partial: a large session's first lines, the rest being
 * read) asks the host how far the load of the whole has got, for its banner.
 */
export const WHOLE_POLL_MS = 500;

export interface ItemText {
  readonly state: 'loading' | 'ready' | 'error';
  /** null: masked, and the log does not record what the model saw in its place. */
  readonly text?: string | null;
  readonly error?: ApiError;
}

/** A capture's joined list of the branch: the timeline rows and each compaction's attempts (joined indexes). */
export interface Joined {
  readonly rows: readonly TimelineRow[];
  readonly compactions: readonly { readonly id: string; readonly attempts: readonly number[] }[];
  readonly orphanAttempts: readonly (readonly number[])[];
}

/** A request only the wire has, selected: its view and output come whole from getWireRequest. */
export interface WireSelection {
  readonly index: number;
  readonly state: 'loading' | 'ready' | 'error';
  readonly value?: ApiOutput<'getWireRequest'>;
  readonly error?: ApiError;
}

export interface SessionState {
  readonly api: PalimpsestApi;
  readonly sessionId: string;
  phase: 'loading' | 'ready' | 'error';
  error: ApiError | null;
  info: SessionSummary | null;
  branch: string | null;
  requests: readonly RequestRow[];
  /** null: no capture is joined to the branch (the request list is the log's). */
  joined: Joined | null;
  /** The selected row of the joined list (null: none, or no capture). */
  selectedRow: number | null;
  /** Set while a request only the wire has is selected (then `selected`, a log index, is null). */
  wire: WireSelection | null;
  compactions: readonly CompactionRow[];
  diagnostics: readonly DiagnosticRow[];
  markers: { readonly compaction: readonly Marker[]; readonly diagnostic: readonly Marker[] };
  selected: number | null;
  head: ViewHead | null;
  headError: ApiError | null;
  /** Windows of the selected view's items, by chunk. */
  viewChunks: Chunks<ViewWindowItem>;
  /** Windows of the raw history (every event of the session), by chunk. */
  eventChunks: Chunks<EventRow>;
  /** Windows of the raw history's alignment with the selected view, by chunk. */
  alignChunks: Chunks<AlignRow>;
  windowError: ApiError | null;
  /** The view position the user picked, and the raw events it came from (highlighted). */
  pickedView: number | null;
  /** The raw event the user picked, and where it went in the view (highlighted). */
  pickedRaw: number | null;
  rawHighlight: ReadonlySet<number>;
  viewHighlight: ReadonlySet<number>;
  /** Bring a row into view; the nonce makes a repeated request count. */
  scrollView: { readonly position: number; readonly nonce: number } | null;
  scrollRaw: { readonly seq: number; readonly nonce: number } | null;
  /** Whole texts of expanded view items, by item id (for the selected view). */
  expanded: Readonly<Record<string, ItemText>>;
  tab: DetailTab;
  compactionId: string | null;
  showKeys: boolean;
  /** The export dialog is open (docs/export.md). */
  showExport: boolean;
  /** Changes of the session read since it was opened (`refresh`): the panels ask again at each (any answer may have changed). */
  revision: number;

  /**
   * Loads the session. `opened`: the summary the shell's open answered with, if it has one — its
   * default branch's lists and first view are asked for beside the summary, not after it.
   */
  load(opened?: SessionSummary): Promise<void>;
  /** Stops asking the host how far a first view's whole has got (the store is no longer shown). */
  stop(): void;
  /**
   * The session changed in the host (Follow, awaitSessionChange): ask again for the summary's
   * lists and keep the selection, or, `newest`, select the newest request (on the default branch,
   * as a fresh open would). `reloaded`: the session was read again from the start, so the views
   * shown may differ too. A first view giving way to the whole session is taken as `reloaded`.
   */
  refresh(change: { readonly summary: SessionSummary; readonly newest: boolean; readonly reloaded: boolean }): Promise<void>;
  /** `lists`: the branch's lists, when they have been asked for already (load). */
  setBranch(branch: string, lists?: BranchLists): Promise<void>;
  select(index: number): Promise<void>;
  /** Select a row of the joined list: its log request when the log has it, else the wire's own view. */
  selectRow(row: number): Promise<void>;
  step(delta: number): void;
  edge(to: 'first' | 'last'): void;
  jumpMarker(kind: 'compaction' | 'diagnostic', dir: 1 | -1): void;
  ensureView(from: number, to: number): void;
  ensureRaw(from: number, to: number): void;
  pickView(position: number): void;
  pickRaw(seq: number): Promise<void>;
  clearPick(): void;
  toggleExpand(itemId: string): void;
  /** Select the request that shows event `seq` and bring the event into view (a diagnostic's, a search hit's). */
  jumpToSeq(seq: number, request?: number): Promise<void>;
  setTab(tab: DetailTab): void;
  openCompaction(id: string): void;
  toggleKeys(): void;
  toggleExport(): void;
}

export type SessionStore = StoreApi<SessionState>;

/** A branch's lists as the store shows them: the first failure, or the lists. */
export type BranchLists =
  | { readonly ok: false; readonly error: ApiError }
  | {
      readonly ok: true;
      readonly requests: readonly RequestRow[];
      readonly compactions: readonly CompactionRow[];
      readonly diagnostics: readonly DiagnosticRow[];
      readonly joined: Joined | null;
    };

export const VIEW_CHUNK = 200;
export const RAW_CHUNK = 200;

export function createSessionStore(api: PalimpsestApi, sessionId: string): SessionStore {
  let branchTicket = 0;
  let refreshTicket = 0;
  let viewTicket = 0;
  let nonce = 0;
  let stopped = false;
  /** The first request's view, asked for while the session's lists are (load); taken by the first select. */
  let early: {
    readonly key: string;
    readonly head: Promise<ApiResult<ViewHead>>;
    readonly window: Promise<Fetched<ViewWindowItem>>;
  } | null = null;

  /** A branch's lists, as setBranch and refresh show them: the first failure, or the lists. */
  const branchLists = async (branch: string): Promise<BranchLists> => {
    const [requests, compactions, diagnostics, timeline] = await Promise.all([
      api.listRequests({ sessionId, branch }),
      api.listCompactions({ sessionId, branch }),
      api.listDiagnostics({ sessionId, branch }),
      // A host without the method (an older one) has no joined list: the log's is shown.
      Promise.resolve()
        .then(() => api.listTimeline({ sessionId, branch }))
        .catch(() => null),
    ]);
    if (!requests.ok) return { ok: false as const, error: requests.error };
    if (!compactions.ok) return { ok: false as const, error: compactions.error };
    if (!diagnostics.ok) return { ok: false as const, error: diagnostics.error };
    const t = timeline?.ok && timeline.value.joined ? timeline.value : null;
    const joined: Joined | null = t ? { rows: t.requests, compactions: t.compactions, orphanAttempts: t.orphanAttempts } : null;
    return {
      ok: true as const,
      requests: requests.value.requests,
      compactions: compactions.value.compactions,
      diagnostics: diagnostics.value.diagnostics,
      joined,
    };
  };

  return createStore<SessionState>()((set, get) => {
    const views = chunkLoader<ViewWindowItem>(
      VIEW_CHUNK,
      (s) => set({ viewChunks: s }),
      () => get().viewChunks,
      (e) => set({ windowError: e }),
    );
    const events = chunkLoader<EventRow>(
      RAW_CHUNK,
      (s) => set({ eventChunks: s }),
      () => get().eventChunks,
      (e) => set({ windowError: e }),
    );
    const aligns = chunkLoader<AlignRow>(
      RAW_CHUNK,
      (s) => set({ alignChunks: s }),
      () => get().alignChunks,
      (e) => set({ windowError: e }),
    );
    const fail = (error: ApiError) => set({ phase: 'error', error });
    /**
     * While the session shown is a first view: asks the host how far the load of the whole has
     * got, and takes only that (`info.partial`). The whole session itself comes as a change of the
     * session (`refresh`, from the shell's watch: ../app/shell-slice.ts), which ends this.
     */
    const watchProgress = async (): Promise<void> => {
      while (!stopped && get().info?.partial) {
        await new Promise((resolve) => setTimeout(resolve, WHOLE_POLL_MS));
        if (stopped || !get().info?.partial) return;
        const r = await api.getSessionInfo({ sessionId });
        const shown = get().info;
        // Closed, or the host gone: nothing more will come; the whole in: `refresh` shows it.
        if (stopped || !r.ok || !r.value.partial || !shown?.partial) return;
        set({ info: { ...shown, partial: r.value.partial } });
        if (r.value.partial.phase === 'failed') return;
      }
    };
    /** Fetches windows of the view at one request. */
    const viewFetch =
      (where: { branch: string; index: number }) =>
      (from: number, count: number): Promise<Fetched<ViewWindowItem>> =>
        api.getViewWindow({ sessionId, ...where, from, count }).then((r) => (r.ok ? { ok: true as const, rows: r.value.items } : r));
    const at = (): { branch: string; index: number } | null => {
      const { branch, selected } = get();
      return branch === null || selected === null ? null : { branch, index: selected };
    };

    return {
      api,
      sessionId,
      phase: 'loading',
      error: null,
      info: null,
      branch: null,
      requests: [],
      joined: null,
      selectedRow: null,
      wire: null,
      compactions: [],
      diagnostics: [],
      markers: { compaction: [], diagnostic: [] },
      selected: null,
      head: null,
      headError: null,
      viewChunks: {},
      eventChunks: {},
      alignChunks: {},
      windowError: null,
      pickedView: null,
      pickedRaw: null,
      rawHighlight: new Set(),
      viewHighlight: new Set(),
      scrollView: null,
      scrollRaw: null,
      expanded: {},
      tab: 'tokens',
      compactionId: null,
      showKeys: false,
      showExport: false,
      revision: 0,

      async load(opened) {
        stopped = false;
        // The summary is asked for again (the session may have changed since the shell opened it);
        // the branch the open named is what it almost always still names, so its lists and its
        // first request's view are asked for at the same time: a round trip less before the first
        // view. A guess the summary contradicts is dropped, and the lists asked for again.
        const guess = opened?.defaultBranch;
        if (opened && opened.counts.requests > 0) {
          const where = { branch: opened.defaultBranch, index: 0 };
          early = { key: `${where.branch}:0`, head: api.getViewHead({ sessionId, ...where }), window: viewFetch(where)(0, VIEW_CHUNK) };
        }
        const [info, lists] = await Promise.all([api.getSessionInfo({ sessionId }), guess === undefined ? null : branchLists(guess)]);
        if (!info.ok) return fail(info.error);
        set({ info: info.value });
        const branch = info.value.defaultBranch;
        await get().setBranch(branch, branch === guess && lists ? lists : undefined);
        early = null;
        if (info.value.partial) void watchProgress();
      },

      stop() {
        stopped = true;
      },

      async setBranch(branch, asked) {
        const ticket = ++branchTicket;
        const lists = asked ?? (await branchLists(branch));
        if (ticket !== branchTicket) return;
        if (!lists.ok) return fail(lists.error);
        const { requests: rs, joined, compactions, diagnostics } = lists;
        views.reset();
        aligns.reset();
        set({
          phase: 'ready',
          branch,
          requests: rs,
          joined,
          selectedRow: null,
          wire: null,
          compactions,
          diagnostics,
          markers: { compaction: compactionMarkers(rs, compactions), diagnostic: diagnosticMarkers(rs, diagnostics) },
          selected: null,
          head: null,
          compactionId: compactions[0]?.id ?? null,
        });
        if (joined && joined.rows.length > 0) await get().selectRow(0);
        else if (rs.length > 0) await get().select(0);
      },

      async refresh({ summary, newest, reloaded: readAgain }) {
        const before = get();
        if (before.phase !== 'ready' || before.branch === null) return;
        // A first view is the file as if it ended where it was cut: its last events, and views that
        // read them, may differ in the whole (a line can be settled by those after it, and companion
        // files come in with the whole). Everything shown is asked for again, the selection kept.
        const reloaded = readAgain || before.info?.partial !== undefined;
        const ticket = branchTicket;
        const mine = ++refreshTicket;
        const keep = summary.branches.some((b) => b.name === before.branch);
        const branch = newest || !keep ? summary.defaultBranch : before.branch;
        const lists = await branchLists(branch);
        // A branch chosen meanwhile wins; a failure leaves what is shown (the next change asks again).
        if (mine !== refreshTicket || ticket !== branchTicket || get().branch !== before.branch || !lists.ok) return;
        const { requests: rs, joined, compactions: cs, diagnostics } = lists;
        // Lines appended add events and replace the few the last read ended with (a response it
        // closed, a compaction it ended as a fallback): the last window of the raw history (and of
        // its alignment with the view) is asked for again, the rest kept.
        const shownEvents = before.info?.counts.events ?? 0;
        if (reloaded) {
          events.reset();
          aligns.reset();
        } else {
          events.dropFrom(shownEvents);
          aligns.dropFrom(shownEvents);
        }
        const same = branch === before.branch && !reloaded;
        set((s) => ({
          info: summary,
          branch,
          requests: rs,
          joined,
          compactions: cs,
          diagnostics,
          markers: { compaction: compactionMarkers(rs, cs), diagnostic: diagnosticMarkers(rs, diagnostics) },
          compactionId: s.compactionId !== null && cs.some((c) => c.id === s.compactionId) ? s.compactionId : (cs[0]?.id ?? null),
          revision: s.revision + 1,
        }));
        if (newest) {
          if (joined && joined.rows.length > 0) await get().selectRow(joined.rows.length - 1);
          else if (rs.length > 0) await get().select(rs.length - 1);
          return;
        }
        // The selection stays; when what it showed may have changed, it is asked for again.
        const { selected, selectedRow, pickedRaw } = before;
        if (same) {
          if (selected === null && selectedRow === null && rs.length > 0) await get().select(0);
          // Lines appended may end the response of the request selected (the last, while it was
          // still being written): its head, which holds its output, usage and finish, is asked
          // for again; its items come before it, and their windows and the picks stay.
          else if (selected !== null) {
            const view = viewTicket;
            const head = await api.getViewHead({ sessionId, branch, index: selected });
            if (view === viewTicket && mine === refreshTicket && head.ok) set({ head: head.value });
          }
          return;
        }
        const selections = viewTicket;
        if (selectedRow !== null && joined && joined.rows.length > 0) await get().selectRow(Math.min(selectedRow, joined.rows.length - 1));
        else if (rs.length > 0) await get().select(Math.min(selected ?? 0, rs.length - 1));
        else set({ selected: null, selectedRow: null, head: null });
        // So does the event picked, while the session still has it — unless the user selected or
        // picked since (one selection is this refresh's own).
        if (mine !== refreshTicket || ticket !== branchTicket || viewTicket > selections + 1 || pickedRaw === null) return;
        if (pickedRaw < summary.counts.events) {
          if (get().pickedRaw === null) await get().pickRaw(pickedRaw);
        } else if (get().pickedRaw === pickedRaw) get().clearPick();
      },

      async select(index) {
        const { branch, requests } = get();
        if (branch === null || index < 0 || index >= requests.length) return;
        const ticket = ++viewTicket;
        views.reset();
        aligns.reset();
        const row = get().joined?.rows.find((r) => r.logIndex === index)?.index ?? null;
        set({
          selected: index,
          selectedRow: row,
          wire: null,
          headError: null,
          pickedView: null,
          pickedRaw: null,
          rawHighlight: new Set(),
          viewHighlight: new Set(),
          expanded: {},
        });
        // The view's first window is asked for with its head, not after it: a view opens at its top,
        // and the round trip after the head's answer (and the render between) would come before the
        // first item. A view with fewer items answers with what it has. The first selection may
        // have both on their way already (load).
        const key = `${branch}:${index}`;
        const asked = early?.key === key ? early : null;
        early = null;
        const fetch = viewFetch({ branch, index });
        views.ensure(key, 0, VIEW_CHUNK - 1, asked ? (from, count) => (from === 0 ? asked.window : fetch(from, count)) : fetch);
        const head = await (asked?.head ?? api.getViewHead({ sessionId, branch, index }));
        if (ticket !== viewTicket) return;
        if (head.ok) set({ head: head.value });
        else set({ head: null, headError: head.error });
        // The raw history follows the selection: the request's own event comes into view.
        const seq = requests[index]?.seq;
        if (seq !== undefined && get().pickedRaw === null) set({ scrollRaw: { seq, nonce: ++nonce } });
      },

      async selectRow(index) {
        const { joined, branch } = get();
        const row = joined?.rows[index];
        if (!row || branch === null) return;
        if (row.logIndex !== null) return get().select(row.logIndex);
        const ticket = ++viewTicket;
        views.reset();
        aligns.reset();
        set({
          selected: null,
          selectedRow: index,
          head: null,
          headError: null,
          wire: { index, state: 'loading' },
          pickedView: null,
          pickedRaw: null,
          rawHighlight: new Set(),
          viewHighlight: new Set(),
          expanded: {},
        });
        // The raw history follows: the log request this attempt came after.
        if (row.afterSeq !== null) set({ scrollRaw: { seq: row.afterSeq, nonce: ++nonce } });
        const r = await api.getWireRequest({ sessionId, index });
        if (ticket !== viewTicket) return;
        set({ wire: r.ok ? { index, state: 'ready', value: r.value } : { index, state: 'error', error: r.error } });
      },

      step(delta) {
        const { joined } = get();
        if (joined) {
          const next = stepRequest(joined.rows.length, get().selectedRow, delta);
          if (next !== null) void get().selectRow(next);
          return;
        }
        const next = stepRequest(get().requests.length, get().selected, delta);
        if (next !== null) void get().select(next);
      },

      edge(to) {
        const { joined } = get();
        if (joined) {
          const n = joined.rows.length;
          if (n > 0) void get().selectRow(to === 'first' ? 0 : n - 1);
          return;
        }
        const n = get().requests.length;
        if (n > 0) void get().select(to === 'first' ? 0 : n - 1);
      },

      jumpMarker(kind, dir) {
        const next = nextMarker(get().markers[kind], get().selected, dir);
        if (next !== null) void get().select(next);
      },

      ensureView(from, to) {
        const where = at();
        const total = get().head?.items ?? 0;
        if (!where || total === 0) return;
        views.ensure(`${where.branch}:${where.index}`, from, Math.min(to, total - 1), viewFetch(where));
      },

      ensureRaw(from, to) {
        const total = get().info?.counts.events ?? 0;
        if (total === 0) return;
        const last = Math.min(to, total - 1);
        events.ensure('all', from, last, (f, count) =>
          api.listEvents({ sessionId, from: f, count }).then((r) => (r.ok ? { ok: true as const, rows: r.value.events } : r)),
        );
        const where = at();
        if (!where) return;
        aligns.ensure(`${where.branch}:${where.index}`, from, last, (f, count) =>
          api.getAlignment({ sessionId, ...where, from: f, count }).then((r) => (r.ok ? { ok: true as const, rows: r.value.rows } : r)),
        );
      },

      pickView(position) {
        const item = views.row(position);
        const provenance = item?.item.provenance ?? [];
        const first = provenance[0];
        set({
          pickedView: position,
          pickedRaw: null,
          viewHighlight: new Set([position]),
          rawHighlight: new Set(provenance),
          scrollRaw: first === undefined ? get().scrollRaw : { seq: first, nonce: ++nonce },
        });
      },

      async pickRaw(seq) {
        const where = at();
        set({ pickedRaw: seq, pickedView: null, rawHighlight: new Set([seq]), viewHighlight: new Set() });
        if (!where) return;
        const ticket = viewTicket;
        let row = aligns.row(seq);
        if (!row) {
          const r = await api.getAlignment({ sessionId, ...where, from: seq, count: 1 });
          if (ticket !== viewTicket || get().pickedRaw !== seq) return;
          if (!r.ok) return set({ windowError: r.error });
          row = r.value.rows[0];
        }
        if (!row) return;
        const highlight = new Set(row.positions);
        if (row.target !== null) highlight.add(row.target);
        set({ viewHighlight: highlight, scrollView: row.target === null ? get().scrollView : { position: row.target, nonce: ++nonce } });
      },

      clearPick() {
        set({ pickedView: null, pickedRaw: null, rawHighlight: new Set(), viewHighlight: new Set() });
      },

      toggleExpand(itemId) {
        const where = at();
        const current = get().expanded[itemId];
        if (current) {
          const { [itemId]: _gone, ...rest } = get().expanded;
          return set({ expanded: rest });
        }
        if (!where) return;
        const ticket = viewTicket;
        set((s) => ({ expanded: { ...s.expanded, [itemId]: { state: 'loading' } } }));
        void api.getItemText({ sessionId, ...where, itemId }).then((r) => {
          if (ticket !== viewTicket || !get().expanded[itemId]) return;
          const value: ItemText = r.ok
            ? { state: 'ready', text: r.value.blocks === null ? null : blocksFull(r.value.blocks) }
            : { state: 'error', error: r.error };
          set((s) => ({ expanded: { ...s.expanded, [itemId]: value } }));
        });
      },

      async jumpToSeq(seq, request) {
        const { requests } = get();
        const index = request ?? requestAtOrAfter(requests, seq);
        if (index >= 0 && index !== get().selected) await get().select(index);
        set({ scrollRaw: { seq, nonce: ++nonce } });
        await get().pickRaw(seq);
      },

      setTab(tab) {
        set({ tab });
      },

      openCompaction(id) {
        set({ compactionId: id, tab: 'compaction' });
      },

      toggleExport() {
        set((s) => ({ showExport: !s.showExport }));
      },

      toggleKeys() {
        set((s) => ({ showKeys: !s.showKeys }));
      },
    };
  });
}
