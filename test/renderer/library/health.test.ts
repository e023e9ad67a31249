// @vitest-environment happy-dom
import { cleanup, fireEvent, render, waitFor, within } from '@testing-library/react';
import { createElement } from 'react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApiResult, PalimpsestApi } from '../../../src/shared/api/contract';
import { SessionFilesHealthSource } from '../../../src/main/health/session-files';
import type { HealthRows } from '../../../src/main/health/source';
import { LibraryView } from '../../../src/renderer/library/LibraryView';
import { HomeArea } from '../../../src/renderer/eval/HomeArea';
import { setHomeMode } from '../../../src/renderer/eval/home';
import { createAppStore } from '../../../src/renderer/store';
import { StoreContext } from '../../../src/renderer/useApp';
import type { HealthGroup } from '../../../src/shared/health/aggregate';
import { healthReport } from '../../../src/shared/health/report';

/*
 * The Health tab beside the library's sessions, against a fake API whose answers are the real report of the Palimpsest
 * fixtures (built here as the host builds it): the charts, the grouping switch, a bar picked by
 * keyboard that lists its sessions and compactions, and a compaction that opens its session there.
 */

afterEach(() => {
  cleanup();
  setHomeMode('library');
});

const ok = <T>(value: T): Promise<ApiResult<T>> => Promise.resolve({ ok: true, value });
let rows: HealthRows;

beforeAll(async () => {
  rows = await new SessionFilesHealthSource({ dir: 'fixtures/palimpsest', useCache: false }).rows();
});

/** `held`: what the host's index holds before its update, answered first with `updating` until asked for `settled` rows. */
function fakeApi(held?: HealthRows) {
  const calls: { method: string; input: unknown }[] = [];
  let release: () => void = () => undefined;
  const updated = new Promise<void>((r) => (release = r));
  const api = {
    initialSessions: () => ok({ paths: [] }),
    discoverSessions: () => ok({ sessions: [], roots: [], problems: [], truncated: false, at: '2026-01-01T00:00:00.000Z' }),
    openingSessions: () => ok({ opening: [] }),
    listEvalFiles: () => ok({ specs: [], results: [], resultsFolder: '/data/evals', problems: [] }),
    healthReport: async (input: { by: HealthGroup; since?: string; settled?: boolean }) => {
      calls.push({ method: 'healthReport', input });
      const filter = input.since ? { since: input.since } : {};
      if (held && !input.settled) return ok({ ...healthReport(held, input.by, filter), updating: true });
      if (held) await updated;
      return ok({ ...healthReport(rows, input.by, filter), updating: false });
    },
    healthProgress: () => ok({ running: false, done: 0, total: 0, cached: 0 }),
    openSession: (input: { path: string }) => {
      calls.push({ method: 'openSession', input });
      return ok({
        sessionId: 's1',
        path: input.path,
        format: 'palimpsest',
        files: [],
        branches: [],
        defaultBranch: 'main',
        counts: { events: 60, requests: 8, compactions: 5, diagnostics: { error: 0, warning: 0, info: 0 } },
      });
    },
  };
  return { api: api as unknown as PalimpsestApi, calls, release };
}

async function showHealth(held?: HealthRows) {
  const fake = fakeApi(held);
  const store = createAppStore(fake.api);
  const view = render(
    createElement(StoreContext.Provider, { value: store }, createElement(HomeArea, { library: createElement(LibraryView) })),
  );
  fireEvent.click(view.getByRole('tab', { name: 'Health' }));
  await waitFor(() => expect(view.getByText(/sessions, .* requests, .* compactions/)).toBeTruthy());
  return { ...fake, store, view };
}

describe('the Health tab', () => {
  it('draws a bar per day in each chart, from the host report', async () => {
    const { view, calls } = await showHealth();
    expect(calls[0]).toEqual({ method: 'healthReport', input: { by: 'day' } });
    const chart = view.getByRole('group', { name: /Compactions by outcome, per day/ });
    const days = healthReport(rows, 'day').buckets.map((b) => b.key);
    expect(within(chart).getAllByRole('button')).toHaveLength(days.length);
    expect(
      within(chart).getByRole('button', { name: /^2026-09-13: committed 1, rejected 1, failed 1, fallback 1, cancelled 1/ }),
    ).toBeTruthy();
  });

  it('paints what the index held at once, then the rows of its update', async () => {
    // The index held one session fewer than the update finds.
    const lifecycle = rows.rows.filter((r) => r.path.endsWith('compaction-lifecycle.jsonl'));
    expect(lifecycle).toHaveLength(1);
    const held = { ...rows, rows: rows.rows.filter((r) => !lifecycle.includes(r)) };
    const { view, calls, release } = await showHealth(held);
    expect(view.getByText(new RegExp(`^${held.rows.length} sessions,`))).toBeTruthy();
    expect(view.getByText(/Showing what the session index held; bringing it up to date/)).toBeTruthy();
    expect(calls).toEqual([
      { method: 'healthReport', input: { by: 'day' } },
      { method: 'healthReport', input: { by: 'day', settled: true } },
    ]);
    release();
    await waitFor(() => expect(view.getByText(new RegExp(`^${rows.rows.length} sessions,`))).toBeTruthy());
    expect(view.queryByText(/Showing what the session index held/)).toBeNull();
  });

  it('regroups by harness when asked', async () => {
    const { view, calls } = await showHealth();
    fireEvent.click(view.getByRole('radio', { name: 'harness' }));
    await waitFor(() => expect(view.getByRole('group', { name: /Compactions by outcome, per harness/ })).toBeTruthy());
    expect(calls.at(-1)).toEqual({ method: 'healthReport', input: { by: 'harness' } });
  });

  it('lists what is behind a bar picked with Enter, and opens a session at its compaction', async () => {
    const { view, calls, store } = await showHealth();
    const chart = view.getByRole('group', { name: /Failed and inferred-failed compactions, per day/ });
    const bar = within(chart).getByRole('button', { name: /^2026-09-13:/ });
    bar.focus();
    fireEvent.keyDown(bar, { key: 'Enter' });
    const drill = await waitFor(() => view.getByRole('region', { name: 'Sessions and compactions behind 2026-09-13' }));
    expect(within(drill).getByText(/compaction-lifecycle\.jsonl$/)).toBeTruthy();
    fireEvent.click(within(drill).getByRole('button', { name: 'compaction cmp_2' }));
    await waitFor(() => expect(store.getState().focus?.seq).toBe(20));
    expect(calls.find((c) => c.method === 'openSession')?.input).toEqual({ path: 'fixtures/palimpsest/compaction-lifecycle.jsonl' });
  });
});
