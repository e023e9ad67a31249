import type { z } from 'zod';
import { CONTRACT, type ApiOutput, type KeyStoreStatus } from '../../shared/api/contract';
import { ProviderId } from '../../shared/rerun/pinned';
import type { StoreResult } from '../providers/key-store';
import { keySlot, keyStatus, needsKey, STANDARD_KEY_ENV, type Env, type KeyReader } from '../providers/keys';
import { pinnedOf } from '../rerun/jobs';
import { ApiFailure } from './sessions';
import { contractOutput } from './conform';

/*
 * The provider-key methods of the re-run contract: providerKeys (status), setProviderKey and
 * removeProviderKey. A key enters main once, from a password field, and goes straight into the
 * host's vault; every answer is built from keyStatus() (set, source, last 4), never from the key,
 * and no error message here is built from the key either. The Electron shell gives a vault over
 * safeStorage (src/main/electron/keys.ts); the web host gives none, so it stores nothing and says
 * so: a key typed into a browser tab would otherwise end up on the remote box's disk.
 */

/** The host's stored API keys. */
export interface KeyVault extends KeyReader {
  /** The encrypted key file, shown to the user so they know where their keys live. */
  readonly location: string;
  /** Why a key cannot be stored now (no encryption, or only plain text), in a sentence; null when it can. */
  refusal(): string | null;
  set(slot: string, key: string): Promise<StoreResult<void>>;
  remove(slot: string): Promise<StoreResult<boolean>>;
}

export const NO_STORE_MESSAGE =
  'This host does not store API keys; only the desktop app does, encrypted by the operating system. ' +
  'Set them in environment variables (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY) before starting `palimpsest serve`.';

type KeyMethod = 'providerKeys' | 'setProviderKey' | 'removeProviderKey';
type KeyImpl = { readonly [M in KeyMethod]: (input: z.output<(typeof CONTRACT)[M]['input']>) => Promise<ApiOutput<M>> };
type Provider = z.output<(typeof CONTRACT)['setProviderKey']['input']>['provider'];

export function keyImplementations(env: Env, vault: KeyVault | null): KeyImpl {
  const status = async (provider: ProviderId) => ({
    provider,
    env: [...STANDARD_KEY_ENV[provider]],
    ...(await keyStatus({ provider, model: 'any', params: {}, window: null }, env, vault)),
  });
  const store = (): KeyStoreStatus => {
    if (vault === null) return { available: false, location: null, message: NO_STORE_MESSAGE };
    const refusal = vault.refusal();
    return { available: refusal === null, location: vault.location, message: refusal };
  };
  /** The vault, or NOT_AVAILABLE with the sentence that says why and what to do instead. */
  const writable = (): KeyVault => {
    const s = store();
    if (vault === null || !s.available) throw new ApiFailure('NOT_AVAILABLE', s.message ?? NO_STORE_MESSAGE);
    return vault;
  };
  // The official endpoint's slot; the mock has none (and the contract does not accept it).
  const slotOf = (provider: Provider): string => keySlot({ provider }) ?? provider;
  /** A set environment variable is used before the stored key (keys.ts): say so, or the user wonders why their key is ignored. */
  const envNote = (provider: Provider): string | null => {
    const name = STANDARD_KEY_ENV[provider].find((n) => env[n]?.trim());
    return name ? `${name} is set in the environment: it is used before the stored key.` : null;
  };

  return {
    async providerKeys({ models }) {
      const providers = [];
      for (const provider of ProviderId.options) if (provider !== 'mock') providers.push(await status(provider));
      const rows = [];
      for (const spec of models ?? []) {
        const p = pinnedOf(spec);
        if (!p.ok) {
          rows.push({
            label: typeof spec === 'string' ? spec : `${spec.provider}:${spec.model}`,
            needsKey: false,
            set: false,
            source: null,
            last4: null,
            error: p.error,
          });
          continue;
        }
        rows.push({
          label: `${p.value.provider}:${p.value.model}`,
          needsKey: needsKey(p.value),
          ...(await keyStatus(p.value, env, vault)),
          error: null,
        });
      }
      return contractOutput('providerKeys', { providers, models: rows, store: store() }, true);
    },

    async setProviderKey({ provider, key }) {
      const saved = await writable().set(slotOf(provider), key);
      // The store's sentences never contain the key (key-store.ts); NOT_AVAILABLE covers a refusal that raced the check.
      if (!saved.ok) throw new ApiFailure('NOT_AVAILABLE', saved.error);
      return contractOutput('setProviderKey', { status: await status(provider), note: envNote(provider) }, true);
    },

    async removeProviderKey({ provider }) {
      if (vault === null) throw new ApiFailure('NOT_AVAILABLE', NO_STORE_MESSAGE);
      // Removing needs no encryption: a key stored before the keychain went away can still be forgotten.
      const removed = await vault.remove(slotOf(provider));
      if (!removed.ok) throw new ApiFailure('UNREADABLE', removed.error);
      return contractOutput('removeProviderKey', { removed: removed.value, status: await status(provider), note: envNote(provider) }, true);
    },
  };
}
