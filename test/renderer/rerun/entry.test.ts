// @vitest-environment happy-dom
import { cleanup, fireEvent, render } from '@testing-library/react';
import { act, createElement } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiResult, PalimpsestApi } from '../../../src/shared/api/contract';
import { RerunContext } from '../../../src/renderer/rerun/context';
import { KeysEditor } from '../../../src/renderer/rerun/KeysEditor';
import { RerunCompactionButton, RerunRequestButton } from '../../../src/renderer/rerun/RerunButtons';
import { keepOnly, modeOf, rerunStoreFor, takeFocus } from '../../../src/renderer/rerun/registry';
import { createRerunStore } from '../../../src/renderer/rerun/store';

/*
 * The ways into re-run & compare from the inspector (a compaction's or a request's button), and
 * the key editor: the key typed is sent once, the field is emptied, and the page never holds it.
 */

afterEach(() => {
  cleanup();
  keepOnly([]);
});

const ok = <T>(value: T): Promise<ApiResult<T>> => Promise.resolve({ ok: true, value });
const settle = () => act(() => new Promise((r) => setTimeout(r, 20)));
const KEY = 'Pal1mpsest-ui-key-0123456789-WXYZ';

interface Fake {
  api: PalimpsestApi;
  calls: { method: string; input: unknown }[];
}

function fakeApi(opts: { store?: 'available' | 'web' } = {}): Fake {
  const calls: { method: string; input: unknown }[] = [];
  let stored = false;
  const branchOf = (input: unknown) => (input as { branch?: string }).branch ?? 'main';
  const providers = () => [
    { provider: 'openai', env: ['OPENAI_API_KEY'], set: stored, source: stored ? 'stored' : null, last4: stored ? 'WXYZ' : null },
    { provider: 'openai-responses', env: ['OPENAI_API_KEY'], set: stored, source: stored ? 'stored' : null, last4: stored ? 'WXYZ' : null },
    { provider: 'anthropic', env: ['ANTHROPIC_API_KEY'], set: false, source: null, last4: null },
  ];
  const store =
    opts.store === 'web'
      ? { available: false, location: null, message: 'This host does not store API keys; set environment variables.' }
      : { available: true, location: '/home/u/.config/Palimpsest/provider-keys.json', message: null };
  const api = {
    listStrategies: () => ok({ strategies: [{ id: 'extractive', title: 'Extractive', source: 'baseline', needsModel: false }] }),
    listCompactions: (input: unknown) => {
      calls.push({ method: 'listCompactions', input });
      const b = branchOf(input);
      return ok({
        branch: b,
        compactions:
          b === 'main'
            ? [
                { id: 'cmp_01', preTokens: 1224, startSeq: 28 },
                { id: 'cmp_02', preTokens: 2000, startSeq: 60 },
              ]
            : [{ id: 'cmp_fork', preTokens: 900, startSeq: 70 }],
      });
    },
    listRequests: (input: unknown) =>
      ok({ branch: branchOf(input), requests: [{ index: 0, seq: 5, window: 200_000, compactionId: null }] }),
    providerKeys: () => ok({ providers: providers(), models: [], store }),
    listRerunJobs: () => ok({ jobs: [] }),
    rerunSettings: () => ok({ file: '/data/settings.json', chain: [], problem: null }),
    listRuns: () => ok({ file: '/tmp/f', runs: [], problems: [] }),
    setProviderKey: (input: unknown) => {
      calls.push({ method: 'setProviderKey', input });
      stored = true;
      return ok({ status: providers()[0], note: null });
    },
    removeProviderKey: (input: unknown) => {
      calls.push({ method: 'removeProviderKey', input });
      const removed = stored;
      stored = false;
      return ok({ removed, status: providers()[0], note: null });
    },
  };
  return { api: api as unknown as PalimpsestApi, calls };
}

