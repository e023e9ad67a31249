import { describe, expect, it } from 'vitest';
import type { ApiResult, PalimpsestApi, PinnedModelRow, RerunJob, RunRow } from '../../../src/shared/api/contract';
import { createRerunStore } from '../../../src/renderer/rerun/store';

const ok = <T>(value: T): Promise<ApiResult<T>> => Promise.resolve({ ok: true, value });

const run = (runId: string, target: RunRow['target'] = { compaction: 'cmp_01' }): RunRow => ({
  runId,
  batchId: 'b',
  repeat: { index: 0, of: 1 },
  at: '2026-01-01T00:00:00Z',
  branch: 'main',
  target,
  strategy: 'extractive',
  options: {},
  models: [],
  mock: false,
  window: 2000,
  maxOutput: null,
  outcome: 'committed',
  error: null,
  notes: [],
  tokens: { before: 892, after: 714, counter: 'est' },
  totals: { requests: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, costUsd: 0, latencyMs: 0, wallMs: 1 },
  diagnostics: { error: 0, warning: 0, info: 0 },
  stale: false,
});

function fakeApi(keySet: boolean, saved: PinnedModelRow[] = []) {
  const calls: { method: string; input: unknown }[] = [];
  let chain = saved;
  let runs: RunRow[] = [run('old', { request: 3 })];
  const job = (state: RerunJob['state'], rs: RunRow[]): RerunJob => ({
    jobId: 'j1',
    sessionId: 's1',
    state,
    strategy: 'extractive',
    options: {},
    target: { compaction: 'cmp_01' },
    branch: 'main',
    models: [],
    repeat: 1,
    startedAt: 'now',
    finishedAt: state === 'running' ? null : 'now',
    stage: null,
    runs: rs,
    error: null,
    file: '/tmp/f',
    unknowns: [],
  });
  let watched = 0;
  const api = {
    listStrategies: () =>
      ok({
        strategies: [
          { id: 'one-shot', title: 'One-shot', source: '000', needsModel: true },
          { id: 'extractive', title: 'Extractive', source: 'baseline', needsModel: false },
        ],
      }),
    listCompactions: () => ok({ branch: 'main', compactions: [{ id: 'cmp_01', preTokens: 1224, startSeq: 28 }] }),
    listRequests: () => ok({ branch: 'main', requests: [{ index: 0, seq: 5, window: 200_000, compactionId: null }] }),
    providerKeys: (input: unknown) => {
      calls.push({ method: 'providerKeys', input });
      return ok({
        providers: [
          { provider: 'openai', env: ['OPENAI_API_KEY'], set: keySet, source: keySet ? 'env' : null, last4: keySet ? 'WXYZ' : null },
        ],
        models: [],
      });
    },
    listRerunJobs: () => ok({ jobs: [] }),
    rerunSettings: () => ok({ file: '/data/settings.json', chain, problem: null }),
    setSummarizationChain: (input: { models: PinnedModelRow[] }) => {
      calls.push({ method: 'setSummarizationChain', input });
      chain = input.models;
      return ok({ file: '/data/settings.json', chain, problem: null });
    },
    listRuns: () => ok({ file: '/tmp/f', runs, problems: [] }),
    startRerun: (input: unknown) => {
      calls.push({ method: 'startRerun', input });
      return ok(job('running', []));
    },
    watchRerun: (input: unknown) => {
      calls.push({ method: 'watchRerun', input });
      watched++;
      if (watched === 1) return ok({ events: [], next: 1, job: job('running', []) });
      runs = [...runs, run('new')];
      return ok({ events: [], next: 3, job: job('done', [run('new')]) });
    },
    compareRuns: (input: unknown) => {
      calls.push({ method: 'compareRuns', input });
      return ok({
        file: '/tmp/f',
        branch: 'main',
        comparison: { anchors: { path: [], identifier: [], number: [], error: [] }, rows: [] },
        stale: [],
        missing: [],
        note: null,
      });
    },
  };
  return { api: api as unknown as PalimpsestApi, calls };
}

const settle = () => new Promise((r) => setTimeout(r, 20));

