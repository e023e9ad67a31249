import { safeStorage } from 'electron';
import type { Encryptor } from '../providers/key-store';

/*
 * The key store's Encryptor over Electron's safeStorage: the macOS Keychain, Windows DPAPI, or on
 * Linux the secret service (libsecret / KWallet) — or Electron's `basic_text` fallback, which the
 * key store refuses (key-store.ts refusalOf). Linux is the only platform that reports its backend
 * (getSelectedStorageBackend, valid once the app is ready); the others are named by platform.
 */

type SafeStorageLike = Pick<typeof safeStorage, 'isEncryptionAvailable' | 'encryptString' | 'decryptString'> & {
  getSelectedStorageBackend?: () => string;
};

export function safeStorageEncryptor(ss: SafeStorageLike = safeStorage, platform: NodeJS.Platform = process.platform): Encryptor {
  return {
    backend: () => {
      if (platform === 'linux') return ss.getSelectedStorageBackend?.() ?? 'unknown';
      if (platform === 'darwin') return 'keychain';
      if (platform === 'win32') return 'dpapi';
      return 'unknown';
    },
    isEncryptionAvailable: () => ss.isEncryptionAvailable(),
    encrypt: (plain) => ss.encryptString(plain),
    decrypt: (cipher) => ss.decryptString(cipher),
  };
}
