import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, realpath } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dispatch, type Handlers } from '../api/handlers';
import { contentType, resolveStaticFile, SECURITY_HEADERS } from '../host/static';

/**
 * The web host: the built renderer and the API on 127.0.0.1 only, for Chromium on machines without
 * the Electron binary and for remote inspection through an SSH tunnel (docs/architecture.md).
 *
 * - Binds 127.0.0.1, never another interface.
 * - A random token per launch, required on every API call as `Authorization: Bearer`. The URL
 *   printed carries it in its fragment (`/#token=…`), which browsers never send to any server; the
 *   page keeps it in its tab's sessionStorage (scoped to this origin, port included) and sends it
 *   as that header. There is no cookie: browsers scope cookies by host, not port, so a cookie set
 *   here would be sent to every other service on 127.0.0.1 too.
 * - The Host header must be 127.0.0.1:<port> or localhost:<port> (no DNS rebinding).
 * - POST /api/<method> with a JSON body runs the same handlers as the Electron transport and
 *   answers `{ ok, value | error }`; a cross-origin POST is refused.
 * - Static files of out/renderer only — the app's code, which holds no secret and no session
 *   data, so they need no token — with a strict CSP and nosniff; no directory listing, no traversal.
 */

export const HOST = '127.0.0.1';
const MAX_BODY = 1 << 20;

export interface WebHostOptions {
  readonly handlers: Handlers;
  /** 0 (the default): a free port chosen by the system. */
  readonly port?: number;
  /** The built renderer. Default: the first out/renderer found (see findRendererDir). */
  readonly rendererDir?: string | null;
  /** Fixed token (tests). Default: 32 random bytes. */
  readonly token?: string;
  /**
   * Ms a connection may stay silent, with no request of its own being answered, before it is
   * closed: one that never sends a request, and a kept-alive one between requests. Default 30 s.
   */
  readonly idleTimeoutMs?: number;
  /** Most connections open at once; further ones are closed as they arrive. Default 64. */
  readonly maxConnections?: number;
}

/** Default idle timeout: longer than a browser leaves a kept-alive connection unused between clicks. */
export const IDLE_TIMEOUT_MS = 30_000;
/** Default connection cap: a browser opens at most six per host and tab; this leaves room for several tabs. */
export const MAX_CONNECTIONS = 64;

export interface WebHost {
  readonly port: number;
  readonly origin: string;
  readonly token: string;
  /** The URL to open, token included (in the fragment, which no request carries). */
  readonly url: string;
  readonly rendererDir: string | null;
  dispose(): Promise<void>;
}

/**
 * Where the built renderer is: $PALIMPSEST_RENDERER_DIR, else out/renderer next to a parent of this
 * module (dist/cli.js and src/main/web/server.ts both find the project's), else under the cwd.
 */
export function findRendererDir(): string | null {
  const env = process.env.PALIMPSEST_RENDERER_DIR;
  if (env) return resolve(env);
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, 'out', 'renderer');
    if (existsSync(join(candidate, 'index.html'))) return candidate;
    dir = dirname(dir);
  }
  const cwd = resolve('out', 'renderer');
  return existsSync(join(cwd, 'index.html')) ? cwd : null;
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function send(res: ServerResponse, status: number, body: string | Buffer, type: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': type, 'Content-Length': String(Buffer.byteLength(body)), ...extra });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

const text = (res: ServerResponse, status: number, message: string, extra: Record<string, string> = {}) =>
  send(res, status, `${message}\n`, 'text/plain; charset=utf-8', { 'Cache-Control': 'no-store', ...extra });

const json = (res: ServerResponse, status: number, value: unknown) =>
  send(res, status, JSON.stringify(value), 'application/json; charset=utf-8', { 'Cache-Control': 'no-store' });

async function readBody(req: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > MAX_BODY) return null;
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Idle connections are closed and their number capped: each one holds a socket and parser, and a
 * local process could otherwise open them by the thousand and keep them silent. A connection
 * whose request is still being answered (an open of a large session, a job's long poll) is busy,
 * not idle, however long the answer takes; `requestTimeout` bounds that.
 */
function limitConnections(server: Server, idleMs: number, max: number): void {
  // Over the cap, Node closes the new connection at once ('drop'), before reading anything.
  server.maxConnections = max;
  server.keepAliveTimeout = idleMs;
  server.timeout = idleMs;
  const answering = new Map<Socket, number>();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    answering.set(socket, (answering.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const n = (answering.get(socket) ?? 1) - 1;
      if (n > 0) answering.set(socket, n);
      else answering.delete(socket);
    });
  });
  // With a listener here Node leaves the socket to us: silent and answering nothing, it goes; an
  // answer in progress keeps it, and the timer starts again with the answer's first write.
  server.on('timeout', (socket: Socket) => {
    if (!answering.has(socket)) socket.destroy();
  });
}

