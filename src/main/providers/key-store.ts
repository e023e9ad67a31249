import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import type { Result } from '../../shared/eval/result';

/*
 * Stored API keys: a small JSON file (path chosen by the caller) of keys encrypted by an injected
 * Encryptor — in the app, Electron's safeStorage (src/main/electron/safe-storage.ts), i.e. the OS
 * keychain / DPAPI / libsecret. It refuses to store anything when encryption is unavailable or when
 * the backend is Electron's `basic_text` (its Linux fallback that "encrypts" with a hard-coded
 * password): a key written that way would be plain text on disk in all but name.
 * Every failure is a value; no message ever contains a key.
 */

export interface Encryptor {
  /** The storage backend in use ("keychain", "dpapi", "gnome_libsecret", "kwallet5", "basic_text", …). */
  backend(): string;
  isEncryptionAvailable(): boolean;
  encrypt(plain: string): Buffer;
  decrypt(cipher: Buffer): string;
}

export type StoreResult<T> = Result<T>;

const ok = <T>(value: T): StoreResult<T> => ({ ok: true, value });
const fail = <T>(error: string): StoreResult<T> => ({ ok: false, error });

/** Why keys cannot be stored with this encryptor; null when they can. */
export function refusalOf(enc: Encryptor): string | null {
  if (!enc.isEncryptionAvailable())
    return 'Cannot store API keys: the operating system offers no encryption (no keychain or secret service). Set the key in an environment variable instead.';
  if (enc.backend() === 'basic_text') {
    return 'Cannot store API keys: the only storage available is plain text (no gnome-keyring/KWallet secret service is running). Start one, or set the key in an environment variable instead.';
  }
  return null;
}

const StoreFile = z.object({
  version: z.literal(1),
  backend: z.string(),
  /** slot → base64 of the encrypted key */
  keys: z.record(z.string(), z.string()),
});
type StoreFile = z.infer<typeof StoreFile>;

const SLOT = /^[A-Za-z0-9_.:@/-]{1,200}$/;

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export class KeyStore {
  /** Writes run one at a time, so two saves never interleave their read-modify-write. */
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    readonly path: string,
    private readonly enc: Encryptor,
  ) {}

  private async load(): Promise<StoreResult<StoreFile | null>> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return ok(null);
      return fail(`Cannot read the key store ${this.path}: ${message(e)}`);
    }
    try {
      const parsed = StoreFile.safeParse(JSON.parse(text));
      return parsed.success ? ok(parsed.data) : fail(`The key store ${this.path} is not in the expected format.`);
    } catch {
      return fail(`The key store ${this.path} is not valid JSON.`);
    }
  }

  private async save(file: StoreFile): Promise<StoreResult<void>> {
    try {
      await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
      // Write then rename: a crash never leaves a half-written store.
      const tmp = `${this.path}.${process.pid}.tmp`;
      await writeFile(tmp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
      await rename(tmp, this.path);
      return ok(undefined);
    } catch (e) {
      return fail(`Cannot write the key store ${this.path}: ${message(e)}`);
    }
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.chain.then(fn, fn);
    this.chain = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  }

  async get(slot: string): Promise<StoreResult<string | null>> {
    const file = await this.load();
    if (!file.ok) return file;
    const b64 = file.value?.keys[slot];
    if (b64 === undefined) return ok(null);
    if (!this.enc.isEncryptionAvailable()) return fail('The stored key cannot be decrypted: encryption is not available now.');
    try {
      return ok(this.enc.decrypt(Buffer.from(b64, 'base64')));
    } catch (e) {
      return fail(`The stored key for ${slot} cannot be decrypted (${message(e)}); store it again.`);
    }
  }

  async has(slot: string): Promise<boolean> {
    const file = await this.load();
    return file.ok && file.value?.keys[slot] !== undefined;
  }

  set(slot: string, key: string): Promise<StoreResult<void>> {
    const refused = refusalOf(this.enc);
    if (refused) return Promise.resolve(fail(refused));
    if (!SLOT.test(slot)) return Promise.resolve(fail(`"${slot}" is not a valid key name.`));
    if (key.trim() === '') return Promise.resolve(fail('An empty key is not stored.'));
    return this.serial(async () => {
      const file = await this.load();
      if (!file.ok) return file;
      let cipher: Buffer;
      try {
        cipher = this.enc.encrypt(key.trim());
      } catch (e) {
        return fail(`The key could not be encrypted: ${message(e)}`);
      }
      const keys = { ...(file.value?.keys ?? {}), [slot]: cipher.toString('base64') };
      return this.save({ version: 1, backend: this.enc.backend(), keys });
    });
  }

  /** true when a key was removed, false when there was none. */
  remove(slot: string): Promise<StoreResult<boolean>> {
    return this.serial(async () => {
      const file = await this.load();
      if (!file.ok) return file;
      if (!file.value || file.value.keys[slot] === undefined) return ok(false);
      const keys = { ...file.value.keys };
      delete keys[slot];
      const saved = await this.save({ ...file.value, keys });
      return saved.ok ? ok(true) : saved;
    });
  }
}
