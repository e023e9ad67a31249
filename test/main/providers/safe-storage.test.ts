import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { KeyStore } from '../../../src/main/providers/key-store';

/*
 * The Encryptor over Electron's safeStorage. The Electron binary is not installed in tests, so
 * `electron` is mocked; the encryptor is given fakes of safeStorage's methods.
 */

vi.mock('electron', () => ({ safeStorage: {} }));

// Loaded dynamically (as the shell's test does): only src/main/electron may import electron statically.
const { safeStorageEncryptor } = await import('../../../src/main/electron/safe-storage');

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const ss = (backend: string, available = true) => ({
  isEncryptionAvailable: () => available,
  encryptString: (s: string) => Buffer.from(`e:${[...s].reverse().join('')}`),
  decryptString: (b: Buffer) => [...b.toString().slice(2)].reverse().join(''),
  getSelectedStorageBackend: () => backend,
});

describe('safeStorageEncryptor', () => {
  it('names the backend: Linux asks safeStorage, macOS and Windows by platform', () => {
    expect(safeStorageEncryptor(ss('kwallet5'), 'linux').backend()).toBe('kwallet5');
    expect(safeStorageEncryptor(ss('basic_text'), 'darwin').backend()).toBe('keychain');
    expect(safeStorageEncryptor(ss('basic_text'), 'win32').backend()).toBe('dpapi');
  });

  it('round-trips through safeStorage, and the store refuses its basic_text fallback', async () => {
    const d = mkdtempSync(join(tmpdir(), 'palimpsest-ss-'));
    dirs.push(d);
    const good = new KeyStore(join(d, 'a.json'), safeStorageEncryptor(ss('gnome_libsecret'), 'linux'));
    expect((await good.set('anthropic', 'sk-ant-roundtrip-0123456789')).ok).toBe(true);
    expect(await good.get('anthropic')).toEqual({ ok: true, value: 'sk-ant-roundtrip-0123456789' });
    const plain = await new KeyStore(join(d, 'b.json'), safeStorageEncryptor(ss('basic_text'), 'linux')).set(
      'anthropic',
      'sk-ant-x-0123456789',
    );
    expect(plain.ok).toBe(false);
    const none = await new KeyStore(join(d, 'c.json'), safeStorageEncryptor(ss('gnome_libsecret', false), 'linux')).set(
      'anthropic',
      'sk-ant-x-0123456789',
    );
    expect(none.ok).toBe(false);
  });
});
