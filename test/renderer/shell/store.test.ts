// @vitest-environment happy-dom
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ApiResult, PalimpsestApi, SessionSummary } from '../../../src/shared/api/contract';
import { createAppStore } from '../../../src/renderer/store';
import { START_WAIT_MS } from '../../../src/renderer/app/shell-slice';
import { RECENT_KEY } from '../../../src/renderer/library/recent';
import { OPEN_POLL_MS, openedFraction, openingText } from '../../../src/renderer/library/opening';

/** A fake API: sessions open by path (ids s1, s2…), searches answer two matches; every call is recorded. */
function fakeApi(options: { initial?: string[] } = {}) {
  const calls: string[] = [];
  let n = 0;
  const ok = <T>(value: T): Promise<ApiResult<T>> => Promise.resolve({ ok: true, value });
  const summary = (path: string, id: string): SessionSummary => ({
    sessionId: id,
    path,
    format: 'palimpsest',
    files: [],
    defaultBranch: 'main',
    branches: [],
    counts: { events: 40, items: 20, requests: 10, compactions: 1, diagnostics: { error: 0, warning: 2, info: 1 } },
  });
  const api = {
    initialSessions: () => ok({ paths: options.initial ?? [] }),
    discoverSessions: () => ok({ sessions: [], roots: [], problems: [], truncated: false, at: '2026-01-01T00:00:00.000Z' }),
    openSession: ({ path }: { path: string }) => {
      calls.push(`open ${path}`);
      if (path.includes('forbidden'))
        return Promise.resolve({ ok: false, error: { code: 'FORBIDDEN_PATH', message: `${path} is not allowed` } });
      return ok(summary(path, `s${++n}`));
    },
    closeSession: ({ sessionId }: { sessionId: string }) => {
      calls.push(`close ${sessionId}`);
      return ok({ closed: true });
    },
    openingSessions: () => ok({ opening: [] }),
    prepareSession: ({ path }: { path: string }) => {
      calls.push(`prepare ${path}`);
      return ok({ prepared: 'started' });
    },
    pickPaths: () => Promise.resolve({ ok: false, error: { code: 'NOT_AVAILABLE', message: 'type the path instead' } }),
    searchSession: ({ sessionId, query }: { sessionId: string; query: string }) => {
      calls.push(`search ${sessionId} ${query}`);
      return ok({
        query,
        branch: 'main',
        total: 2,
        truncated: false,
        partial: 0,
        matches: [
          { seq: 6, kind: 'item', branch: 'main', request: 1, item: 't1', where: 'tool result', snippet: 'x', at: 0, length: 1 },
          { seq: 40, kind: 'item', branch: 'main', request: null, item: 'a9', where: 'assistant text', snippet: 'x', at: 0, length: 1 },
        ],
      });
    },
  };
  return { api: api as unknown as PalimpsestApi, calls };
}

beforeEach(() => localStorage.clear());

