import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHandlers, type HandlerTable } from '../../src/main/api/handlers';
import { SessionRegistry } from '../../src/main/api/sessions';
import { runCli } from '../../src/main/cli/main';
import { startMockProvider, type MockProvider } from '../../src/main/mock';
import { EndpointApprovals } from '../../src/main/providers/endpoints';
import { startWebHost } from '../../src/main/web/server';
import type { RerunJob } from '../../src/shared/api/contract';
import { value } from '../main/api/results';

/*
 * The hazard: whoever holds a host's access token could start a re-run whose model names
 * `baseUrl: <their server>` and `keyEnv: OPENAI_API_KEY`, and the host would send the user's key
 * there. A key may only go to its provider's endpoint, or to one the user approved.
 */

const SAMPLE = 'fixtures/palimpsest/basic.jsonl';
const KEY = 'sk-hostile-test-0123456789abcdefWXYZ';

/** A listener that records every request's raw headers and passes it on to a mock provider. */
async function recordingProxy(upstream: MockProvider): Promise<{ url: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    seen.push(req.rawHeaders.join('\n'));
    const fwd = request(`${upstream.url}${req.url ?? '/'}`, { method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    req.pipe(fwd);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    seen,
    close: () =>
      new Promise((ok) => {
        server.close(() => ok());
        server.closeAllConnections();
      }),
  };
}

describe('hostile: a re-run asked to send a key to an endpoint nobody approved', () => {
  let dataDir: string;
  let registry: SessionRegistry;
  let mock: MockProvider;
  let proxy: Awaited<ReturnType<typeof recordingProxy>>;
  const env = () => ({ PALIMPSEST_DATA_DIR: dataDir, OPENAI_API_KEY: KEY });

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'palimpsest-keys-'));
    registry = new SessionRegistry({ allow: 'any' });
    mock = await startMockProvider({ script: { steps: [] } });
    proxy = await recordingProxy(mock);
  });
  afterEach(async () => {
    registry.dispose();
    await proxy.close();
    await mock.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function finish(handlers: HandlerTable, jobId: string): Promise<RerunJob> {
    for (let after = 0; ;) {
      const w = value(await handlers.watchRerun({ jobId, after, waitMs: 5000 }));
      after = w.next;
      if (w.job.state !== 'running' && w.events.length === 0) return w.job;
    }
  }

  async function rerunThrough(handlers: HandlerTable, models?: unknown[]): Promise<RerunJob> {
    const sessionId = value(await handlers.openSession({ path: SAMPLE })).sessionId;
    const job = value(
      await handlers.startRerun({
        sessionId,
        target: { compaction: 'cmp_01' },
        strategy: 'one-shot',
        window: 2000,
        ...(models ? { models: models as never } : {}),
      }),
    );
    return finish(handlers, job.jobId);
  }

  const evil = () => ({ provider: 'openai', model: 'gpt-test', baseUrl: proxy.url, keyEnv: 'OPENAI_API_KEY' });

  it('sends nothing to an unapproved endpoint, and says why', async () => {
    const handlers = createHandlers({ registry, initialPaths: [SAMPLE], rerun: { env: env() } });
    const done = await rerunThrough(handlers, [evil()]);
    expect(proxy.seen.filter((h) => h.includes(KEY))).toEqual([]);
    expect(proxy.seen).toEqual([]);
    expect(JSON.stringify(done)).toContain('not approved for keys');
    expect(JSON.stringify(done)).not.toContain(KEY);
  });

  it('a CLI re-run sends nothing to an endpoint the API wrote into the settings chain', async () => {
    // The app writes the chain through the API, so anything holding a host's token can too: a
    // later `palimpsest rerun` that takes its models from that file must not approve them.
    const handlers = createHandlers({ registry, initialPaths: [SAMPLE], rerun: { env: env() } });
    value(await handlers.setSummarizationChain({ models: [evil() as never] }));
    const saved = { ...process.env };
    Object.assign(process.env, env());
    const err: string[] = [];
    try {
      const code = await runCli(
        ['rerun', SAMPLE, '--compaction', 'cmp_01', '--strategy', 'one-shot', '--window', '2000', '--runs', join(dataDir, 'runs.jsonl')],
        { out: (t) => err.push(t), err: (t) => err.push(t) },
      );
      expect(code).not.toBe(0);
    } finally {
      process.env = saved;
    }
    expect(err.join('\n')).toContain('not approved for keys');
    expect(proxy.seen).toEqual([]);
    // Typed on the command line, the same endpoint is the user's choice.
    Object.assign(process.env, env());
    try {
      await runCli(
        [
          'rerun',
          SAMPLE,
          '--compaction',
          'cmp_01',
          '--strategy',
          'one-shot',
          '--window',
          '2000',
          '--runs',
          join(dataDir, 'runs.jsonl'),
          '--allow-endpoint',
          proxy.url,
        ],
        { out: () => {}, err: () => {} },
      );
    } finally {
      process.env = saved;
    }
    expect(proxy.seen.length).toBeGreaterThan(0);
  });

  it('sends the key to an endpoint the host approved (the check above can fail)', async () => {
    const handlers = createHandlers({
      registry,
      initialPaths: [SAMPLE],
      rerun: { env: env(), endpoints: new EndpointApprovals([proxy.url]) },
    });
    await rerunThrough(handlers, [evil()]);
    expect(proxy.seen.length).toBeGreaterThan(0);
    expect(proxy.seen.every((h) => h.includes(`Bearer ${KEY}`))).toBe(true);
  });

  it('asks the desktop prompt once per origin; a no sends nothing', async () => {
    const asked: string[] = [];
    let answer = false;
    const endpoints = new EndpointApprovals([], async (q) => {
      asked.push(`${q.origin} ${q.keyFrom}`);
      return answer;
    });
    const handlers = createHandlers({ registry, initialPaths: [SAMPLE], rerun: { env: env(), endpoints } });
    await rerunThrough(handlers, [evil()]);
    expect(proxy.seen).toEqual([]);
    answer = true;
    await rerunThrough(handlers, [evil()]);
    await rerunThrough(handlers, [evil()]);
    const origin = new URL(proxy.url).origin;
    expect(asked).toEqual([`${origin} OPENAI_API_KEY`, `${origin} OPENAI_API_KEY`]);
    expect(proxy.seen.length).toBeGreaterThan(0);
  });

  it("refuses through the web host's HTTP API as well", async () => {
    const handlers = createHandlers({ registry, initialPaths: [SAMPLE], rerun: { env: env() } });
    const host = await startWebHost({ port: 0, rendererDir: null, handlers });
    try {
      const post = async (method: string, body: unknown): Promise<{ ok: boolean; value?: Record<string, unknown> }> => {
        const r = await fetch(`${host.origin}/api/${method}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${host.token}` },
          body: JSON.stringify(body),
        });
        return (await r.json()) as { ok: boolean; value?: Record<string, unknown> };
      };
      const opened = await post('openSession', { path: SAMPLE });
      const started = await post('startRerun', {
        sessionId: opened.value?.sessionId,
        target: { compaction: 'cmp_01' },
        strategy: 'one-shot',
        window: 2000,
        models: [evil()],
      });
      expect(started.ok).toBe(true);
      await finish(handlers, String(started.value?.jobId));
      expect(proxy.seen).toEqual([]);
    } finally {
      await host.dispose();
    }
  });
});

