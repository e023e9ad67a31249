import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers, type Handlers } from '../../src/main/api/handlers';
import { ApiFailure, SessionRegistry, type OpenSession } from '../../src/main/api/sessions';
import { BYTES_PER_FILE_BYTE } from '../../src/main/api/session-budget';
import { parseArgs, UsageError } from '../../src/main/command/args';
import { serveCommand, SERVE_SPEC } from '../../src/main/cli/serve';
import { startWebHost, type WebHost } from '../../src/main/web/server';

const SMALL = 'fixtures/palimpsest/api-small.jsonl';
const TOKEN = 'a-fixed-token-for-the-connection-limit-tests-0123456789';

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

let dir: string;
/** Distinct copies of one small session: opens of different files, so none shares a load. */
const copies: string[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'palimpsest-limits-'));
  for (let i = 0; i < 200; i++) {
    const p = join(dir, `s${i}.jsonl`);
    copyFileSync(SMALL, p);
    copies.push(p);
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const failureOf = (r: PromiseSettledResult<OpenSession>): ApiFailure => {
  expect(r.status).toBe('rejected');
  const reason = (r as PromiseRejectedResult).reason as unknown;
  expect(reason).toBeInstanceOf(ApiFailure);
  return reason as ApiFailure;
};

describe('session registry limits', () => {
  let registry: SessionRegistry;
  afterEach(() => registry.dispose());

  it('200 concurrent opens cannot race past the open-session limit: exactly 16 open', async () => {
    registry = new SessionRegistry({ allow: 'any', maxSessions: 16, memoryBudget: 1e12 });
    const results = await Promise.allSettled(copies.map((p) => registry.open(p)));
    const opened = results.filter((r) => r.status === 'fulfilled');
    expect(opened).toHaveLength(16);
    expect(registry.size).toBe(16);
    const refusals = results.filter((r) => r.status === 'rejected').map(failureOf);
    expect(refusals).toHaveLength(184);
    for (const f of refusals) {
      expect(f.code).toBe('LIMIT');
      expect(f.message).toMatch(/Too many sessions open.*close one/);
    }
    // Closing one frees its slot, and only one.
    registry.close((opened[0] as PromiseFulfilledResult<OpenSession>).value.id);
    const again = await Promise.allSettled(copies.slice(100, 110).map((p) => registry.open(p)));
    expect(again.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });

  it('an open that fails gives its slot back', async () => {
    registry = new SessionRegistry({ allow: 'any', maxSessions: 2, memoryBudget: 1e12 });
    const missing = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => registry.open(join(dir, `none${i}.jsonl`))));
    for (const r of missing) expect(failureOf(r).code).toMatch(/^(UNREADABLE|LIMIT)$/);
    const ok = await Promise.allSettled([registry.open(copies[0] ?? ''), registry.open(copies[1] ?? '')]);
    expect(ok.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
  });

  it('the memory budget refuses a load that would exceed it, before loading, with a typed error', async () => {
    const cost = Math.ceil(statSync(SMALL).size * BYTES_PER_FILE_BYTE);
    // Room for three sessions, not four.
    registry = new SessionRegistry({ allow: 'any', maxSessions: 100, memoryBudget: cost * 3 + cost / 2 });
    const results = await Promise.allSettled(copies.slice(0, 20).map((p) => registry.open(p)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    for (const f of results.filter((r) => r.status === 'rejected').map(failureOf)) {
      expect(f.code).toBe('LIMIT');
      expect(f.message).toMatch(/Not enough memory budget to open .*close one first.*PALIMPSEST_MEMORY_BUDGET_MB/);
    }
    // Closing a session gives its share of the budget back.
    registry.close((results.find((r) => r.status === 'fulfilled') as PromiseFulfilledResult<OpenSession>).value.id);
    await expect(registry.open(copies[50] ?? '')).resolves.toBeDefined();
    await expect(registry.open(copies[51] ?? '')).rejects.toMatchObject({ code: 'LIMIT' });
  });

  it('serve refuses a memory budget that is not a positive number of MB, from the flag or the environment', async () => {
    const io = { out: () => undefined, err: () => undefined };
    for (const bad of ['0', '0.0', 'lots', '1e3', '12MB']) {
      await expect(serveCommand(parseArgs(['--memory-budget', bad], SERVE_SPEC), io)).rejects.toBeInstanceOf(UsageError);
    }
    const saved = process.env.PALIMPSEST_MEMORY_BUDGET_MB;
    process.env.PALIMPSEST_MEMORY_BUDGET_MB = 'lots';
    try {
      await expect(serveCommand(parseArgs([], SERVE_SPEC), io)).rejects.toThrow(
        /PALIMPSEST_MEMORY_BUDGET_MB must be a positive number of MB/,
      );
    } finally {
      if (saved === undefined) delete process.env.PALIMPSEST_MEMORY_BUDGET_MB;
      else process.env.PALIMPSEST_MEMORY_BUDGET_MB = saved;
    }
    registry = new SessionRegistry({ allow: 'any' });
  });

  it('a session alone is let in even when it is larger than the budget', async () => {
    registry = new SessionRegistry({ allow: 'any', memoryBudget: 10 });
    await expect(registry.open(copies[0] ?? '')).resolves.toBeDefined();
    await expect(registry.open(copies[1] ?? '')).rejects.toMatchObject({ code: 'LIMIT' });
  });

  it('concurrent opens of the same file share one load and one share of the budget', async () => {
    const cost = Math.ceil(statSync(SMALL).size * BYTES_PER_FILE_BYTE);
    // Room for one session's memory only: twenty opens of one file fit, a second file does not.
    registry = new SessionRegistry({ allow: 'any', maxSessions: 100, memoryBudget: cost + cost / 2 });
    const same = await Promise.all(Array.from({ length: 20 }, () => registry.open(copies[0] ?? '')));
    expect(new Set(same.map((s) => s.inspector)).size).toBe(1);
    expect(new Set(same.map((s) => s.id)).size).toBe(20);
    await expect(registry.open(copies[1] ?? '')).rejects.toMatchObject({ code: 'LIMIT' });
    // Closing one open leaves the others' session usable; the last close frees the memory.
    for (const s of same.slice(1)) registry.close(s.id);
    expect(registry.get(same[0]?.id ?? '').inspector.replay(same[0]?.inspector.defaultBranch ?? 'main').requests.length).toBeGreaterThan(0);
    registry.close(same[0]?.id ?? '');
    await expect(registry.open(copies[1] ?? '')).resolves.toBeDefined();
  });
});

/** Resolves with how long the server took to close a connection that sent `send` (or nothing), or null if it stayed open `within` ms. */
function closedWithin(host: WebHost, within: number, send?: string): Promise<{ ms: number; data: string } | null> {
  return new Promise((ok) => {
    const started = Date.now();
    const socket = connect(host.port, '127.0.0.1');
    let data = '';
    socket.on('data', (d: Buffer) => (data += d.toString('utf8')));
    socket.on('error', () => undefined);
    if (send !== undefined) socket.write(send);
    const timer = setTimeout(() => {
      socket.destroy();
      ok(null);
    }, within);
    socket.on('close', () => {
      clearTimeout(timer);
      ok({ ms: Date.now() - started, data });
    });
  });
}

function post(host: WebHost, method: string, body = '{}'): Promise<{ status: number; body: string }> {
  return new Promise((ok, fail) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: host.port,
        path: `/api/${method}`,
        method: 'POST',
        agent: false,
        headers: { Host: `127.0.0.1:${host.port}`, Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => ok({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', fail);
    req.end(body);
  });
}

describe('web host connection limits', () => {
  let registry: SessionRegistry;
  let handlers: Handlers;
  let host: WebHost | null = null;

  beforeAll(() => {
    registry = new SessionRegistry({ allow: [] });
    const base = createHandlers({ registry, initialPaths: [] });
    // A method that takes longer than the idle timeout to answer, as a long poll or a large open does.
    handlers = { ...base, initialSessions: async (input) => (await sleep(900), base.initialSessions(input)) };
  });
  afterEach(async () => {
    await host?.dispose();
    host = null;
  });
  afterAll(() => registry.dispose());

  it('closes a connection that never sends a request after the idle timeout', async () => {
    host = await startWebHost({ handlers, rendererDir: null, token: TOKEN, idleTimeoutMs: 300 });
    const closed = await closedWithin(host, 3000);
    expect(closed).not.toBeNull();
    expect(closed?.ms).toBeGreaterThanOrEqual(250);
  }, 10_000);

  it('closes a kept-alive connection that goes idle after its answer', async () => {
    host = await startWebHost({ handlers, rendererDir: null, token: TOKEN, idleTimeoutMs: 300 });
    const req = `POST /api/openingSessions HTTP/1.1\r\nHost: 127.0.0.1:${host.port}\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\n{}`;
    const closed = await closedWithin(host, 3000, req);
    expect(closed?.data).toMatch(/^HTTP\/1\.1 200/);
    expect(closed).not.toBeNull();
  }, 10_000);

  it('does not cut a request whose answer takes longer than the idle timeout', async () => {
    host = await startWebHost({ handlers, rendererDir: null, token: TOKEN, idleTimeoutMs: 300 });
    const r = await post(host, 'initialSessions');
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({ ok: true, value: { paths: [] } });
  }, 10_000);

  it('caps concurrent connections: one over the cap is closed at once, unanswered', async () => {
    host = await startWebHost({ handlers, rendererDir: null, token: TOKEN, idleTimeoutMs: 20_000, maxConnections: 4 });
    const held: Socket[] = [];
    for (let i = 0; i < 4; i++) {
      const s = connect(host.port, '127.0.0.1');
      await new Promise((ok) => s.once('connect', ok));
      held.push(s);
    }
    await sleep(50);
    const req = `POST /api/openingSessions HTTP/1.1\r\nHost: 127.0.0.1:${host.port}\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`;
    const over = await closedWithin(host, 2000, req);
    expect(over).not.toBeNull();
    expect(over?.ms).toBeLessThan(1000);
    expect(over?.data).toBe('');
    // A place freed is a place taken.
    held.pop()?.destroy();
    await sleep(100);
    expect((await post(host, 'openingSessions')).status).toBe(200);
    for (const s of held) s.destroy();
  }, 10_000);
});