describe('the app store', () => {
  it("opens the first session the host was given, and shows an open session's tab instead of opening it twice", async () => {
    const { api, calls } = fakeApi({ initial: ['a.jsonl', 'b.jsonl'] });
    const store = createAppStore(api);
    await store.getState().start();
    expect(store.getState().tabs.map((t) => t.path)).toEqual(['a.jsonl']);
    expect(store.getState().active).toBe('s1');
    await store.getState().openPath('b.jsonl');
    store.getState().activate(null);
    expect(await store.getState().openPath(' a.jsonl ')).toBe(true);
    expect(store.getState().active).toBe('s1');
    expect(calls.filter((c) => c.startsWith('open'))).toEqual(['open a.jsonl', 'open b.jsonl']);
  });

  it('stays starting while it opens the first session given, and shows the library only without one', async () => {
    const { api } = fakeApi({ initial: ['a.jsonl'] });
    let answer: () => void = () => undefined;
    const held = new Promise<void>((r) => (answer = r));
    const store = createAppStore({
      ...api,
      openSession: async (input) => {
        await held;
        return api.openSession(input);
      },
    });
    const started = store.getState().start();
    await vi.waitFor(() => expect(store.getState().opening).toEqual(['a.jsonl']));
    // The library is not drawn before a page that would leave it at once.
    expect(store.getState().phase).toBe('starting');
    answer();
    await started;
    expect(store.getState().phase).toBe('ready');
    expect(store.getState().active).toBe('s1');

    // An open that takes long does not keep the library from the user.
    let slowly: () => void = () => undefined;
    const slow = createAppStore({
      ...api,
      openSession: async (input) => {
        await new Promise<void>((r) => (slowly = r));
        return api.openSession(input);
      },
    });
    const starting = slow.getState().start();
    await vi.waitFor(() => expect(slow.getState().opening).toEqual(['a.jsonl']));
    expect(slow.getState().phase).toBe('starting');
    await vi.waitFor(() => expect(slow.getState().phase).toBe('ready'), { timeout: START_WAIT_MS + 2000 });
    expect(slow.getState().active).toBe(null);
    slowly();
    await starting;
    expect(slow.getState().active).not.toBe(null);

    const bare = createAppStore(fakeApi().api);
    await bare.getState().start();
    expect(bare.getState().phase).toBe('ready');
  });

  it('hints the host of a session the user reaches for once, and not of one open already', async () => {
    const { api, calls } = fakeApi();
    const store = createAppStore(api);
    store.getState().prepare('a.jsonl');
    store.getState().prepare('a.jsonl');
    // One session of a database is not read ahead: the host's hint takes a file.
    store.getState().prepare('opencode.db', 'ses_1');
    await store.getState().openPath('b.jsonl');
    store.getState().prepare('b.jsonl');
    await new Promise((r) => setTimeout(r, 0));
    expect(calls.filter((c) => c.startsWith('prepare'))).toEqual(['prepare a.jsonl']);
  });

  it('keeps a failed open as an error for the library, and opens nothing', async () => {
    const { api } = fakeApi();
    const store = createAppStore(api);
    expect(await store.getState().openPath('/forbidden/x.jsonl')).toBe(false);
    expect(store.getState().openError).toMatchObject({ path: '/forbidden/x.jsonl', error: { code: 'FORBIDDEN_PATH' } });
    expect(store.getState().tabs).toEqual([]);
  });

  it('cycles through the library and the tabs, and closes a tab for its neighbour', async () => {
    const { api, calls } = fakeApi();
    const store = createAppStore(api);
    for (const p of ['a', 'b', 'c']) await store.getState().openPath(`${p}.jsonl`);
    const s = () => store.getState();
    expect(s().active).toBe('s3');
    s().cycleTab(1);
    expect(s().active).toBeNull();
    s().cycleTab(1);
    expect(s().active).toBe('s1');
    s().cycleTab(-1);
    s().cycleTab(-1);
    expect(s().active).toBe('s3');
    s().activate('s2');
    s().closeTab('s2');
    expect(s().active).toBe('s3');
    expect(s().tabs.map((t) => t.sessionId)).toEqual(['s1', 's3']);
    s().closeTab('s3');
    expect(s().active).toBe('s1');
    s().closeTab('s1');
    expect(s().active).toBeNull();
    expect(calls.filter((c) => c.startsWith('close'))).toEqual(['close s2', 'close s3', 'close s1']);
  });

  it('remembers opened sessions in localStorage with counts only', async () => {
    const { api } = fakeApi();
    const store = createAppStore(api);
    await store.getState().openPath('a.jsonl');
    await store.getState().openPath('b.jsonl');
    const stored = JSON.parse(localStorage.getItem(RECENT_KEY) ?? '[]') as unknown[];
    expect(stored).toEqual([
      { path: 'b.jsonl', format: 'palimpsest', openedAt: expect.any(String), requests: 10, compactions: 1, worst: 'warning' },
      { path: 'a.jsonl', format: 'palimpsest', openedAt: expect.any(String), requests: 10, compactions: 1, worst: 'warning' },
    ]);
    store.getState().forgetRecent('b.jsonl');
    expect(
      createAppStore(api)
        .getState()
        .recent.map((r) => r.path),
    ).toEqual(['a.jsonl']);
  });

  it('drops what is not a recent entry when reading the list back', () => {
    localStorage.setItem(
      RECENT_KEY,
      JSON.stringify([{ path: 'ok.jsonl', format: 'dsh', openedAt: 'x', requests: 1, compactions: 0, worst: 'none' }, { path: 3 }, 'junk']),
    );
    const { api } = fakeApi();
    expect(
      createAppStore(api)
        .getState()
        .recent.map((r) => r.path),
    ).toEqual(['ok.jsonl']);
    localStorage.setItem(RECENT_KEY, '{not json');
    expect(createAppStore(api).getState().recent).toEqual([]);
  });

  it('searches the active session and turns a match into a focus with a fresh nonce each time', async () => {
    const { api, calls } = fakeApi();
    const store = createAppStore(api);
    const s = () => store.getState();
    s().openSearch();
    expect(s().search.open).toBe(false); // nothing to search in the library
    await s().openPath('a.jsonl');
    s().openSearch();
    s().setQuery('clamps');
    await s().runSearch();
    expect(calls).toContain('search s1 clamps');
    s().showMatch(0, 'seq');
    expect(s().focus).toEqual({ seq: 6, request: 1, nonce: 1 });
    s().showMatch(0, 'request');
    expect(s().focus).toEqual({ request: 1, nonce: 2 });
    // A match no request follows: its event only.
    s().showMatch(1, 'seq');
    expect(s().focus).toEqual({ seq: 40, nonce: 3 });
    s().moveMatch(1);
    expect(s().search.selected).toBe(0);
    // Another tab: the focus and the search bar belong to the session they were made in.
    await s().openPath('b.jsonl');
    expect(s().focus).toBeNull();
    expect(s().search.open).toBe(false);
    s().activate('s1');
    s().showMatch(0, 'seq');
    expect(s().focus?.nonce).toBe(4);
  });

  it('says what the browser cannot do when a dialog is asked for', async () => {
    const { api } = fakeApi();
    const store = createAppStore(api);
    await store.getState().pick('files');
    expect(store.getState().notice).toEqual({ kind: 'error', text: 'type the path instead' });
  });

  it('persists an explicit theme, and follows the system otherwise', () => {
    const { api } = fakeApi();
    const store = createAppStore(api);
    expect(store.getState().themePref).toBe('system');
    const before = store.getState().theme;
    store.getState().toggleTheme();
    expect(store.getState().theme).not.toBe(before);
    expect(localStorage.getItem('palimpsest.theme')).toBe(store.getState().theme);
    expect(createAppStore(api).getState().themePref).toBe(store.getState().theme);
    store.getState().setThemePref('system');
    expect(localStorage.getItem('palimpsest.theme')).toBeNull();
  });
});

