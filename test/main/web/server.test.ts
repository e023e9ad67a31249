import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers } from '../../../src/main/api/handlers';
import { SessionRegistry } from '../../../src/main/api/sessions';
import { startWebHost, type WebHost } from '../../../src/main/web/server';

const SMALL = 'fixtures/palimpsest/api-small.jsonl';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw HTTP request (fetch would not let us send a foreign Host header or an unnormalised path). */
function call(
  host: WebHost,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Reply> {
  return new Promise((ok, fail) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: host.port,
        path,
        method: options.method ?? 'GET',
        headers: { Host: `127.0.0.1:${host.port}`, ...options.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => ok({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', fail);
    req.end(options.body);
  });
}

describe('web host', () => {
  let dir: string;
  let host: WebHost;
  let registry: SessionRegistry;
  let auth: Record<string, string>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'palimpsest-web-'));
    const root = join(dir, 'renderer');
    mkdirSync(join(root, 'assets'), { recursive: true });
    writeFileSync(
      join(root, 'index.html'),
      '<!doctype html><title>Palimpsest</title><script type="module" src="./assets/app.js"></script>',
    );
    writeFileSync(join(root, 'assets', 'app.js'), 'console.log(1);');
    writeFileSync(join(root, '.env'), 'SECRET=1');
    writeFileSync(join(dir, 'secret.txt'), 'top secret');
    symlinkSync(join(dir, 'secret.txt'), join(root, 'assets', 'link.txt'));
    registry = new SessionRegistry({ allow: [SMALL] });
    host = await startWebHost({ port: 0, rendererDir: root, handlers: createHandlers({ registry, initialPaths: [SMALL] }) });
    auth = { Authorization: `Bearer ${host.token}` };
  });

  afterAll(async () => {
    await host.dispose();
    registry.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('listens on 127.0.0.1 on a random port and prints a URL with a long random token', () => {
    expect(host.port).toBeGreaterThan(0);
    // In the fragment: a browser sends no fragment to any server, so it is in no request line or log.
    expect(host.url).toBe(`http://127.0.0.1:${host.port}/#token=${host.token}`);
    expect(host.token.length).toBeGreaterThanOrEqual(40);
  });

  it('requires the bearer token on the API (401), and takes it from nowhere else', async () => {
    const post = (headers: Record<string, string>, path = '/api/initialSessions') =>
      call(host, path, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: '{}' });
    for (const r of [
      await post({}),
      await post({ Authorization: 'Bearer wrong' }),
      await post({ Authorization: `Basic ${host.token}` }),
      // Neither a query nor a cookie is a credential here: both leak (logs, other local services).
      await post({}, `/api/initialSessions?token=${host.token}`),
      await post({ Cookie: `palimpsest_${host.port}=${host.token}; palimpsest=${host.token}` }),
    ]) {
      expect(r.status).toBe(401);
      expect(r.body).not.toContain(SMALL);
    }
    expect((await post(auth)).status).toBe(200);
  });

  it('never sets a cookie, and serves the app code without the token', async () => {
    for (const path of ['/', `/?token=${host.token}`, '/assets/app.js', '/missing']) {
      const r = await call(host, path);
      expect(r.headers['set-cookie'], path).toBeUndefined();
    }
    const api = await call(host, '/api/initialSessions', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...auth },
      body: '{}',
    });
    expect(api.headers['set-cookie']).toBeUndefined();
    // The page and its script are the app's own code: no session data, no secret.
    const page = await call(host, '/');
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>Palimpsest</title>');
    expect(page.body).not.toContain(host.token);
    expect((await call(host, '/assets/app.js')).status).toBe(200);
  });

  it('refuses a foreign Host header (403), even with the token', async () => {
    for (const h of ['evil.example', `evil.example:${host.port}`, '127.0.0.1', `127.0.0.1:${host.port + 1}`, `0.0.0.0:${host.port}`]) {
      expect((await call(host, '/', { headers: { ...auth, Host: h } })).status).toBe(403);
    }
    expect((await call(host, '/', { headers: { ...auth, Host: `localhost:${host.port}` } })).status).toBe(200);
  });

  it('serves the renderer with a strict CSP and nosniff', async () => {
    const page = await call(host, '/', { headers: auth });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    const js = await call(host, '/assets/app.js', { headers: auth });
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
  });

  it('refuses directory traversal, dotfiles, symlinks out of the root and directories', async () => {
    for (const p of [
      '/../secret.txt',
      '/assets/../../secret.txt',
      '/%2e%2e/secret.txt',
      '/assets/%2e%2e%2f%2e%2e%2fsecret.txt',
      '/..%5csecret.txt',
      '/.env',
      '/assets/link.txt',
      '/assets',
      '/assets/',
      '/%00',
      '/%E0%A4%A',
    ]) {
      const r = await call(host, p, { headers: auth });
      expect([400, 404], `${p} → ${r.status}`).toContain(r.status);
      expect(r.body).not.toContain('top secret');
      expect(r.body).not.toContain('SECRET');
    }
  });

  it('runs API methods over POST /api/<method>', async () => {
    const post = (method: string, body: unknown, headers: Record<string, string> = {}) =>
      call(host, `/api/${method}`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    const init = await post('initialSessions', {});
    expect(init.status).toBe(200);
    expect(init.headers['cache-control']).toBe('no-store');
    expect(JSON.parse(init.body)).toEqual({ ok: true, value: { paths: [SMALL] } });

    const opened = JSON.parse((await post('openSession', { path: SMALL })).body);
    expect(opened).toMatchObject({ ok: true, value: { format: 'palimpsest', counts: { requests: 4 } } });
    const view = JSON.parse((await post('getView', { sessionId: opened.value.sessionId, index: 3 })).body);
    expect(view.value.items.map((i: { id: string }) => i.id)).toEqual(['cp1', 'u2']);

    // Errors are values, with the reason.
    expect(JSON.parse((await post('openSession', { path: '/etc/passwd' })).body)).toMatchObject({
      ok: false,
      error: { code: 'FORBIDDEN_PATH' },
    });
    expect(JSON.parse((await post('nope', {})).body)).toMatchObject({ ok: false, error: { code: 'UNKNOWN_METHOD' } });
    expect(JSON.parse((await post('getView', { index: 'x' })).body)).toMatchObject({ ok: false, error: { code: 'BAD_INPUT' } });
    const bad = await call(host, '/api/getView', {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: '{oops',
    });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body)).toMatchObject({ ok: false, error: { code: 'BAD_INPUT' } });
  });

  it('refuses cross-origin API calls, non-JSON bodies and GET on the API', async () => {
    const base = { method: 'POST', body: '{}' };
    expect(
      (
        await call(host, '/api/initialSessions', {
          ...base,
          headers: { ...auth, 'Content-Type': 'application/json', Origin: 'http://evil.example' },
        })
      ).status,
    ).toBe(403);
    expect((await call(host, '/api/initialSessions', { ...base, headers: { ...auth, 'Content-Type': 'text/plain' } })).status).toBe(415);
    expect((await call(host, '/api/initialSessions', { headers: auth })).status).toBe(405);
    expect(
      (await call(host, '/api/initialSessions', { ...base, headers: { ...auth, 'Content-Type': 'application/json', Origin: host.origin } }))
        .status,
    ).toBe(200);
  });

  it('says so when the renderer is not built', async () => {
    const other = await startWebHost({ port: 0, rendererDir: null, handlers: createHandlers({ registry, initialPaths: [] }) });
    try {
      const r = await call(other, '/', { headers: { Authorization: `Bearer ${other.token}` } });
      expect(r.status).toBe(503);
      expect(r.body).toContain('npm run build');
    } finally {
      await other.dispose();
    }
  });
});
