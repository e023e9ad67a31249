// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, waitFor, within } from '@testing-library/react';
import { createElement } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiResult, EvalJob, PalimpsestApi } from '../../../src/shared/api/contract';
import { EvalView } from '../../../src/renderer/eval/EvalView';
import { createAppStore } from '../../../src/renderer/store';
import { StoreContext } from '../../../src/renderer/useApp';
import { results } from './fixtures';

/*
 * The eval view against a fake API: the newest results open as the matrix, the metric changes what
 * the cells show, the baseline filter hides equal cells, a cell drills into its runs and a run into
 * the compare view, and the run form starts a job, shows its progress and cancels it.
 */

afterEach(cleanup);

const ok = <T>(value: T): Promise<ApiResult<T>> => Promise.resolve({ ok: true, value });

function job(state: EvalJob['state'], done: number, total: number | null): EvalJob {
  return {
    jobId: 'j1',
    state,
    spec: '/specs/demo.spec.yaml',
    specName: 'demo',
    resultsFile: '/data/evals/x.results.jsonl',
    resume: false,
    shard: null,
    startedAt: 'now',
    finishedAt: state === 'running' ? null : 'now',
    done,
    total,
    last:
      done > 0
        ? {
            key: 'k',
            trace: 't',
            target: { compaction: 'c' },
            strategy: 'truncate',
            model: 'none',
            fault: null,
            repeat: 0,
            outcome: 'fallback',
            recall: 0.25,
            mock: false,
            error: null,
          }
        : null,
    stopped: state === 'cancelled' ? 'cancelled: no new cells scheduled, the cells in flight were aborted and not written' : null,
    errors: [],
    error: null,
    summary: null,
  };
}

function fakeApi() {
  const calls: { method: string; input: unknown }[] = [];
  let releaseWatch: (() => void) | null = null;
  let watched = 0;
  const api = {
    listEvalFiles: () =>
      ok({
        specs: [{ path: '/specs/demo.spec.yaml', name: 'demo', description: 'A <i>demo</i>.', error: null, given: true }],
        results: [{ path: '/data/evals/x.results.jsonl', bytes: 10, modifiedAt: '2026-01-01T00:00:00.000Z' }],
        resultsFolder: '/data/evals',
        problems: [],
      }),
    listEvalJobs: () => ok({ jobs: [] }),
    openEvalResults: (input: { baseline?: string }) => {
      calls.push({ method: 'openEvalResults', input });
      return ok(results(input.baseline !== undefined));
    },
    evalRunDetail: (input: unknown) => {
      calls.push({ method: 'evalRunDetail', input });
      const r = results(false);
      return ok({
        file: r.file,
        branch: 'main',
        stale: [],
        missing: [],
        note: null,
        run: r.runs[2],
        tracePath: '/t/a.jsonl',
        diagnostics: [],
        facts: { constraint: { total: 2, ok: ['c1'], missed: ['c2'] } },
        provenance: { ok: [], without: [] },
        comparison: {
          anchors: {
            paths: [],
            commands: [],
            identifiers: [],
            urls: [],
            errors: [],
            numbers: [],
            constraints: [],
            tasks: [],
            decisions: [],
          },
          rows: [],
        },
      });
    },
    startEval: (input: unknown) => {
      calls.push({ method: 'startEval', input });
      return ok(job('running', 0, null));
    },
    watchEval: () => {
      watched++;
      if (watched === 1) return ok({ events: [], next: 2, job: job('running', 1, 2) });
      return new Promise<ApiResult<unknown>>((resolve) => {
        releaseWatch = () => resolve({ ok: true, value: { events: [], next: 3, job: job('cancelled', 1, 2) } });
      });
    },
    cancelEval: (input: unknown) => {
      calls.push({ method: 'cancelEval', input });
      releaseWatch?.();
      return ok({ cancelled: true, job: job('cancelled', 1, 2) });
    },
    pickPaths: () => Promise.resolve({ ok: false, error: { code: 'NOT_AVAILABLE', message: 'type the path' } }),
  };
  return { api: api as unknown as PalimpsestApi, calls };
}

function mount() {
  const fake = fakeApi();
  const store = createAppStore(fake.api);
  const view = render(createElement(StoreContext.Provider, { value: store }, createElement(EvalView)));
  return { ...fake, view };
}

const matrixCells = (root: HTMLElement) =>
  [...root.querySelectorAll('.ev-table tbody tr')].map((tr) =>
    [...tr.querySelectorAll('th, td')].map((c) => c.querySelector('.ev-value')?.textContent ?? c.textContent),
  );