describe('opening a long session', () => {
  it('asks the host how far the open has got while it is under way, and forgets it after', async () => {
    vi.useFakeTimers();
    try {
      let finish: (v: ApiResult<SessionSummary>) => void = () => undefined;
      let asked = 0;
      const progress = {
        operation: 'openSession' as const,
        path: 'big.jsonl',
        phase: 'reading' as const,
        done: 100_000_000,
        total: 400_000_000,
      };
      const api = {
        openSession: () =>
          new Promise<ApiResult<SessionSummary>>((resolve) => {
            finish = resolve;
          }),
        openingSessions: () => {
          asked++;
          return Promise.resolve({ ok: true, value: { opening: [progress] } });
        },
      } as unknown as PalimpsestApi;
      const store = createAppStore(api);
      const opened = store.getState().openPath('big.jsonl');
      expect(store.getState().opening).toEqual(['big.jsonl']);
      await vi.advanceTimersByTimeAsync(OPEN_POLL_MS * 3 + 10);
      expect(asked).toBe(3);
      expect(store.getState().openProgress).toEqual([progress]);
      expect(openingText('big.jsonl', store.getState().openProgress[0])).toBe('Opening big.jsonl: reading 25 % (100 MB of 400 MB)…');
      finish({ ok: false, error: { code: 'UNREADABLE', message: 'gone' } });
      await opened;
      expect(store.getState().openProgress).toEqual([]);
      await vi.advanceTimersByTimeAsync(OPEN_POLL_MS * 4);
      expect(asked).toBe(3);
    } finally {
      vi.useRealTimers();
    }
  });

  it('says how far an open has got in words', () => {
    const p = { operation: 'openSession' as const, path: 'a', phase: 'reading' as const, done: 500_000, total: 2_000_000 };
    expect(openingText('a', undefined)).toBe('Opening a…');
    expect(openingText('a', p)).toBe('Opening a: reading 25 % (0.5 MB of 2.0 MB)…');
    expect(openedFraction(p)).toBe(0.25);
    expect(openingText('dir', { ...p, total: null })).toBe('Opening dir: reading, 0.5 MB so far…');
    expect(openedFraction({ ...p, total: null })).toBeNull();
    // Replaying and checking count events and rules, not bytes.
    expect(openingText('a', { ...p, phase: 'replaying', done: 350_000, total: 1_000_000 })).toBe(
      'Opening a: read; replaying 35 % of 1,000,000 events…',
    );
    expect(openingText('a', { ...p, phase: 'checking', done: 12, total: 30 })).toBe('Opening a: replayed; checking, 12 of 30 rules run…');
    expect(openingText('a', { ...p, phase: 'checking', done: null, total: null })).toBe('Opening a: replayed; checking…');
    // Read whole: the host is replaying even if its last answer still said "reading" (in bytes).
    expect(openingText('a', { ...p, done: p.total })).toBe('Opening a: read; replaying…');
    expect(openedFraction({ ...p, phase: 'replaying' })).toBe(1);
    expect(openedFraction({ ...p, phase: 'checking', done: 3, total: 30 })).toBe(1);
  });
});