describe('re-run store', () => {
  it('with no key, starts from extractive, the mock and the demo window', async () => {
    const { api } = fakeApi(false);
    const store = createRerunStore(api, 's1');
    await store.getState().load();
    const s = store.getState();
    expect(s.noKeys).toBe(true);
    expect(s.form).toMatchObject({ targetKind: 'compaction', compactionId: 'cmp_01', strategy: 'extractive', window: '2000' });
    expect(s.form.chain.map((e) => `${e.provider}:${e.model}`)).toEqual(['mock:summarizer']);
  });

  it("with a key, starts from one-shot on the session's own model and leaves the window to the session", async () => {
    const { api } = fakeApi(true);
    const store = createRerunStore(api, 's1');
    await store.getState().load();
    expect(store.getState().form).toMatchObject({ strategy: 'one-shot', chain: [], window: '' });
  });

  it('starts from the chain kept in settings, pinned whole, and saves every edit of it there', async () => {
    const kept: PinnedModelRow[] = [
      {
        provider: 'anthropic',
        model: 'claude-haiku-4-5',
        params: { temperature: 0.3, maxOutput: 3000 },
        prices: { input: 1, output: 5, cacheRead: 0.1 },
      },
    ];
    const { api, calls } = fakeApi(false, kept);
    const store = createRerunStore(api, 's1');
    await store.getState().load();
    const s = store.getState();
    // Settings win over the no-key default (the mock).
    expect(s.form.chain).toMatchObject([
      { provider: 'anthropic', model: 'claude-haiku-4-5', temperature: '0.3', maxOutput: '3000', prices: '1,5,0.1' },
    ]);
    expect(s.chainSettings).toMatchObject({ ok: true, note: 'From settings (/data/settings.json).' });
    expect(calls.some((c) => c.method === 'setSummarizationChain')).toBe(false);
    store.getState().addModel({
      provider: 'openai',
      model: 'llama3.1:8b',
      baseUrl: 'http://127.0.0.1:11434/v1',
      window: '131072',
      reasoning: 'low',
      prices: '0,0',
    });
    await settle();
    const saved = calls.filter((c) => c.method === 'setSummarizationChain').at(-1)?.input as { models: PinnedModelRow[] };
    expect(saved.models).toEqual([
      kept[0],
      {
        provider: 'openai',
        model: 'llama3.1:8b',
        baseUrl: 'http://127.0.0.1:11434/v1',
        window: 131072,
        params: { reasoning: 'low' },
        prices: { input: 0, output: 0 },
      },
    ]);
    expect(store.getState().chainSettings.note).toContain('Saved in settings (/data/settings.json)');
    // A start sends the same pinned models.
    store.getState().setForm({ strategy: 'one-shot' });
    await store.getState().start();
    const started = calls.find((c) => c.method === 'startRerun')?.input as { models: unknown[] };
    expect(started.models).toEqual(saved.models);
  });

  it('does not save a chain with an entry that is not valid yet, and says why', async () => {
    const { api, calls } = fakeApi(true);
    const store = createRerunStore(api, 's1');
    await store.getState().load();
    store.getState().addModel({ provider: 'openai', model: 'gpt-4.1', baseUrl: '', window: '', temperature: '9' });
    await settle();
    expect(calls.some((c) => c.method === 'setSummarizationChain')).toBe(false);
    expect(store.getState().chainSettings).toMatchObject({
      ok: false,
      note: 'Not saved in settings: The temperature of openai:gpt-4.1 must be a number from 0 to 2.',
    });
    store.getState().removeModel(store.getState().form.chain[0]?.key ?? -1);
    await settle();
    expect(calls.filter((c) => c.method === 'setSummarizationChain').at(-1)?.input).toEqual({ models: [] });
    expect(store.getState().chainSettings.note).toContain('Cleared in settings');
  });

  it('runs a job, follows it to the end, chooses its runs and compares only runs of the target', async () => {
    const { api, calls } = fakeApi(false);
    const store = createRerunStore(api, 's1');
    await store.getState().load();
    await store.getState().start();
    await settle();
    const s = store.getState();
    expect(calls.find((c) => c.method === 'startRerun')?.input).toEqual({
      sessionId: 's1',
      target: { compaction: 'cmp_01' },
      strategy: 'extractive',
      models: [],
      window: 2000,
      repeat: 1,
      branch: 'main',
    });
    expect(calls.filter((c) => c.method === 'watchRerun').map((c) => (c.input as { after: number }).after)).toEqual([0, 1]);
    expect(s.jobs.map((j) => j.state)).toEqual(['done']);
    expect(s.runs.map((r) => r.runId)).toEqual(['old', 'new']);
    expect(s.chosen).toEqual(['new']);
    store.getState().toggleRun('old');
    await store.getState().compare();
    expect(calls.find((c) => c.method === 'compareRuns')?.input).toEqual({
      sessionId: 's1',
      target: { compaction: 'cmp_01' },
      runIds: ['new'],
      branch: 'main',
    });
  });

  it('keeps the chain in order: add, move, remove', async () => {
    const { api } = fakeApi(false);
    const store = createRerunStore(api, 's1');
    await store.getState().load();
    store.getState().addModel({ provider: 'openai', model: 'gpt-4.1', baseUrl: '', window: '' });
    const [mockKey, openaiKey] = store.getState().form.chain.map((e) => e.key);
    store.getState().moveModel(openaiKey ?? -1, -1);
    expect(store.getState().form.chain.map((e) => e.provider)).toEqual(['openai', 'mock']);
    store.getState().moveModel(openaiKey ?? -1, -1);
    expect(store.getState().form.chain.map((e) => e.provider)).toEqual(['openai', 'mock']);
    store.getState().removeModel(mockKey ?? -1);
    expect(store.getState().form.chain.map((e) => e.provider)).toEqual(['openai']);
  });
});
