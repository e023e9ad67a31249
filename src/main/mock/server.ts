import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { PROTOCOLS } from './protocols';
import type { Answer, ProtocolAdapter, RenderContext, Route } from './protocols/types';
import { type CapturedRequest, Recorder, captureOf, decodeBody } from './record';
import { type Choice, type Script, ScriptPlayer, type ScriptInput } from './script';

/*
 * A local mock LLM provider for the fidelity suite and tests. It binds to loopback only, records
 * every request (./record.ts) before answering it from a script (./script.ts), and speaks the wire
 * protocols in ./protocols. Bounded: a maximum number of requests (then 503), a maximum body size
 * (then 413), no request waits on anything but its own body.
 */

export interface MockProviderOptions {
  readonly script: ScriptInput | Script;
  /** Append captured requests here (JSONL). Absent: kept in memory only. */
  readonly recordPath?: string;
  /** A loopback address; default 127.0.0.1. */
  readonly host?: string;
  /** Default 0: any free port. */
  readonly port?: number;
  readonly protocols?: readonly ProtocolAdapter[];
  /** Requests answered before the mock refuses more with 503 (default 2,000). */
  readonly maxRequests?: number;
  /** Largest body accepted (default 64 MiB). */
  readonly maxBodyBytes?: number;
  /** Pause between SSE events, in ms (default 0; at most 1,000). */
  readonly eventDelayMs?: number;
}

export interface MockProvider {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** Every request recorded so far, in arrival order. */
  readonly requests: readonly CapturedRequest[];
  readonly player: ScriptPlayer;
  close(): Promise<void>;
}

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|localhost)$/;

function findRoute(protocols: readonly ProtocolAdapter[], method: string, path: string): { adapter: ProtocolAdapter; route: Route } | null {
  for (const adapter of protocols) {
    for (const route of adapter.routes) if (route.method === method && route.path(path)) return { adapter, route };
  }
  return null;
}

function readBody(req: IncomingMessage, max: number): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) over = true;
      else chunks.push(c);
    });
    req.on('end', () => resolve(over ? 'too-large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function write(res: ServerResponse, chunk: string): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed) resolve();
    else res.write(chunk, () => resolve());
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

async function send(req: IncomingMessage, res: ServerResponse, a: Answer, delayMs: number): Promise<void> {
  if (a.kind === 'destroy') {
    req.socket.destroy();
    return;
  }
  if (a.kind === 'json') {
    const body = JSON.stringify(a.body);
    res.writeHead(a.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...a.headers });
    res.end(body);
    return;
  }
  res.writeHead(a.status, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...a.headers });
  res.flushHeaders();
  let sent = 0;
  for (const e of a.events) {
    if (a.cutAfter !== undefined && sent >= a.cutAfter) {
      req.socket.destroy();
      return;
    }
    await write(res, `${e.event !== undefined ? `event: ${e.event}\n` : ''}data: ${JSON.stringify(e.data)}\n\n`);
    sent++;
    if (delayMs > 0) await sleep(delayMs);
  }
  if (a.cutAfter !== undefined && sent >= a.cutAfter && a.cutAfter < a.events.length) {
    req.socket.destroy();
    return;
  }
  res.end();
}

function answerKind(c: Choice): string {
  return c.fault ? `fault:${c.fault.kind}` : 'reply';
}

function statusOf(a: Answer): number {
  return a.kind === 'destroy' ? 0 : a.status;
}

export async function startMockProvider(opts: MockProviderOptions): Promise<MockProvider> {
  const host = opts.host ?? '127.0.0.1';
  if (!LOOPBACK.test(host)) throw new Error(`The mock provider binds to loopback only, not ${host}.`);
  const protocols = opts.protocols ?? PROTOCOLS;
  const maxRequests = opts.maxRequests ?? 2000;
  const maxBody = opts.maxBodyBytes ?? 64 * 1024 * 1024;
  const delay = Math.min(1000, Math.max(0, opts.eventDelayMs ?? 0));
  const player = new ScriptPlayer(opts.script);
  const recorder = new Recorder(opts.recordPath ?? null);
  const requests: CapturedRequest[] = [];
  const sockets = new Set<Socket>();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const method = req.method ?? 'GET';
    const fullPath = req.url ?? '/';
    const path = fullPath.split('?')[0] ?? '/';
    if (requests.length >= maxRequests) {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { type: 'mock_limit', message: `The mock provider answers at most ${maxRequests} requests.` } }));
      return;
    }
    const raw = await readBody(req, maxBody);
    const seq = requests.length;
    if (raw === 'too-large') {
      res.writeHead(413, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { type: 'request_too_large', message: `Body over ${maxBody} bytes.` } }));
      return;
    }
    const found = findRoute(protocols, method, path);
    const record = (protocol: string | null, answer: CapturedRequest['answer']): void => {
      const c = captureOf({ seq, method, path: fullPath, rawHeaders: req.rawHeaders, body: raw, protocol, answer });
      requests.push(c);
      recorder.append(c);
    };
    if (!found) {
      record(null, { step: null, label: null, status: 404, kind: 'no_route' });
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { type: 'not_found', message: `The mock provider has no route ${method} ${path}.` } }));
      return;
    }
    const text = (decodeBody(raw, (req.headers['content-encoding'] as string | undefined) ?? null) ?? raw).toString('utf8');
    let body: unknown;
    try {
      body = JSON.parse(text) as unknown;
    } catch {
      body = null;
    }
    const digest = found.adapter.digest(body, text);
    const ctx: RenderContext = { seq, bodyBytes: Buffer.byteLength(text), digest, body };
    if (found.route.role === 'aux' && found.adapter.aux) {
      const a = found.adapter.aux(found.route, ctx);
      record(found.adapter.id, { step: null, label: null, status: statusOf(a), kind: 'aux' });
      await send(req, res, a, 0);
      return;
    }
    const choice = player.choose(digest);
    const a = choice.fault ? found.adapter.fault(choice.fault, ctx) : found.adapter.reply(choice.reply, ctx);
    record(found.adapter.id, { step: choice.step, label: choice.label, status: statusOf(a), kind: answerKind(choice) });
    await send(req, res, a, delay);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { type: 'mock_internal', message: err instanceof Error ? err.message : String(err) } }));
      } else {
        res.destroy();
      }
    });
  });
  server.keepAliveTimeout = 5_000;
  server.headersTimeout = 30_000;
  server.requestTimeout = 120_000;
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    requests,
    player,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
