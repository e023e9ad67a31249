import { createStore, type StoreApi } from 'zustand/vanilla';
import type {
  ApiError,
  ApiOutput,
  CompactionRow,
  PalimpsestApi,
  RequestRow,
  RerunJob,
  RerunTarget,
  RunRow,
  StrategyRow,
} from '../../shared/api/contract';
import { entryOf, modelRow } from './chain';
import { demoWindow, formTarget, MOCK_MODEL, modelSpec, toStartInput, type ChainEntry, type RerunForm } from './form';
import { keyActions, type KeyActions } from './key-actions';
import { followJob } from './watch';

/**
 * State of the re-run panel and the compare view of one session: what the host offers
 * (strategies, compactions, key status), the form, this session's jobs and their progress, the
 * session's runs, which runs are chosen, and the last comparison. One store per session
 * (./registry.ts), so a job keeps streaming while the user is in the inspector. The inspector
 * aims the panel at a compaction or a request with `aim` (./registry.ts rerunTarget).
 */

/** What the inspector asks the panel to re-run: a compaction or a request, on the branch it shows. */
export interface TargetRequest {
  readonly target: RerunTarget;
  /** The inspector's branch; absent: the session's default. */
  readonly branch?: string;
}

export type KeyStatus = ApiOutput<'providerKeys'>;
export type CompareResult = ApiOutput<'compareRuns'>;
export type ModelKey = KeyStatus['models'][number];

export interface RerunState extends KeyActions {
  phase: 'loading' | 'ready' | 'error';
  error: ApiError | null;
  strategies: readonly StrategyRow[];
  /** The branch the compactions and requests are of (runs, comparisons and jobs use it too); null until loaded. */
  branch: string | null;
  defaultBranch: string | null;
  compactions: readonly CompactionRow[];
  requests: readonly RequestRow[];
  keys: KeyStatus | null;
  /** The answer to the last key stored or removed, in a sentence (never the key). */
  keyMessage: { readonly provider: string; readonly ok: boolean; readonly text: string } | null;
  keyBusy: boolean;
  /** Key status of each chain entry, by its key. */
  modelKeys: Readonly<Record<number, ModelKey>>;
  /** No provider key is set at all: the form starts from the baselines and the mock. */
  noKeys: boolean;
  /**
   * The chain kept in settings (cosh's setting, shared by every session and by `palimpsest
   * rerun`): where, and what happened to it last — loaded, saved, or why not — in a sentence.
   */
  chainSettings: { readonly file: string | null; readonly ok: boolean; readonly note: string | null; readonly saving: boolean };
  form: RerunForm;
  /** A window prefilled for the demo (see form.ts demoWindow); null: none. */
  demo: { readonly window: number; readonly sessionWindow: number | null; readonly tokens: number } | null;
  formError: string | null;
  starting: boolean;
  jobs: readonly RerunJob[];
  /** Following a job's progress failed (the host went away). */
  watchError: ApiError | null;
  runs: readonly RunRow[];
  runsFile: string | null;
  runProblems: readonly { readonly line: number; readonly message: string }[];
  runsError: ApiError | null;
  /** Runs chosen for the comparison. */
  chosen: readonly string[];
  comparing: boolean;
  comparison: CompareResult | null;
  compareError: ApiError | null;

  load(): Promise<void>;
  /** Points the form at this compaction or request (from the inspector); waits for load when loading. */
  aim(request: TargetRequest): Promise<void>;
  setForm(patch: Partial<RerunForm>): void;
  addModel(entry: Omit<ChainEntry, 'key'>): void;
  removeModel(key: number): void;
  moveModel(key: number, delta: -1 | 1): void;
  applyDemo(): void;
  start(): Promise<void>;
  cancel(jobId: string): Promise<void>;
  refreshRuns(): Promise<void>;
  toggleRun(runId: string): void;
  compare(): Promise<void>;
}

export type RerunStore = StoreApi<RerunState>;

const EMPTY_FORM: RerunForm = {
  targetKind: 'compaction',
  compactionId: '',
  request: '0',
  strategy: '',
  chain: [],
  window: '',
  maxOutput: '',
  repeat: '1',
  mockLatencyMs: '',
  options: {},
  extraOptions: {},
};

const formTargetOf = (t: RerunTarget): Partial<RerunForm> =>
  'compaction' in t ? { targetKind: 'compaction', compactionId: t.compaction } : { targetKind: 'request', request: String(t.request) };