describe('the eval view', () => {
  it('opens the newest results as the matrix, with the misses marked, and the metric chooses what the cells show', async () => {
    const { view } = mount();
    const matrix = await view.findByRole('region', { name: 'Eval matrix' });
    expect(within(matrix).getByRole('status', { name: 'Verdict' }).textContent).toBe('demo <b>spec</b> · 5 runs · 1 threshold miss');
    expect(matrixCells(matrix)).toEqual([
      ['truncate', '25.0 %', '—', '—'],
      ['extractive', '50.0 %', '—', '—'],
      ['one-shot', '—', '❌ 75.0 %', '60.0 %'],
    ]);
    expect(matrix.querySelector('.ev-cell-td.missed .ev-spread')?.textContent).toBe('± 5.0 pts · 70.0–80.0 % · 2 repeats');
    expect(matrix.querySelectorAll('.rr-mock')).toHaveLength(2);
    // The spec name is text, never markup.
    expect(matrix.querySelector('b')).toBeNull();
    fireEvent.change(within(matrix).getByLabelText('Metric'), { target: { value: 'provenance' } });
    expect(matrixCells(matrix)[2]).toEqual(['one-shot', '—', '100.0 %', '100.0 %']);
    expect(matrix.querySelector('.ev-miss')).toBeNull();
    expect((within(matrix).getByLabelText(/Only cells different/) as HTMLInputElement).disabled).toBe(true);
  });

  it('compares with a baseline: regressions marked, deltas shown, and the filter keeps only what differs', async () => {
    const { view, calls } = mount();
    await view.findByRole('region', { name: 'Eval matrix' });
    fireEvent.change(view.getByLabelText('Baseline (optional)'), { target: { value: '/data/evals/base.results.jsonl' } });
    fireEvent.click(view.getByRole('button', { name: 'Show results' }));
    await waitFor(() => expect(view.getByRole('status', { name: 'Verdict' }).textContent).toMatch(/1 regression against the baseline/));
    expect(calls.at(-1)).toEqual({
      method: 'openEvalResults',
      input: { file: '/data/evals/x.results.jsonl', baseline: '/data/evals/base.results.jsonl' },
    });
    const matrix = view.getByRole('region', { name: 'Eval matrix' });
    const extractive = within(matrix).getByRole('button', { name: /^extractive × none: 50.0 %, regressed$/ });
    expect(extractive.textContent).toMatch(/50.0 % ▼.*−30.0 pts vs baseline/);
    fireEvent.click(within(matrix).getByLabelText(/Only cells different/));
    expect(matrixCells(matrix)).toEqual([
      ['extractive', '50.0 % ▼', '—'],
      ['one-shot', '—', '❌ 75.0 %'],
    ]);
    expect(matrix.textContent).toMatch(/2 cells equal to the baseline hidden/);
    expect(within(matrix).getByText(/▼ extractive × none: recall fell from 80.0 % to 50.0 %/)).toBeTruthy();
  });

  it('drills from a cell into its runs, and from a run into the compare view', async () => {
    const { view, calls } = mount();
    const matrix = await view.findByRole('region', { name: 'Eval matrix' });
    fireEvent.click(within(matrix).getByRole('button', { name: /^one-shot × mock:a/ }));
    const runs = view.getByRole('region', { name: 'Runs of the cell' });
    expect(runs.querySelectorAll('tbody tr')).toHaveLength(2);
    expect(within(runs).getByText(/Facts missed/)).toBeTruthy();
    // Fact text from the facts file is shown as text.
    expect(runs.textContent).toContain('Never <script>alert(1)</script> touch billing.');
    expect(runs.querySelector('script')).toBeNull();
    fireEvent.click(within(runs).getByRole('button', { name: 'Compare run #1 of one-shot × mock:a with the original' }));
    const detail = await view.findByRole('region', { name: 'Run compared with the original' });
    expect(calls.at(-1)).toEqual({
      method: 'evalRunDetail',
      input: { file: '/data/evals/x.results.jsonl', runId: 'r3', spec: '/specs/demo.spec.yaml' },
    });
    expect(within(detail).getByRole('region', { name: 'Comparison' })).toBeTruthy();
    expect(document.activeElement?.tagName).toBe('H3');
    expect(detail.querySelector('.ev-score')?.textContent).toMatch(/constraints1\/21 missed/);
    fireEvent.click(within(detail).getByRole('button', { name: 'Back to the runs' }));
    expect(view.getByRole('region', { name: 'Runs of the cell' })).toBeTruthy();
  });

  it('runs the chosen spec with progress and cancels it', async () => {
    const { view, calls } = mount();
    await view.findByRole('region', { name: 'Eval matrix' });
    expect((view.getByLabelText('Spec file') as HTMLInputElement).value).toBe('/specs/demo.spec.yaml');
    fireEvent.change(view.getByLabelText('Shard'), { target: { value: '5/2' } });
    fireEvent.click(view.getByRole('button', { name: 'Run eval' }));
    expect((await view.findByRole('alert')).textContent).toMatch(/Shard 5\/2: k must be between 1 and n/);
    fireEvent.change(view.getByLabelText('Shard'), { target: { value: '' } });
    fireEvent.click(view.getByLabelText('Resume'));
    fireEvent.click(view.getByRole('button', { name: 'Run eval' }));
    const progress = await view.findByRole('region', { name: 'Eval progress' });
    await waitFor(() => expect(within(progress).getByRole('status').textContent).toBe('1/2 cells'));
    expect(calls.find((c) => c.method === 'startEval')?.input).toEqual({ spec: '/specs/demo.spec.yaml', resume: true });
    const bar = progress.querySelector('progress');
    expect([bar?.getAttribute('value'), bar?.getAttribute('max')]).toEqual(['1', '2']);
    expect(progress.textContent).toMatch(/last: truncate × none #1: fallback · recall 25.0 %/);
    expect((view.getByRole('button', { name: 'Run eval' }) as HTMLButtonElement).disabled).toBe(true);
    await act(async () => {
      fireEvent.click(within(progress).getByRole('button', { name: 'Cancel' }));
    });
    await waitFor(() => expect(progress.querySelector('.rr-state')?.textContent).toBe('cancelled'));
    expect(calls.some((c) => c.method === 'cancelEval')).toBe(true);
    expect(within(progress).getByRole('note').textContent).toMatch(/^cancelled: /);
    expect(within(progress).queryByRole('button', { name: 'Cancel' })).toBeNull();
  });
});
