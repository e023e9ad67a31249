import type { StoreApi } from 'zustand/vanilla';
import type { ApiInput, PalimpsestApi } from '../../shared/api/contract';
import type { RerunState } from './store';

/**
 * Storing and removing a provider's API key from the re-run panel. The key goes to main once
 * (setProviderKey) and is never kept here: not in the store, not in a message. What comes back,
 * and what is shown, is the provider's status — set, from where, its last four characters.
 */

export type KeyProviderId = ApiInput<'setProviderKey'>['provider'];

export interface KeyActions {
  /** Sends the key to be stored; the caller clears its field whatever the answer. */
  saveKey(provider: KeyProviderId, key: string): Promise<void>;
  removeKey(provider: KeyProviderId): Promise<void>;
}

type Set = StoreApi<RerunState>['setState'];
type Get = StoreApi<RerunState>['getState'];

export function keyActions(api: PalimpsestApi, set: Set, get: Get, refresh: () => Promise<void>): KeyActions {
  const done = async (provider: KeyProviderId, text: string): Promise<void> => {
    await refresh();
    // The "no key is set" banner follows the keys as they are now.
    const noKeys = get().keys?.providers.every((p) => !p.set) ?? get().noKeys;
    set({ keyBusy: false, noKeys, keyMessage: { provider, ok: true, text } });
  };
  return {
    async saveKey(provider, key) {
      set({ keyBusy: true, keyMessage: null });
      const r = await api.setProviderKey({ provider, key });
      if (!r.ok) return set({ keyBusy: false, keyMessage: { provider, ok: false, text: r.error.message } });
      const last4 = r.value.status.last4;
      await done(
        provider,
        `Stored the ${provider} key${last4 ? ` ending …${last4}` : ''}, encrypted.${r.value.note ? ` ${r.value.note}` : ''}`,
      );
    },

    async removeKey(provider) {
      set({ keyBusy: true, keyMessage: null });
      const r = await api.removeProviderKey({ provider });
      if (!r.ok) return set({ keyBusy: false, keyMessage: { provider, ok: false, text: r.error.message } });
      await done(
        provider,
        `${r.value.removed ? `Removed the stored ${provider} key.` : `No ${provider} key was stored.`}${r.value.note ? ` ${r.value.note}` : ''}`,
      );
    },
  };
}