/** `initial`: a target asked for before the store existed (the inspector's button opened the panel). */
export function createRerunStore(api: PalimpsestApi, sessionId: string, initial?: TargetRequest): RerunStore {
  let nextKey = 1;
  const followed = new Set<string>();
  // Asked for while loading: applied once the lists are in, so load's defaults do not overwrite it.
  let pending: TargetRequest | null = initial ?? null;

  return createStore<RerunState>()((set, get) => {
    // Key status of each chain entry, by the entry's key (the chain may change while we ask).
    const refreshKeys = async (): Promise<void> => {
      const { chain } = get().form;
      const models = chain.map((e) => {
        const m = modelSpec(e);
        return m.ok ? m.value : `${e.provider}:${e.model.trim() || '?'}`;
      });
      const r = await api.providerKeys({ models });
      if (!r.ok) return;
      const modelKeys: Record<number, ModelKey> = {};
      chain.forEach((e, i) => {
        const row = r.value.models[i];
        if (row) modelKeys[e.key] = row;
      });
      set({ keys: r.value, modelKeys });
    };

    /**
     * The user edited the chain: it becomes the chain kept in settings (every session's re-runs and
     * `palimpsest rerun` start from it). An entry that is not valid yet is not saved, and says why.
     */
    let saves = 0;
    const saveChain = async (): Promise<void> => {
      const models = [];
      for (const e of get().form.chain) {
        const m = modelRow(e);
        if (!m.ok) return set((s) => ({ chainSettings: { ...s.chainSettings, ok: false, note: `Not saved in settings: ${m.error}` } }));
        models.push(m.value);
      }
      const mine = ++saves;
      set((s) => ({ chainSettings: { ...s.chainSettings, saving: true } }));
      const r = await api.setSummarizationChain({ models });
      // Only the last of several quick edits reports (each one replaces the whole chain anyway).
      if (mine !== saves) return;
      set({
        chainSettings: r.ok
          ? {
              file: r.value.file,
              ok: true,
              saving: false,
              note:
                models.length > 0
                  ? `Saved in settings (${r.value.file}): re-runs of every session start from this chain.`
                  : `Cleared in settings (${r.value.file}): re-runs use each session's own model.`,
            }
          : { file: get().chainSettings.file, ok: false, saving: false, note: `Not saved in settings: ${r.error.message}` },
      });
    };

    /** The compactions and requests of another branch (the inspector's), before targeting one of them. */
    const loadBranch = async (branch: string): Promise<boolean> => {
      const [c, r] = await Promise.all([api.listCompactions({ sessionId, branch }), api.listRequests({ sessionId, branch })]);
      if (!c.ok || !r.ok) {
        const e = !c.ok ? c.error : !r.ok ? r.error : null;
        set({ formError: e ? `${e.code}: ${e.message}` : null });
        return false;
      }
      set({ branch: c.value.branch, compactions: c.value.compactions, requests: r.value.requests, comparison: null });
      return true;
    };

    const track = (job: RerunJob): void => {
      if (followed.has(job.jobId)) return;
      followed.add(job.jobId);
      void followJob(api, job.jobId, {
        update: (j) =>
          set((s) => ({
            jobs: s.jobs.some((x) => x.jobId === j.jobId) ? s.jobs.map((x) => (x.jobId === j.jobId ? j : x)) : [...s.jobs, j],
          })),
        finished: (j) => {
          void get().refreshRuns();
          // The runs a job just made are what the user wants to look at next.
          const ids = j.runs.map((r) => r.runId);
          if (ids.length > 0) set((s) => ({ chosen: [...new Set([...s.chosen, ...ids])] }));
        },
        failed: (error) => set({ watchError: error }),
      });
    };

    return {
      phase: 'loading',
      error: null,
      strategies: [],
      branch: null,
      defaultBranch: null,
      compactions: [],
      requests: [],
      keys: null,
      keyMessage: null,
      keyBusy: false,
      modelKeys: {},
      watchError: null,
      noKeys: false,
      form: EMPTY_FORM,
      demo: null,
      chainSettings: { file: null, ok: true, note: null, saving: false },
      formError: null,
      starting: false,
      jobs: [],
      runs: [],
      runsFile: null,
      runProblems: [],
      runsError: null,
      chosen: [],
      comparing: false,
      comparison: null,
      compareError: null,

      async load() {
        const [strategies, compactions, requests, keys, jobs, settings] = await Promise.all([
          api.listStrategies({}),
          api.listCompactions({ sessionId }),
          api.listRequests({ sessionId }),
          api.providerKeys({}),
          api.listRerunJobs({ sessionId }),
          api.rerunSettings({}),
        ]);
        const failed = [strategies, compactions, requests, keys, jobs].find((r) => !r.ok);
        if (failed && !failed.ok) return set({ phase: 'error', error: failed.error });
        if (!strategies.ok || !compactions.ok || !requests.ok || !keys.ok || !jobs.ok) return;
        const noKeys = keys.value.providers.every((p) => !p.set);
        const first = compactions.value.compactions[0];
        const agent = requests.value.requests.filter((r) => r.compactionId === null);
        const demo = noKeys ? demoWindow(first, requests.value.requests) : null;
        // The chain kept in settings, when there is one; else, with no key, the mock.
        const saved = settings.ok ? settings.value.chain.map((m) => entryOf(m, nextKey++)) : [];
        const chainSettings = settings.ok
          ? {
              file: settings.value.file,
              ok: settings.value.problem === null,
              saving: false,
              note: settings.value.problem ?? (saved.length > 0 ? `From settings (${settings.value.file}).` : null),
            }
          : { file: null, ok: false, saving: false, note: `The chain in settings could not be read: ${settings.error.message}` };
        const form: RerunForm = {
          ...EMPTY_FORM,
          targetKind: first ? 'compaction' : 'request',
          compactionId: first?.id ?? '',
          request: String(agent.at(-1)?.index ?? 0),
          // With no key, the obvious first run is one that needs none; with keys, Rind's one-shot
          // handoff.
          strategy: noKeys ? 'extractive' : 'one-shot',
          chain: saved.length > 0 ? saved : noKeys ? [{ key: nextKey++, ...MOCK_MODEL }] : [],
          window: demo ? String(demo.window) : '',
        };
        set({
          chainSettings,
          phase: 'ready',
          strategies: strategies.value.strategies,
          branch: compactions.value.branch,
          defaultBranch: compactions.value.branch,
          compactions: compactions.value.compactions,
          requests: requests.value.requests,
          keys: keys.value,
          noKeys,
          form,
          demo,
          jobs: jobs.value.jobs,
        });
        for (const j of jobs.value.jobs) if (j.state === 'running') track(j);
        if (pending) await get().aim(pending);
        await Promise.all([get().refreshRuns(), refreshKeys()]);
      },

      async aim(request) {
        if (get().phase !== 'ready') {
          pending = request;
          return;
        }
        pending = null;
        const branch = request.branch ?? get().defaultBranch;
        if (branch !== null && branch !== get().branch && !(await loadBranch(branch))) return;
        get().setForm(formTargetOf(request.target));
      },

      setForm(patch) {
        set((s) => ({ form: { ...s.form, ...patch }, formError: null }));
        if (patch.compactionId !== undefined || patch.targetKind !== undefined) set({ comparison: null });
      },

      addModel(entry) {
        set((s) => ({ form: { ...s.form, chain: [...s.form.chain, { ...entry, key: nextKey++ }] }, formError: null }));
        void refreshKeys();
        void saveChain();
      },

      removeModel(key) {
        set((s) => ({ form: { ...s.form, chain: s.form.chain.filter((e) => e.key !== key) } }));
        void refreshKeys();
        void saveChain();
      },

      moveModel(key, delta) {
        const chain = [...get().form.chain];
        const at = chain.findIndex((e) => e.key === key);
        const to = at + delta;
        if (at < 0 || to < 0 || to >= chain.length) return;
        [chain[at], chain[to]] = [chain[to] as ChainEntry, chain[at] as ChainEntry];
        set((s) => ({ form: { ...s.form, chain } }));
        void refreshKeys();
        void saveChain();
      },

      applyDemo() {
        const { compactions, requests } = get();
        const first = compactions[0];
        const demo = demoWindow(first, requests);
        set((s) => ({
          demo,
          form: {
            ...s.form,
            targetKind: first ? 'compaction' : 'request',
            compactionId: first?.id ?? s.form.compactionId,
            strategy: 'extractive',
            chain: s.form.chain.some((e) => e.provider === 'mock') ? s.form.chain : [...s.form.chain, { key: nextKey++, ...MOCK_MODEL }],
            window: demo ? String(demo.window) : s.form.window,
          },
        }));
        void refreshKeys();
      },

      async start() {
        const checked = toStartInput(sessionId, get().form, get().strategies);
        if (!checked.ok) return set({ formError: checked.error });
        set({ starting: true, formError: null });
        const branch = get().branch;
        const r = await api.startRerun({ ...checked.value, ...(branch !== null ? { branch } : {}) });
        set({ starting: false });
        if (!r.ok) return set({ formError: `${r.error.code}: ${r.error.message}` });
        set((s) => ({ jobs: [...s.jobs, r.value] }));
        track(r.value);
      },

      async cancel(jobId) {
        const r = await api.cancelRerun({ jobId });
        if (r.ok) set((s) => ({ jobs: s.jobs.map((j) => (j.jobId === jobId ? r.value.job : j)) }));
      },

      async refreshRuns() {
        const r = await api.listRuns({ sessionId });
        if (!r.ok) return set({ runsError: r.error });
        set({ runs: r.value.runs, runsFile: r.value.file, runProblems: r.value.problems, runsError: null });
      },

      toggleRun(runId) {
        set((s) => ({ chosen: s.chosen.includes(runId) ? s.chosen.filter((x) => x !== runId) : [...s.chosen, runId] }));
      },

      async compare() {
        const target = formTarget(get().form);
        if (target === null) return set({ compareError: { code: 'BAD_INPUT', message: 'Choose a compaction or a request first.' } });
        const ofTarget = new Set(
          get()
            .runs.filter((r) => JSON.stringify(r.target) === JSON.stringify(target) && r.branch === get().branch)
            .map((r) => r.runId),
        );
        const runIds = get().chosen.filter((id) => ofTarget.has(id));
        set({ comparing: true, compareError: null });
        const branch = get().branch;
        const r = await api.compareRuns({ sessionId, target, runIds, ...(branch !== null ? { branch } : {}) });
        set(r.ok ? { comparing: false, comparison: r.value } : { comparing: false, compareError: r.error });
      },

      // Storing and removing provider keys: ./key-actions.ts.
      ...keyActions(api, set, get, refreshKeys),
    };
  });
}
