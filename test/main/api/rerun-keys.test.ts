import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createHandlers, type Handlers } from '../../../src/main/api/handlers';
import { NO_STORE_MESSAGE, type KeyVault } from '../../../src/main/api/handlers-rerun-keys';
import { SessionRegistry } from '../../../src/main/api/sessions';
import { EndpointApprovals } from '../../../src/main/providers/endpoints';
import { startMockProvider, type MockProvider } from '../../../src/main/mock';
import { extractiveAnswerer } from '../../../src/main/mock/extractive';
import { header } from '../mock/captured';
import type { ApiResult, ProgressEvent, RerunJob } from '../../../src/shared/api/contract';
import { value, errorOf } from './results';

/*
 * Stored provider keys through the API handlers, as the desktop app wires them: a KeyStore over
 * safeStorage (src/main/electron/keys.ts) under a temporary "userData". The Electron binary is not
 * installed here, so `electron` is mocked and safeStorage is a fake that really transforms the text
 * (the file must not hold the key). And the web host's case: no store at all.
 */

vi.mock('electron', () => ({ safeStorage: {}, app: { getPath: () => '/nonexistent' } }));
const { keyVault, KEY_FILE } = await import('../../../src/main/electron/keys');
const { safeStorageEncryptor } = await import('../../../src/main/electron/safe-storage');

const SAMPLE = 'fixtures/palimpsest/basic.jsonl';
/** Shaped like no known provider key, so only our redaction of the key itself can hide it, not a pattern. */
const KEY = 'Pal1mpsest-test-key-0123456789-WXYZ';

const fakeSafeStorage = (backend: string, available = true) => ({
  isEncryptionAvailable: () => available,
  encryptString: (s: string) => Buffer.from([...Buffer.from(s)].map((b) => b ^ 0x5a)),
  decryptString: (b: Buffer) => Buffer.from([...b].map((x) => x ^ 0x5a)).toString(),
  getSelectedStorageBackend: () => backend,
});

function expectNoKey(text: string): void {
  expect(text).not.toContain(KEY);
  expect(text).not.toContain(KEY.slice(0, 12));
  expect(text).not.toContain(Buffer.from(KEY).toString('base64').slice(0, 16));
}

