import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ApiError, ApiOutput, EvalJob, PalimpsestApi } from '../../shared/api/contract';
import { parseShard } from '../../shared/eval/cells';
import { followEval } from './follow';
import type { MetricId } from './matrix';

/**
 * State of the eval view (docs/eval.md, "In the app"): the eval files the host offers, the run
 * form, the job being followed, the results file shown as the matrix (with a baseline), the
 * matrix's metric, trace and filter, the cell drilled into and the run compared. One store per
 * window (evalStoreFor), so a running eval keeps streaming while the user looks at a session.
 */

export type EvalFiles = ApiOutput<'listEvalFiles'>;
export type EvalResults = ApiOutput<'openEvalResults'>;
export type EvalDetail = ApiOutput<'evalRunDetail'>;

export interface RunFormState {
  readonly spec: string;
  readonly resume: boolean;
  /** "k/n" or empty. */
  readonly shard: string;
  /** Empty: the default results file under the host's data folder. */
  readonly results: string;
}

export interface OpenFormState {
  readonly file: string;
  readonly baseline: string;
  /** Empty: the spec the host knows by the results' name. */
  readonly spec: string;
}

export interface CellRef {
  readonly strategy: string;
  readonly model: string;
  readonly trace: string | null;
}

export interface EvalState {
  files: EvalFiles | null;
  filesError: ApiError | null;
  form: RunFormState;
  formError: string | null;
  starting: boolean;
  /** The job shown with its progress (the last one started or found running). */
  job: EvalJob | null;
  watchError: ApiError | null;
  open: OpenFormState;
  results: EvalResults | null;
  resultsError: ApiError | null;
  loadingResults: boolean;
  metric: MetricId;
  /** null: over all traces. */
  trace: string | null;
  diffOnly: boolean;
  cell: CellRef | null;
  detail: EvalDetail | null;
  detailRun: string | null;
  detailError: ApiError | null;

  load(): Promise<void>;
  refreshFiles(): Promise<void>;
  setForm(patch: Partial<RunFormState>): void;
  /** A native dialog (desktop app): what is picked fills the spec, results or baseline field (and may be read from then on). */
  browse(target: 'spec' | 'results' | 'baseline'): Promise<void>;
  start(): Promise<void>;
  cancel(): Promise<void>;
  setOpen(patch: Partial<OpenFormState>): void;
  openResults(name?: string): Promise<void>;
  setMetric(m: MetricId): void;
  setTrace(t: string | null): void;
  setDiffOnly(on: boolean): void;
  selectCell(c: CellRef | null): void;
  openRun(runId: string): Promise<void>;
  closeRun(): void;
}

export type EvalStore = StoreApi<EvalState>;

/** While a job runs, the matrix is re-read at most this often (it fills in as cells finish). */
const REFRESH_MS = 1500;