describe('entry points from the inspector', () => {
  it('"Re-run this compaction" shows re-run & compare with that compaction targeted, even before the panel ever loaded', async () => {
    const { api } = fakeApi();
    keepOnly(['s1']);
    const { getByRole } = render(createElement(RerunCompactionButton, { sessionId: 's1', branch: null, compactionId: 'cmp_02' }));
    const button = getByRole('button', { name: 'Re-run this compaction' });
    expect(button.tagName).toBe('BUTTON');
    fireEvent.click(button);
    expect(modeOf('s1')).toBe('rerun');
    // The panel makes its store when it shows; the target asked for wins over load's default (the first compaction).
    const store = rerunStoreFor(api, 's1');
    await settle();
    expect(store.getState().form).toMatchObject({ targetKind: 'compaction', compactionId: 'cmp_02' });
    // The panel takes the focus once (the button that had it is gone).
    expect(takeFocus('s1')).toBe(true);
    expect(takeFocus('s1')).toBe(false);
  });

  it('"Re-run from this request" on another branch loads that branch\'s lists and targets the request there', async () => {
    const { api, calls } = fakeApi();
    keepOnly(['s2']);
    const store = rerunStoreFor(api, 's2');
    await settle();
    expect(store.getState().form).toMatchObject({ targetKind: 'compaction', compactionId: 'cmp_01' });
    const { getByRole } = render(createElement(RerunRequestButton, { sessionId: 's2', branch: 'fork', index: 0 }));
    fireEvent.click(getByRole('button', { name: 'Re-run from this request' }));
    await settle();
    expect(store.getState()).toMatchObject({ branch: 'fork', defaultBranch: 'main', form: { targetKind: 'request', request: '0' } });
    expect(store.getState().compactions.map((c) => c.id)).toEqual(['cmp_fork']);
    expect(calls.filter((c) => c.method === 'listCompactions').map((c) => c.input)).toEqual([
      { sessionId: 's2' },
      { sessionId: 's2', branch: 'fork' },
    ]);
  });
});

describe('the key editor', () => {
  async function mount(fake: Fake) {
    const store = createRerunStore(fake.api, 's1');
    await store.getState().load();
    const view = render(createElement(RerunContext.Provider, { value: store }, createElement(KeysEditor)));
    return { store, ...view };
  }

  it('sends the key once, empties the field at once, and shows only set and the last four characters', async () => {
    const fake = fakeApi();
    const { store, container, getByLabelText, getByRole } = await mount(fake);
    expect(container.textContent).toContain('/home/u/.config/Palimpsest/provider-keys.json');
    const field = getByLabelText('New openai API key') as HTMLInputElement;
    expect(field.type).toBe('password');
    fireEvent.change(field, { target: { value: KEY } });
    // Enter in the field stores the key (it must not submit the re-run form around it).
    const notPrevented = fireEvent.keyDown(field, { key: 'Enter' });
    expect(notPrevented).toBe(false);
    expect(field.value).toBe('');
    await settle();
    expect(fake.calls.filter((c) => c.method === 'setProviderKey')).toEqual([
      { method: 'setProviderKey', input: { provider: 'openai', key: KEY } },
    ]);
    expect(container.querySelector('[data-provider="openai"]')?.textContent).toMatch(/set, stored, encrypted, …WXYZ/);
    expect(getByRole('status').textContent).toBe('Stored the openai key ending …WXYZ, encrypted.');
    // Neither the page nor the store holds the key afterwards.
    expect(document.body.innerHTML).not.toContain(KEY.slice(0, 12));
    expect(JSON.stringify(store.getState())).not.toContain(KEY.slice(0, 12));

    fireEvent.click(getByRole('button', { name: 'Remove the stored openai key' }));
    await settle();
    expect(fake.calls.at(-1)).toEqual({ method: 'removeProviderKey', input: { provider: 'openai' } });
    expect(getByRole('status').textContent).toBe('Removed the stored openai key.');
  });

  it('on a host without a store, says why and offers no field', async () => {
    const { container, queryByLabelText, getByRole } = await mount(fakeApi({ store: 'web' }));
    expect(getByRole('note').textContent).toMatch(/does not store API keys/);
    expect(queryByLabelText('New openai API key')).toBeNull();
    expect(container.querySelectorAll('.rr-key').length).toBe(2);
  });
});
