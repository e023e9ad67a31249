import { join } from 'node:path';
import { app } from 'electron';
import type { KeyVault } from '../api/handlers-rerun-keys';
import { KeyStore, refusalOf, type Encryptor } from '../providers/key-store';
import { safeStorageEncryptor } from './safe-storage';

/*
 * The desktop app's stored API keys: a KeyStore (src/main/providers/key-store.ts) over Electron's
 * safeStorage, in the app's own data folder (userData, e.g. ~/.config/Palimpsest on Linux) — never
 * next to sessions or results, which are shared and exported. The handlers only ever see this vault.
 */

export const KEY_FILE = 'provider-keys.json';

export function keyVault(path: string, enc: Encryptor): KeyVault {
  const store = new KeyStore(path, enc);
  return {
    location: path,
    // Asked at each call: on Linux the backend is known only once the app is ready, and a keyring can come and go.
    refusal: () => refusalOf(enc),
    get: (slot) => store.get(slot),
    set: (slot, key) => store.set(slot, key),
    remove: (slot) => store.remove(slot),
  };
}

/** The vault of this app: `<userData>/provider-keys.json`, encrypted with safeStorage. */
export function appKeyVault(): KeyVault {
  return keyVault(join(app.getPath('userData'), KEY_FILE), safeStorageEncryptor());
}
