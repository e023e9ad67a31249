// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import type { ApiResult, LibraryHit, PalimpsestApi, SessionSummary } from '../../../src/shared/api/contract';
import { createAppStore } from '../../../src/renderer/store';
import { cappedWords, fateWords } from '../../../src/renderer/library/EverywhereSearch';

/** A fake API: searchLibrary answers one hit; sessions open by path; every call is recorded. */
function fakeApi() {
  const calls: string[] = [];
  const ok = <T>(value: T): Promise<ApiResult<T>> => Promise.resolve({ ok: true, value });
  const hit: LibraryHit = {
    path: '/h/.claude/projects/p/a.jsonl',
    session: null,
    harness: 'claude-code',
    project: '/p',
    request: 3,
    item: 'u7',
    seq: 41,
    role: 'user',
    kind: 'user',
    snippet: 'before compaction ran',
    marks: [{ at: 7, length: 10 }],
    fate: 'summarised',
  };
  const summary = (path: string): SessionSummary => ({
    sessionId: 's1',
    path,
    format: 'claude-code',
    files: [],
    defaultBranch: 'main',
    branches: [],
    counts: { events: 40, items: 20, requests: 10, compactions: 1, diagnostics: { error: 0, warning: 0, info: 0 } },
  });
  const api = {
    searchLibrary: (input: Record<string, unknown>) => {
      calls.push(`searchLibrary ${JSON.stringify(input)}`);
      if (input.query === '"bad')
        return Promise.resolve({ ok: false, error: { code: 'BAD_INPUT', message: 'not valid full-text search syntax' } });
      return ok({ query: input.query as string, hits: [hit], capped: null, sessions: 5, read: 2, problems: [] });
    },
    openSession: ({ path }: { path: string }) => {
      calls.push(`open ${path}`);
      return ok(summary(path));
    },
  };
  return { api: api as unknown as PalimpsestApi, calls, hit };
}

describe('search over all sessions (the library)', () => {
  it('sends the query with its filters, and a hit opens its session at the request with its event selected', async () => {
    const { api, calls, hit } = fakeApi();
    const store = createAppStore(api);
    store.getState().setEverywhere({ query: '"before compaction"', harness: 'claude-code', has: 'compaction', since: '7d' });
    await store.getState().searchEverywhere();
    expect(calls).toEqual([
      `searchLibrary ${JSON.stringify({ query: '"before compaction"', harness: 'claude-code', has: 'compaction', since: '7d' })}`,
    ]);
    expect(store.getState().everywhere.result?.hits).toEqual([hit]);
    await store.getState().openHit(hit);
    expect(calls[1]).toBe(`open ${hit.path}`);
    expect(store.getState().active).toBe('s1');
    expect(store.getState().focus).toMatchObject({ seq: 41, request: 3 });
  });

  it('shows what the API says of a bad query, and says the fate in words', async () => {
    const { api } = fakeApi();
    const store = createAppStore(api);
    store.getState().setEverywhere({ query: '"bad' });
    await store.getState().searchEverywhere();
    expect(store.getState().everywhere.error?.code).toBe('BAD_INPUT');
    expect(store.getState().everywhere.result).toBeNull();
    expect(fateWords('summarised')).toBe('summarised at the latest request');
    expect(fateWords(null)).toBe('made after the latest request');
  });

  it('says when the hits are the best of the matches indexed last, not of all', () => {
    expect(cappedWords(null)).toBe('');
    expect(cappedWords(5000)).toBe(
      '; more than 5,000 matched: these are the best of the 5,000 indexed last, not of all — narrow the query or add a filter',
    );
  });
});