export function createEvalStore(api: PalimpsestApi): EvalStore {
  const followed = new Set<string>();
  let lastRefresh = 0;

  return createStore<EvalState>()((set, get) => {
    const showResultsOf = async (job: EvalJob): Promise<void> => {
      if (job.resultsFile === null) return;
      const same = get().results?.file === job.resultsFile;
      set((s) => ({ open: { ...s.open, file: job.resultsFile ?? '', spec: job.spec, baseline: same ? s.open.baseline : '' } }));
      await get().openResults();
    };

    const track = (job: EvalJob): void => {
      if (followed.has(job.jobId)) return;
      followed.add(job.jobId);
      void followEval(api, job.jobId, {
        update: (j) => {
          const before = get().job;
          if (before === null || before.jobId === j.jobId) set({ job: j });
          const moved = before?.jobId === j.jobId && before.done !== j.done;
          if (moved && j.state === 'running' && Date.now() - lastRefresh > REFRESH_MS) {
            lastRefresh = Date.now();
            void showResultsOf(j);
          }
        },
        finished: (j) => {
          void get().refreshFiles();
          if (get().job?.jobId === j.jobId) void showResultsOf(j);
        },
        failed: (error) => set({ watchError: error }),
      });
    };

    return {
      files: null,
      filesError: null,
      form: { spec: '', resume: false, shard: '', results: '' },
      formError: null,
      starting: false,
      job: null,
      watchError: null,
      open: { file: '', baseline: '', spec: '' },
      results: null,
      resultsError: null,
      loadingResults: false,
      metric: 'recall',
      trace: null,
      diffOnly: false,
      cell: null,
      detail: null,
      detailRun: null,
      detailError: null,

      async load() {
        const [files, jobs] = await Promise.all([api.listEvalFiles({}), api.listEvalJobs({})]);
        if (!files.ok) return set({ filesError: files.error });
        set({ files: files.value, filesError: null });
        const usable = files.value.specs.find((s) => s.error === null);
        if (get().form.spec === '' && usable) get().setForm({ spec: usable.path });
        const running = jobs.ok ? jobs.value.jobs.filter((j) => j.state === 'running') : [];
        const newest = jobs.ok ? jobs.value.jobs.at(-1) : undefined;
        if (newest && get().job === null) set({ job: newest });
        for (const j of running) track(j);
        // The newest results are what the user most likely came back for.
        const latest = files.value.results[0];
        if (get().results === null && get().open.file === '' && latest) {
          get().setOpen({ file: latest.path });
          await get().openResults();
        }
      },

      async refreshFiles() {
        const r = await api.listEvalFiles({});
        if (r.ok) set({ files: r.value, filesError: null });
      },

      setForm(patch) {
        set((s) => ({ form: { ...s.form, ...patch }, formError: null }));
      },

      async browse(target) {
        const r = await api.pickPaths({ kind: 'files' });
        if (!r.ok) return target === 'spec' ? set({ formError: r.error.message }) : set({ resultsError: r.error });
        const first = r.value.paths[0];
        if (first === undefined) return;
        if (target === 'spec') get().setForm({ spec: first });
        else get().setOpen(target === 'results' ? { file: first } : { baseline: first });
      },

      async start() {
        const { form } = get();
        if (form.spec.trim() === '') return set({ formError: 'Choose a spec file (YAML or JSON, docs/eval.md).' });
        let shard: { k: number; n: number } | undefined;
        if (form.shard.trim() !== '') {
          const p = parseShard(form.shard);
          if (!p.ok) return set({ formError: p.error.replace('--shard', 'Shard') });
          shard = p.value;
        }
        set({ starting: true, formError: null, watchError: null });
        const r = await api.startEval({
          spec: form.spec.trim(),
          ...(form.resume ? { resume: true } : {}),
          ...(shard ? { shard } : {}),
          ...(form.results.trim() !== '' ? { results: form.results.trim() } : {}),
        });
        set({ starting: false });
        if (!r.ok) return set({ formError: `${r.error.code}: ${r.error.message}` });
        set({ job: r.value });
        track(r.value);
      },

      async cancel() {
        const job = get().job;
        if (job === null || job.state !== 'running') return;
        const r = await api.cancelEval({ jobId: job.jobId });
        if (r.ok) set({ job: r.value.job });
        else set({ watchError: r.error });
      },

      setOpen(patch) {
        set((s) => ({ open: { ...s.open, ...patch } }));
      },

      async openResults(name) {
        const { open } = get();
        if (open.file.trim() === '') return set({ resultsError: { code: 'BAD_INPUT', message: 'Choose a results file.' } });
        set({ loadingResults: true });
        const r = await api.openEvalResults({
          file: open.file.trim(),
          ...(open.baseline.trim() !== '' ? { baseline: open.baseline.trim() } : {}),
          ...(open.spec.trim() !== '' ? { spec: open.spec.trim() } : {}),
          ...(name !== undefined ? { name } : {}),
        });
        if (!r.ok) return set({ loadingResults: false, resultsError: r.error });
        const prev = get().results;
        const sameFile = prev?.file === r.value.file && prev.specName === r.value.specName;
        const traceKept = sameFile && (get().trace === null || r.value.aggregate.traces.includes(get().trace ?? ''));
        set({
          results: r.value,
          resultsError: null,
          loadingResults: false,
          ...(traceKept ? {} : { trace: null, cell: null, detail: null, detailRun: null, detailError: null }),
          ...(r.value.comparison === null ? { diffOnly: false } : {}),
        });
      },

      setMetric(m) {
        set({ metric: m });
      },

      setTrace(t) {
        set((s) => ({ trace: t, cell: s.cell ? { ...s.cell, trace: t } : null, detail: null, detailRun: null }));
      },

      setDiffOnly(on) {
        set({ diffOnly: on });
      },

      selectCell(c) {
        set({ cell: c, detail: null, detailRun: null, detailError: null });
      },

      async openRun(runId) {
        const results = get().results;
        if (!results) return;
        set({ detailRun: runId, detail: null, detailError: null });
        const r = await api.evalRunDetail({ file: results.file, runId, ...(results.spec ? { spec: results.spec.file } : {}) });
        if (get().detailRun !== runId) return;
        if (r.ok) set({ detail: r.value });
        else set({ detailError: r.error });
      },

      closeRun() {
        set({ detail: null, detailRun: null, detailError: null });
      },
    };
  });
}

const stores = new WeakMap<PalimpsestApi, EvalStore>();

/** The window's eval store, made (and loaded) on first use. */
export function evalStoreFor(api: PalimpsestApi): EvalStore {
  let s = stores.get(api);
  if (!s) {
    s = createEvalStore(api);
    stores.set(api, s);
    void s.getState().load();
  }
  return s;
}