export async function startWebHost(options: WebHostOptions): Promise<WebHost> {
  const token = options.token ?? randomBytes(32).toString('base64url');
  const rendererDirGiven = options.rendererDir === undefined ? findRendererDir() : options.rendererDir;
  const rendererDir = rendererDirGiven ? await realpath(rendererDirGiven).catch(() => null) : null;
  let port = options.port ?? 0;

  const allowedHosts = () => new Set([`${HOST}:${port}`, `localhost:${port}`]);
  const allowedOrigins = () => new Set([`http://${HOST}:${port}`, `http://localhost:${port}`]);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // 1. Host: only this loopback port, under either name.
    if (!req.headers.host || !allowedHosts().has(req.headers.host.toLowerCase())) {
      text(res, 403, 'Forbidden: unexpected Host header.');
      return;
    }
    const url = new URL(req.url ?? '/', `http://${HOST}:${port}`);

    // 2. API: the bearer token, then the method.
    if (url.pathname.startsWith('/api/')) {
      const auth = req.headers.authorization;
      const bearer = auth?.startsWith('Bearer ') ? auth.slice(7).trim() : null;
      if (bearer === null || !sameSecret(bearer, token)) {
        text(res, 401, 'Unauthorized: open the URL that `palimpsest serve` printed (it carries the token).', {
          'WWW-Authenticate': 'Bearer',
        });
        return;
      }
      if (req.method !== 'POST') {
        text(res, 405, 'Method not allowed: the API takes POST.', { Allow: 'POST' });
        return;
      }
      const origin = req.headers.origin;
      if (origin !== undefined && !allowedOrigins().has(origin.toLowerCase())) {
        text(res, 403, 'Forbidden: cross-origin request.');
        return;
      }
      if (!(req.headers['content-type'] ?? '').toLowerCase().startsWith('application/json')) {
        text(res, 415, 'Unsupported media type: send application/json.');
        return;
      }
      const body = await readBody(req);
      if (body === null) {
        json(res, 413, { ok: false, error: { code: 'BAD_INPUT', message: `The request body is larger than ${MAX_BODY} bytes.` } });
        return;
      }
      let input: unknown;
      try {
        input = body.trim() === '' ? {} : JSON.parse(body);
      } catch {
        json(res, 400, { ok: false, error: { code: 'BAD_INPUT', message: 'The request body is not JSON.' } });
        return;
      }
      const result = await dispatch(options.handlers, url.pathname.slice('/api/'.length), input);
      // Input the API refuses is the client's error, as a body that is not JSON is; the envelope is the same.
      json(res, !result.ok && result.error.code === 'BAD_INPUT' ? 400 : 200, result);
      return;
    }

    // 3. Static files of the built renderer.
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      text(res, 405, 'Method not allowed.', { Allow: 'GET, HEAD' });
      return;
    }
    if (!rendererDir) {
      text(res, 503, 'The renderer is not built: run `npm run build` (it writes out/renderer).');
      return;
    }
    const file = await resolveStaticFile(rendererDir, url.pathname);
    if (!file) {
      text(res, 404, 'Not found.');
      return;
    }
    send(res, 200, await readFile(file), contentType(file), { 'Cache-Control': file.endsWith('.html') ? 'no-store' : 'no-cache' });
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      process.stderr.write(`palimpsest serve: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      if (!res.headersSent) text(res, 500, 'Internal error.');
      else res.destroy();
    });
  });
  server.headersTimeout = 30_000;
  server.requestTimeout = 120_000;
  limitConnections(server, options.idleTimeoutMs ?? IDLE_TIMEOUT_MS, options.maxConnections ?? MAX_CONNECTIONS);

  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(port, HOST, () => {
      server.off('error', fail);
      ok();
    });
  });
  port = (server.address() as AddressInfo).port;
  const origin = `http://${HOST}:${port}`;

  let closing: Promise<void> | null = null;
  return {
    port,
    origin,
    token,
    url: `${origin}/#token=${token}`,
    rendererDir,
    dispose() {
      closing ??= new Promise<void>((ok) => {
        server.close(() => ok());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
