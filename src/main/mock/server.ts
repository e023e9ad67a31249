import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type Answerer, decide } from './decide';
import { PROTOCOLS } from './protocols';
import type { Answer, ProtocolAdapter, RenderContext, Route } from './protocols/types';
import { type CapturedRequest, Recorder, captureOf, decodeBody } from './record';
import { type Script, ScriptPlayer, type ScriptInput } from './script';
import { send } from './send';

/*
 * A local mock LLM provider for the fidelity suite, tests and re-runs. It binds to loopback only,
 * records every request (./record.ts) before answering it from an answerer (./decide.ts) or a script
 * (./script.ts), and speaks the wire protocols in ./protocols. Bounded: a maximum number of requests
 * (then 503), a maximum body size (then 413); no request waits on anything but its own body and the
 * delays asked for, and every delay ends when its client disconnects.
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
  /** Pause between SSE events, in ms (default 0; at most 1,000). A reply's own eventDelayMs wins. */
  readonly eventDelayMs?: number;
  /**
   * Fixed latency added before answering every request, in ms (default 0; at most 60,000), so a
   * benchmark can tell orchestration overhead from provider time.
   */
  readonly latencyMs?: number;
  /** Answers requests in code before the script is consulted (null falls through to the script). */
  readonly answer?: Answerer;
  /**
   * Called with the mock's own work on each request (reading, recording and deciding, in ms, before
   * the fixed latency and the stream), so a benchmark can tell provider time from the client's.
   */
  readonly onServed?: (workMs: number) => void;
}

export interface MockProvider {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** Every request recorded so far, in arrival order. */
  readonly requests: readonly CapturedRequest[];
  readonly player: ScriptPlayer;
  /** Requests being answered right now (body read, answer not yet finished or abandoned). */
  readonly active: number;
  dispose(): Promise<void>;
}

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|localhost)$/;

function findRoute(protocols: readonly ProtocolAdapter[], method: string, path: string): { adapter: ProtocolAdapter; route: Route } | null {
  for (const adapter of protocols) {
    for (const route of adapter.routes) if (route.method === method && route.path(path)) return { adapter, route };
  }
  return null;
}

function clamp(v: number | undefined, max: number): number {
  return Math.min(max, Math.max(0, v ?? 0));
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

function statusOf(a: Answer): number {
  return a.kind === 'destroy' ? 0 : a.status;
}

export async function startMockProvider(opts: MockProviderOptions): Promise<MockProvider> {
  const host = opts.host ?? '127.0.0.1';
  if (!LOOPBACK.test(host)) throw new Error(`The mock provider binds to loopback only, not ${host}.`);
  const protocols = opts.protocols ?? PROTOCOLS;
  const maxRequests = opts.maxRequests ?? 2000;
  const maxBody = opts.maxBodyBytes ?? 64 * 1024 * 1024;
  const delay = clamp(opts.eventDelayMs, 1000);
  const latency = clamp(opts.latencyMs, 60_000);
  const player = new ScriptPlayer(opts.script);
  const recorder = new Recorder(opts.recordPath ?? null);
  const requests: CapturedRequest[] = [];
  const sockets = new Set<Socket>();
  let active = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse, gone: AbortSignal): Promise<void> => {
    const t0 = performance.now();
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
      const a: Answer = {
        kind: 'json',
        status: 404,
        body: { error: { type: 'not_found', message: `The mock provider has no route ${method} ${path}.` } },
      };
      await send(req, res, a, { firstByteMs: latency, eventDelayMs: 0 }, gone);
      return;
    }
    const text = (decodeBody(raw, (req.headers['content-encoding'] as string | undefined) ?? null) ?? raw).toString('utf8');
    let body: unknown;
    try {
      body = JSON.parse(text) as unknown;
    } catch {
      body = null;
    }
    const digest = found.adapter.digest(body, text, fullPath);
    const ctx: RenderContext = { seq, bodyBytes: Buffer.byteLength(text), digest, body, path: fullPath };
    if (found.route.role === 'aux' && found.adapter.aux) {
      const a = found.adapter.aux(found.route, ctx);
      record(found.adapter.id, { step: null, label: null, status: statusOf(a), kind: 'aux' });
      await send(req, res, a, { firstByteMs: latency, eventDelayMs: 0 }, gone);
      return;
    }
    const d = decide(player, opts.answer, digest, { protocol: found.adapter.id, body });
    const a = d.fault ? found.adapter.fault(d.fault, ctx) : found.adapter.reply(d.reply, ctx);
    record(found.adapter.id, { step: d.step, label: d.label, status: statusOf(a), kind: d.kind });
    // A cut stream paces like the reply it starts as.
    const paced = d.reply ?? (d.fault?.kind === 'cut' ? d.fault.reply : undefined);
    opts.onServed?.(performance.now() - t0);
    await send(req, res, a, { firstByteMs: latency + (paced?.firstByteMs ?? 0), eventDelayMs: paced?.eventDelayMs ?? delay }, gone);
  };

  const server: Server = createServer((req, res) => {
    // Aborts every wait of this request when its connection closes (or once the answer is done).
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    active++;
    handle(req, res, gone.signal)
      .finally(() => active--)
      .catch((err: unknown) => {
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
    get active() {
      return active;
    },
    dispose: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
