// @vitest-environment happy-dom
import { act, cleanup, render } from '@testing-library/react';
import { createElement } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import type { PalimpsestApi } from '../../../src/shared/api/contract';
import { SessionContext } from '../../../src/renderer/session/context';
import { firstViewIn, SECOND_STAGE_MS, useSecondStage } from '../../../src/renderer/session/staged';
import { realApi } from './real-api';
import { createSessionStore, type SessionStore } from '../../../src/renderer/session/store';

// The session view's two stages against the real handlers: the raw history and the panels wait for
// the first model view, and never for good.
const real = realApi();
afterEach(cleanup);

async function storeOf(path: string, over: (api: PalimpsestApi) => PalimpsestApi = (a) => a): Promise<SessionStore> {
  const opened = await real.api.openSession({ path });
  if (!opened.ok) throw new Error(opened.error.message);
  return createSessionStore(over(real.api), opened.value.sessionId);
}

function Probe(): React.JSX.Element {
  return createElement('p', { 'data-second': String(useSecondStage()) });
}

const shown = (store: SessionStore) => {
  const { container } = render(createElement(SessionContext.Provider, { value: store }, createElement(Probe)));
  return () => container.querySelector('p')?.getAttribute('data-second');
};

const until = async (check: () => boolean, ms = 3000): Promise<void> => {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await act(() => new Promise((r) => setTimeout(r, 10)));
  expect(check()).toBe(true);
};

describe('the session view in two stages', () => {
  it('holds the second stage until the first view is in, then starts it', async () => {
    // The view's windows are held back: loaded and selected, the second stage must still wait.
    let release = (): void => {};
    const held = new Promise<void>((r) => (release = r));
    const store = await storeOf('fixtures/palimpsest/basic.jsonl', (a) => ({
      ...a,
      getViewWindow: (input) => held.then(() => a.getViewWindow(input)),
    }));
    const second = shown(store);
    expect(second()).toBe('false');
    await act(() => store.getState().load());
    expect(store.getState().head?.request.index).toBe(0);
    await act(() => new Promise((r) => setTimeout(r, 100)));
    expect(firstViewIn(store.getState())).toBe(false);
    expect(second()).toBe('false');
    release();
    await until(() => second() === 'true');
    expect(firstViewIn(store.getState())).toBe(true);
    expect(store.getState().viewChunks[0]?.length).toBeGreaterThan(0);
  });

  it('does not wait for a view that never comes', async () => {
    // A host that never answers for the view: the rest of the session is shown after the longest wait.
    const store = await storeOf('fixtures/palimpsest/basic.jsonl', (a) => ({
      ...a,
      getViewHead: () => new Promise(() => {}),
      getViewWindow: () => new Promise(() => {}),
    }));
    const second = shown(store);
    const started = Date.now();
    // The load never ends (its selection waits for the view): it is not waited for.
    void store.getState().load();
    await until(() => store.getState().phase === 'ready');
    expect(firstViewIn(store.getState())).toBe(false);
    expect(second()).toBe('false');
    await until(() => second() === 'true', SECOND_STAGE_MS + 2000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(SECOND_STAGE_MS - 50);
  });

  it('counts a failed view, and a session without requests, as nothing to wait for', async () => {
    const failing = await storeOf('fixtures/palimpsest/basic.jsonl', (a) => ({
      ...a,
      getViewHead: async () => ({ ok: false as const, error: { code: 'INTERNAL', message: 'no' } }),
    }));
    await failing.getState().load();
    expect(failing.getState().headError?.code).toBe('INTERNAL');
    expect(firstViewIn(failing.getState())).toBe(true);
    const empty = createSessionStore(real.api, 'none');
    empty.setState({ phase: 'ready', requests: [], joined: null, selected: null });
    expect(firstViewIn(empty.getState())).toBe(true);
    empty.setState({ requests: failing.getState().requests });
    expect(firstViewIn(empty.getState())).toBe(false);
  });
});