describe('provider keys through the handlers', () => {
  let dir: string;
  let registry: SessionRegistry;
  const logged: string[] = [];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'palimpsest-keys-'));
    registry = new SessionRegistry({ allow: 'any' });
    logged.length = 0;
  });
  afterEach(() => {
    registry.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  const handlersWith = (vault: KeyVault | null, env: Record<string, string> = {}, onProgress?: (e: ProgressEvent) => void): Handlers =>
    createHandlers({
      registry,
      initialPaths: [SAMPLE],
      ...(onProgress ? { onProgress } : {}),
      logError: (m, err) => logged.push(`${m}: ${err instanceof Error ? `${err.message}\n${err.stack ?? ''}` : String(err)}`),
      // As in the desktop app, whose dialog the user answers yes: these tests send keys to local endpoints on purpose.
      rerun: {
        env: { PALIMPSEST_DATA_DIR: join(dir, 'data'), ...env },
        keys: vault,
        endpoints: new EndpointApprovals([], () => Promise.resolve(true)),
      },
    });
  const vaultOf = (backend: string, available = true): KeyVault =>
    keyVault(join(dir, 'userData', KEY_FILE), safeStorageEncryptor(fakeSafeStorage(backend, available), 'linux'));

  it('stores a key encrypted: the file does not hold it, providerKeys shows set / stored / last 4 only, removal forgets it', async () => {
    const vault = vaultOf('gnome_libsecret');
    const h = handlersWith(vault);
    const before = value(await h.providerKeys({}));
    expect(before.store).toEqual({ available: true, location: join(dir, 'userData', KEY_FILE), message: null });
    expect(before.providers.find((p) => p.provider === 'openai')).toMatchObject({ set: false, source: null });

    const set = value(await h.setProviderKey({ provider: 'openai', key: KEY }));
    expect(set).toEqual({
      status: { provider: 'openai', env: ['OPENAI_API_KEY'], set: true, source: 'stored', last4: 'WXYZ' },
      note: null,
    });
    const file = readFileSync(vault.location, 'utf8');
    expect(file).not.toContain(KEY);
    expect(file).not.toContain(KEY.slice(0, 12));
    expect(file).not.toContain(Buffer.from(KEY).toString('base64').slice(0, 16));
    // What is stored is the encrypted key, and it decrypts back to the key (main can use it).
    expect(await vault.get('openai')).toEqual({ ok: true, value: KEY });

    const after = value(await h.providerKeys({ models: ['openai:gpt-4.1', 'openai-responses:o4-mini'] }));
    // Both OpenAI protocols share the stored key; the models that use it say so.
    expect(after.providers.filter((p) => p.provider.startsWith('openai')).map((p) => [p.provider, p.set, p.source, p.last4])).toEqual([
      ['openai', true, 'stored', 'WXYZ'],
      ['openai-responses', true, 'stored', 'WXYZ'],
    ]);
    expect(after.models.map((m) => [m.label, m.set, m.source, m.last4])).toEqual([
      ['openai:gpt-4.1', true, 'stored', 'WXYZ'],
      ['openai-responses:o4-mini', true, 'stored', 'WXYZ'],
    ]);
    expect(JSON.stringify(after)).not.toContain(KEY.slice(0, 12));

    expect(value(await h.removeProviderKey({ provider: 'openai' }))).toMatchObject({
      removed: true,
      status: { set: false, source: null, last4: null },
    });
    expect(readFileSync(vault.location, 'utf8')).not.toContain('"openai"');
    expect(value(await h.removeProviderKey({ provider: 'openai' })).removed).toBe(false);
  });

  it("refuses to store when the only backend is plain text (basic_text) or there is no encryption, with the store's sentence", async () => {
    for (const [backend, available, sentence] of [
      ['basic_text', true, /only storage available is plain text/],
      ['gnome_libsecret', false, /no encryption/],
    ] as const) {
      const h = handlersWith(vaultOf(backend, available));
      const status = value(await h.providerKeys({})).store;
      expect(status.available).toBe(false);
      expect(status.message).toMatch(sentence);
      const e = errorOf(await h.setProviderKey({ provider: 'anthropic', key: KEY }));
      expect(e.code).toBe('NOT_AVAILABLE');
      expect(e.message).toMatch(sentence);
      expect(e.message).toMatch(/environment variable/);
      expect(e.message).not.toContain(KEY.slice(0, 12));
      expect(existsSync(join(dir, 'userData', KEY_FILE))).toBe(false);
    }
  });

  it('the web host has no store: providerKeys says so, setting and removing answer NOT_AVAILABLE pointing at environment variables', async () => {
    const h = handlersWith(null);
    expect(value(await h.providerKeys({})).store).toEqual({ available: false, location: null, message: NO_STORE_MESSAGE });
    for (const r of [await h.setProviderKey({ provider: 'openai', key: KEY }), await h.removeProviderKey({ provider: 'openai' })]) {
      const e = errorOf(r);
      expect(e.code).toBe('NOT_AVAILABLE');
      expect(e.message).toMatch(/environment variables \(OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY\)/);
    }
  });

  it('says when an environment variable wins over the stored key', async () => {
    const h = handlersWith(vaultOf('kwallet5'), { ANTHROPIC_API_KEY: 'env-key-0123456789-ABCD' });
    const set = value(await h.setProviderKey({ provider: 'anthropic', key: KEY }));
    expect(set.status).toMatchObject({ set: true, source: 'env', last4: 'ABCD' });
    expect(set.note).toBe('ANTHROPIC_API_KEY is set in the environment: it is used before the stored key.');
  });

  it('rejects bad keys and the mock as BAD_INPUT without echoing the key', async () => {
    const h = handlersWith(vaultOf('keychain'));
    const bad: unknown[] = [
      { provider: 'mock', key: KEY },
      { provider: 'openai', key: 'short' },
      { provider: 'openai', key: `${KEY} ${KEY}` },
      { provider: 'openai', key: `${KEY}\n` },
      { provider: 'openai', key: 'x'.repeat(1001) },
      { provider: 'openai' },
    ];
    for (const input of bad) {
      const e = errorOf(await h.setProviderKey(input as never));
      expect(e.code, JSON.stringify(input)).toBe('BAD_INPUT');
      expect(e.message).not.toContain(KEY.slice(0, 12));
    }
    expect(errorOf(await h.removeProviderKey({ provider: 'mock' } as never)).code).toBe('BAD_INPUT');
  });

  describe('with a stored key sent to a provider', () => {
    let mock: MockProvider;
    beforeEach(async () => {
      mock = await startMockProvider({ script: { steps: [] }, answer: extractiveAnswerer() });
    });
    afterEach(async () => {
      await mock.dispose();
    });

    it('no answer of any re-run method, no progress event, no log line and no results file contains the key', async () => {
      const vault = vaultOf('gnome_libsecret');
      const events: ProgressEvent[] = [];
      const h = handlersWith(vault, {}, (e) => events.push(e));
      const answers: unknown[] = [];
      const keep = async <T>(r: Promise<ApiResult<T>>): Promise<ApiResult<T>> => {
        const a = await r;
        answers.push(a);
        return a;
      };
      await keep(h.setProviderKey({ provider: 'openai', key: KEY }));
      // A model naming its variable (as for any compatible endpoint) takes the key stored under that name.
      expect((await vault.set('OPENAI_API_KEY', KEY)).ok).toBe(true);
      const sessionId = value(await h.openSession({ path: SAMPLE })).sessionId;
      const model = {
        provider: 'openai' as const,
        model: 'gpt-test',
        baseUrl: `${mock.url}/v1`,
        keyEnv: 'OPENAI_API_KEY',
        window: 128_000,
      };
      await keep(h.listStrategies({}));
      await keep(h.providerKeys({ models: [model, 'openai:gpt-4.1'] }));
      const job = value(
        await keep(h.startRerun({ sessionId, target: { compaction: 'cmp_01' }, strategy: 'one-shot', models: [model], window: 2000 })),
      );
      let done: RerunJob = job;
      for (let after = 0; done.state === 'running';) {
        const w = value(await keep(h.watchRerun({ jobId: job.jobId, after, waitMs: 5000 })));
        after = w.next;
        done = w.job;
      }
      expect(done.runs.map((r) => [r.outcome, r.error])).toEqual([['committed', null]]);
      // A key went to the provider (the only one there is: this env has none), so the check below is
      // not vacuous. The mock itself drops the Authorization header from what it records.
      expect(mock.requests.map((r) => [header(r, 'authorization'), r.redacted.map((h) => h.toLowerCase())])).toEqual([
        [null, ['authorization']],
      ]);

      await keep(h.cancelRerun({ jobId: job.jobId }));
      await keep(h.listRerunJobs({ sessionId }));
      await keep(h.listRuns({ sessionId }));
      await keep(h.compareRuns({ sessionId, target: { compaction: 'cmp_01' } }));
      await keep(h.removeProviderKey({ provider: 'openai' }));
      await keep(h.setProviderKey({ provider: 'openai', key: `${KEY}!` }));

      const texts = [JSON.stringify(answers), JSON.stringify(events), logged.join('\n')];
      const runsDir = join(dir, 'data', 'runs');
      const files = readdirSync(runsDir);
      expect(files).toHaveLength(1);
      texts.push(readFileSync(join(runsDir, files[0] ?? ''), 'utf8'));
      expect(texts[3]).toContain('gpt-test');
      for (const t of texts) expectNoKey(t);
    });
  });

  it('a provider that echoes the key in its error: the failure is recorded without it', async () => {
    const seen: (string | undefined)[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers.authorization);
      req.resume();
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { type: 'invalid_request_error', message: `Incorrect API key provided: ${KEY}.` } }));
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    try {
      const vault = vaultOf('gnome_libsecret');
      expect((await vault.set('OPENAI_API_KEY', KEY)).ok).toBe(true);
      const h = handlersWith(vault);
      const sessionId = value(await h.openSession({ path: SAMPLE })).sessionId;
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      const model = { provider: 'openai' as const, model: 'gpt-test', baseUrl: url, keyEnv: 'OPENAI_API_KEY', window: 128_000 };
      const job = value(
        await h.startRerun({ sessionId, target: { compaction: 'cmp_01' }, strategy: 'one-shot', models: [model], window: 2000 }),
      );
      const answers: unknown[] = [];
      let done: RerunJob = job;
      for (let after = 0; done.state === 'running';) {
        const w = value(await h.watchRerun({ jobId: job.jobId, after, waitMs: 5000 }));
        answers.push(w);
        after = w.next;
        done = w.job;
      }
      expect(seen[0]).toBe(`Bearer ${KEY}`);
      expect(done.runs[0]?.outcome).toBe('failed');
      expect(done.runs[0]?.error).toMatch(/Incorrect API key provided: \[REDACTED\]/);
      const runsDir = join(dir, 'data', 'runs');
      for (const t of [
        JSON.stringify(answers),
        logged.join('\n'),
        ...readdirSync(runsDir).map((f) => readFileSync(join(runsDir, f), 'utf8')),
      ])
        expectNoKey(t);
    } finally {
      await new Promise((ok) => server.close(ok));
    }
  });
});
