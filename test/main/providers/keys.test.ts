import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { callModel } from '../../../src/main/providers/call';
import { type Encryptor, KeyStore } from '../../../src/main/providers/key-store';
import { keySlot, keyStatus, resolveKey } from '../../../src/main/providers/keys';
import { PinnedModel } from '../../../src/shared/rerun/pinned';
import { KEY, PROTOCOL_PROVIDERS, fixedKey, pin, recordingClock, request, startMock } from './helpers';

/* Where keys come from, how they are stored (encrypted or not at all), and that they never leak. */

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function storePath(): string {
  const d = mkdtempSync(join(tmpdir(), 'palimpsest-keys-'));
  dirs.push(d);
  return join(d, 'sub', 'keys.json');
}

/** A reversible stand-in for the OS keychain (reverses and tags), so tests can see it was applied. */
function fakeEncryptor(backend = 'gnome_libsecret', available = true): Encryptor {
  return {
    backend: () => backend,
    isEncryptionAvailable: () => available,
    encrypt: (s) => Buffer.from(`enc:${[...s].reverse().join('')}`),
    decrypt: (b) => {
      const t = b.toString();
      if (!t.startsWith('enc:')) throw new Error('not ours');
      return [...t.slice(4)].reverse().join('');
    },
  };
}

const model = (over: Record<string, unknown>) => PinnedModel.parse({ provider: 'anthropic', model: 'm', ...over });

describe('key resolution', () => {
  it('keyEnv first, then the stored key under that name; never another provider variable', async () => {
    const store = new KeyStore(storePath(), fakeEncryptor());
    const p = model({ provider: 'openai', baseUrl: 'https://openrouter.ai/api/v1', keyEnv: 'OPENROUTER_API_KEY' });
    expect(await resolveKey(p, { OPENROUTER_API_KEY: 'sk-or-1', OPENAI_API_KEY: 'sk-openai' }, store)).toEqual({
      ok: true,
      value: { key: 'sk-or-1', source: 'env', from: 'OPENROUTER_API_KEY' },
    });
    expect(await resolveKey(p, { OPENAI_API_KEY: 'sk-openai' }, store)).toEqual({ ok: true, value: null });
    await store.set('OPENROUTER_API_KEY', 'sk-or-stored');
    expect(await resolveKey(p, { OPENAI_API_KEY: 'sk-openai' }, store)).toEqual({
      ok: true,
      value: { key: 'sk-or-stored', source: 'stored', from: 'OPENROUTER_API_KEY' },
    });
  });

  it('official endpoints: the standard variables in order, then the stored provider key', async () => {
    const store = new KeyStore(storePath(), fakeEncryptor());
    const g = model({ provider: 'gemini' });
    expect(
      (await resolveKey(g, { GOOGLE_API_KEY: 'g2', GEMINI_API_KEY: 'g1' }, store)).ok &&
        (await resolveKey(g, { GOOGLE_API_KEY: 'g2', GEMINI_API_KEY: 'g1' }, store)),
    ).toMatchObject({ value: { key: 'g1', from: 'GEMINI_API_KEY' } });
    expect(await resolveKey(g, { GOOGLE_API_KEY: 'g2' }, store)).toMatchObject({ value: { key: 'g2', from: 'GOOGLE_API_KEY' } });
    await store.set('openai', 'sk-stored-openai');
    expect(await resolveKey(model({ provider: 'openai-responses' }), {}, store)).toMatchObject({
      value: { key: 'sk-stored-openai', source: 'stored', from: 'openai' },
    });
    expect(await resolveKey(model({}), { ANTHROPIC_API_KEY: '  sk-ant-x  ' }, store)).toMatchObject({
      value: { key: 'sk-ant-x', source: 'env' },
    });
  });

  it('a custom baseUrl without keyEnv gets no key, even with OPENAI_API_KEY set; the mock never does', async () => {
    const local = model({ provider: 'openai', baseUrl: 'http://127.0.0.1:11434/v1' });
    expect(await resolveKey(local, { OPENAI_API_KEY: 'sk-openai' }, null)).toEqual({ ok: true, value: null });
    expect(keySlot(local)).toBeNull();
    expect(await resolveKey(model({ provider: 'mock', baseUrl: 'http://127.0.0.1:1' }), { ANTHROPIC_API_KEY: 'x' }, null)).toEqual({
      ok: true,
      value: null,
    });
  });

  it('keyStatus tells the renderer only whether, from where, and the last 4', async () => {
    const store = new KeyStore(storePath(), fakeEncryptor());
    const status = await keyStatus(model({}), { ANTHROPIC_API_KEY: KEY }, store);
    expect(status).toEqual({ set: true, source: 'env', last4: KEY.slice(-4) });
    expect(JSON.stringify(status)).not.toContain(KEY.slice(0, -4));
    expect(await keyStatus(model({}), {}, store)).toEqual({ set: false, source: null, last4: null });
    await store.set('anthropic', 'short-key');
    expect(await keyStatus(model({}), {}, store)).toEqual({ set: true, source: 'stored', last4: null });
  });
});