describe('watching the active session', () => {
  it('records a change the host read into the shown session, and watches the tab shown only', async () => {
    const { api: base } = fakeApi();
    const asked: { sessionId: string; since: number | undefined }[] = [];
    const held: { answer?: (r: ApiResult<unknown>) => void } = {};
    const api = {
      ...base,
      awaitSessionChange: (input: { sessionId: string; since?: number }) => {
        asked.push({ sessionId: input.sessionId, since: input.since });
        return new Promise((ok) => (held.answer = ok));
      },
    } as unknown as PalimpsestApi;
    const store = createAppStore(api);
    const s = () => store.getState();
    await s().openPath('a.jsonl');
    expect(asked).toEqual([{ sessionId: 's1', since: 0 }]);
    const grown = { ...s().tabs[0]?.summary, counts: { ...s().tabs[0]?.summary.counts, requests: 12 } };
    held.answer?.({
      ok: true,
      value: { changed: true, revision: 1, reloaded: null, summary: grown, findings: { added: 1, withdrawn: 2 } },
    });
    await vi.waitFor(() => expect(asked).toHaveLength(2));
    expect(s().tabs[0]).toMatchObject({ sessionId: 's1', revision: 1, change: { reloaded: null, withdrawn: 2 } });
    expect(s().tabs[0]?.summary.counts.requests).toBe(12);
    // Asked again from the revision shown; the tab keeps its id (no reopen).
    expect(asked[1]).toEqual({ sessionId: 's1', since: 1 });
    await s().openPath('b.jsonl');
    expect(asked.at(-1)).toEqual({ sessionId: 's2', since: 0 });
  });
});