describe('EndpointApprovals', () => {
  it("lets a key go to its provider's official origin, under any path", async () => {
    const e = new EndpointApprovals();
    expect(await e.allows({ provider: 'openai' }, 'OPENAI_API_KEY')).toBe(true);
    expect(await e.allows({ provider: 'openai', baseUrl: 'https://api.openai.com/v1' }, 'OPENAI_API_KEY')).toBe(true);
    expect(await e.allows({ provider: 'anthropic', baseUrl: 'https://api.anthropic.com' }, 'ANTHROPIC_API_KEY')).toBe(true);
    // Another provider's host, a look-alike, another port or scheme: not the provider's endpoint.
    expect(await e.allows({ provider: 'openai', baseUrl: 'https://api.anthropic.com' }, 'OPENAI_API_KEY')).toBe(false);
    expect(await e.allows({ provider: 'openai', baseUrl: 'https://api.openai.com.evil.example/v1' }, 'OPENAI_API_KEY')).toBe(false);
    expect(await e.allows({ provider: 'openai', baseUrl: 'https://api.openai.com:8443/v1' }, 'OPENAI_API_KEY')).toBe(false);
    expect(await e.allows({ provider: 'openai', baseUrl: 'http://api.openai.com/v1' }, 'OPENAI_API_KEY')).toBe(false);
  });

  it('approves by origin, and only http(s) URLs', async () => {
    const e = new EndpointApprovals(['http://127.0.0.1:11434/v1', 'file:///etc/passwd']);
    expect(await e.allows({ provider: 'openai', baseUrl: 'http://127.0.0.1:11434/other' }, 'X_API_KEY')).toBe(true);
    expect(await e.allows({ provider: 'openai', baseUrl: 'http://127.0.0.1:11435/v1' }, 'X_API_KEY')).toBe(false);
    expect(await e.allows({ provider: 'openai', baseUrl: 'http://localhost:11434/v1' }, 'X_API_KEY')).toBe(false);
    expect(await e.allows({ provider: 'openai', baseUrl: 'not a url' }, 'X_API_KEY')).toBe(false);
  });

  it('a prompt that throws is a no', async () => {
    const e = new EndpointApprovals([], () => Promise.reject(new Error('window closed')));
    expect(await e.allows({ provider: 'openai', baseUrl: 'http://127.0.0.1:9/v1' }, 'X_API_KEY')).toBe(false);
  });
});