describe('KeyStore', () => {
  it('stores keys encrypted (never the plain key on disk), owner-only, and reads them back', async () => {
    const path = storePath();
    const store = new KeyStore(path, fakeEncryptor());
    expect(await store.set('anthropic', KEY)).toEqual({ ok: true, value: undefined });
    const disk = readFileSync(path, 'utf8');
    expect(disk).not.toContain(KEY);
    expect(JSON.parse(disk)).toMatchObject({ version: 1, backend: 'gnome_libsecret' });
    if (process.platform !== 'win32') expect(statSync(path).mode & 0o077).toBe(0);
    expect(await new KeyStore(path, fakeEncryptor()).get('anthropic')).toEqual({ ok: true, value: KEY });
    expect(await store.remove('anthropic')).toEqual({ ok: true, value: true });
    expect(await store.get('anthropic')).toEqual({ ok: true, value: null });
    expect(await store.remove('anthropic')).toEqual({ ok: true, value: false });
  });

  it.each([
    ['basic_text', true, 'plain text'],
    ['gnome_libsecret', false, 'no encryption'],
  ])('refuses to store when the backend is %s (available: %s)', async (backend, available, words) => {
    const path = storePath();
    const r = await new KeyStore(path, fakeEncryptor(backend, available)).set('anthropic', KEY);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toContain(words);
    expect(!r.ok && r.error).not.toContain(KEY);
    expect(() => statSync(path)).toThrow();
  });

  it('a damaged store or an undecryptable key is an error value, never a throw or the key', async () => {
    const path = storePath();
    const store = new KeyStore(path, fakeEncryptor());
    await store.set('anthropic', KEY);
    writeFileSync(path, JSON.stringify({ version: 1, backend: 'x', keys: { anthropic: Buffer.from('garbage').toString('base64') } }));
    const bad = await store.get('anthropic');
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error).toContain('cannot be decrypted');
    writeFileSync(path, '{ not json');
    expect((await store.get('anthropic')).ok).toBe(false);
    expect((await store.set('anthropic', KEY)).ok).toBe(false);
  });

  it('concurrent saves do not lose each other', async () => {
    const store = new KeyStore(storePath(), fakeEncryptor());
    await Promise.all(['a', 'b', 'c', 'd'].map((s) => store.set(s, `key-for-${s}`)));
    for (const s of ['a', 'b', 'c', 'd']) expect(await store.get(s)).toEqual({ ok: true, value: `key-for-${s}` });
  });
});

describe('keys never leave in errors or records', () => {
  it.each(PROTOCOL_PROVIDERS)('%s: an error message that echoes the key comes out redacted', async (provider) => {
    const m = await startMock({ steps: [{ fault: { kind: 'http', status: 401, message: `Incorrect API key provided: ${KEY}.` } }] });
    const c = await callModel(pin(provider, m), request(), new AbortController().signal, { keys: fixedKey(), clock: recordingClock() });
    expect(c.error?.kind).toBe('http');
    expect(c.error?.message).toContain('Incorrect API key provided: [REDACTED]');
    expect(JSON.stringify(c)).not.toContain(KEY);
  });

  it.each(PROTOCOL_PROVIDERS)('%s: the recorded request has no auth header and no key, though the SDK sent one', async (provider) => {
    const m = await startMock({ steps: [{ reply: { content: [{ type: 'text', text: 'Objective: x' }] } }] });
    const c = await callModel(pin(provider, m), request(), new AbortController().signal, { keys: fixedKey(), clock: recordingClock() });
    const sent = JSON.stringify(c.last?.sent);
    expect(sent).not.toContain(KEY);
    expect(sent).not.toMatch(/authorization|x-api-key|x-goog-api-key/i);
    expect(Object.keys(c.last?.sent ?? {})).toEqual(['url', 'method', 'body', 'bodyBytes']);
    // The provider did receive a credential header (the mock's recorder names what it withheld).
    const got = m.requests[0];
    const credential = [...(got?.redacted ?? []), ...(got?.headers.map(([k]) => k) ?? [])].map((k) => k.toLowerCase());
    expect(credential.some((k) => ['authorization', 'x-api-key', 'x-goog-api-key'].includes(k))).toBe(true);
  });
});
