import {
  Agent as HttpAgent,
  createServer,
  request as httpRequest,
  type ClientRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CapturedError } from '../capture/format';
import { BodyTap } from './body-tap';
import type { CaptureFile } from './capture-file';
import { redactPath } from '../capture/redact';
import { capturedHeaders } from './credentials';
import { endToEnd, rawHeader } from './headers';
import { bodyJson, eventsJson, Slots } from './line';
import { route, upstreamText, type Upstreams } from './routes';
import { spoolDir, type SpoolDir } from './spool';
import type { RecordStats } from './stats';

/*
 * The recording reverse proxy. Written on node:http / node:https directly, not on a proxy
 * library: the job is to be byte-exact and transparent (bodies streamed with back-pressure in
 * both directions, header order and case kept, a cut upstream stream cut for the client the same
 * way, no timeout of its own) while tapping every chunk for the capture — the details a generic
 * proxy library decides for you (header rewriting, buffering, error answers) are the ones that
 * matter here.
 *
 * Each exchange is written to the capture when it ends (./capture-file.ts serialises the lines).
 */

export interface RecordingProxyOptions {
  readonly upstreams: Upstreams;
  readonly capture: CaptureFile;
  readonly stats: RecordStats;
  /** Default 0: any free port. Always 127.0.0.1. */
  readonly port?: number;
  /** Called after each exchange is written, or failed to be (tests). */
  readonly onExchange?: (e: { readonly seq: number; readonly status: number | null; readonly error: CapturedError | null }) => void;
  /** A capture line could not be written (reported once per failure; the proxy keeps forwarding). */
  readonly onWriteError?: (err: Error) => void;
}

export interface RecordingProxy {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** Stops accepting; waits up to `graceMs` for exchanges in flight, cuts the rest (recorded as cut by the proxy), writes them, removes temporary files. */
  close(graceMs: number): Promise<void>;
}

interface Flight {
  /** Ends the exchange now, as cut by the proxy. */
  cut(): void;
  readonly done: Promise<void>;
}

/**
 * Bytes queued for a slow side before the other side is paused. Node's own mark (16 KiB) is less
 * than one socket read (64 KiB), which would pause and resume the sender on every chunk; this
 * bounds what one exchange queues while sparing that round trip.
 */
const PAUSE_BYTES = 1024 * 1024;

const JSON_HEADERS = { 'content-type': 'application/json' };

function proxyError(res: ServerResponse, status: number, type: string, message: string): void {
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return;
  }
  res.writeHead(status, JSON_HEADERS);
  res.end(JSON.stringify({ error: { type, message } }));
}

const ms = (t: number): number => Math.round(t * 1000) / 1000;

export async function startRecordingProxy(opts: RecordingProxyOptions): Promise<RecordingProxy> {
  // A private folder (mkdtemp makes it 0700) for bodies too large to hold in memory.
  const tmp = mkdtempSync(join(tmpdir(), 'palimpsest-record-'));
  const dir: SpoolDir = spoolDir(tmp);
  const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
  const flights = new Set<Flight>();
  const sockets = new Set<Socket>();
  let seq = 0;
  let closing = false;

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const t0 = performance.now();
    const startedAt = new Date().toISOString();
    if (closing) {
      req.resume();
      proxyError(res, 503, 'palimpsest_closing', 'The recording proxy is shutting down.');
      return;
    }
    const r = route(req.url ?? '/', opts.upstreams);
    if (!r) {
      req.resume();
      proxyError(
        res,
        404,
        'palimpsest_no_route',
        'No provider prefix: send requests to /anthropic/…, /openai/… or /gemini/… of this proxy.',
      );
      return;
    }
    // Node adds a Date header to every response of its own: the client must get the upstream's only.
    res.sendDate = false;
    const n = seq++;
    opts.stats.started();
    const upstream = r.upstream;
    const secure = upstream.protocol === 'https:';
    const forwarded = endToEnd(req.rawHeaders, upstream.host);
    const reqTap = new BodyTap({ dir, contentEncoding: rawHeader(req.rawHeaders, 'content-encoding'), sse: false, t0 });
    let respTap: BodyTap | null = null;
    let up: IncomingMessage | null = null;
    let ttfb: number | null = null;
    let error: CapturedError | null = null;
    let finished = false;
    let resolveDone!: () => void;
    const done = new Promise<void>((ok) => (resolveDone = ok));

    const upReq: ClientRequest = (secure ? httpsRequest : httpRequest)({
      protocol: upstream.protocol,
      hostname: upstream.hostname.replace(/^\[|\]$/g, ''),
      port: upstream.port || (secure ? 443 : 80),
      method: req.method,
      path: r.path,
      headers: forwarded.flat(),
      agent: secure ? agents.https : agents.http,
      ...(secure ? { servername: upstream.hostname } : {}),
    });

    const finish = (err: CapturedError | null): void => {
      if (finished) return;
      finished = true;
      error ??= err;
      // The flight stays listed until its line is written: closing waits for that too.
      void write().finally(() => {
        flights.delete(flight);
        resolveDone();
      });
    };

    const write = async (): Promise<void> => {
      await reqTap.end();
      if (respTap) await respTap.end();
      const slots = new Slots();
      const complete = error === null && up !== null && up.complete;
      const events = respTap ? eventsJson(respTap, slots) : undefined;
      // An event stream's body is its events, unless it was compressed: then the bytes as sent are kept too.
      const withBody = respTap !== null && respTap.keepsBody;
      // Shaped as CapturedExchange (../capture/format.ts), with placeholders for the texts ./line.ts streams in.
      const exchange = {
        type: 'exchange',
        seq: n,
        provider: r.provider,
        upstream: upstreamText(upstream),
        method: req.method ?? 'GET',
        path: redactPath(r.path),
        startedAt,
        request: { headers: capturedHeaders(forwarded.flat()), body: bodyJson(reqTap, slots) },
        response:
          up && respTap
            ? {
                status: up.statusCode ?? 0,
                headers: capturedHeaders(up.rawHeaders),
                ...(events !== undefined ? { events } : {}),
                ...(withBody ? { body: bodyJson(respTap, slots) } : {}),
                complete,
              }
            : null,
        error,
        timings: { ttfbMs: ttfb === null ? null : ms(ttfb), totalMs: ms(performance.now() - t0) },
      };
      opts.stats.exchange(exchange.response?.status ?? null, error !== null);
      try {
        await opts.capture.append(slots.pieces(exchange));
      } catch (err: unknown) {
        opts.onWriteError?.(err instanceof Error ? err : new Error(String(err)));
      } finally {
        reqTap.dispose();
        respTap?.dispose();
      }
      opts.onExchange?.({ seq: n, status: exchange.response?.status ?? null, error });
    };

    const flight: Flight = {
      cut() {
        if (finished) return;
        upReq.destroy();
        res.destroy();
        finish({ side: 'proxy', code: 'CLOSING', message: 'the proxy was closing and the exchange had not ended' });
      },
      done,
    };
    flights.add(flight);
    // Small writes (the head, then the body) go out at once, not held for the previous one's acknowledgement.
    upReq.setNoDelay(true);

    // Client → upstream, with back-pressure: the client is paused while the upstream cannot take more.
    req.on('data', (c: Buffer) => {
      reqTap.write(c);
      opts.stats.up(c.length);
      if (!upReq.write(c) && upReq.writableLength > PAUSE_BYTES) req.pause();
    });
    upReq.on('drain', () => req.resume());
    req.on('end', () => upReq.end());

    upReq.on('error', (err: NodeJS.ErrnoException) => {
      if (finished) return;
      if (up) return; // A failure after the response began is handled on the response.
      const what = `${upstreamText(upstream)} could not be reached: ${err.message}`;
      proxyError(res, 502, 'palimpsest_upstream_unreachable', what);
      finish({ side: 'upstream', code: err.code ?? null, message: what });
    });

    upReq.on('response', (u: IncomingMessage) => {
      up = u;
      ttfb = performance.now() - t0;
      const type = rawHeader(u.rawHeaders, 'content-type') ?? '';
      respTap = new BodyTap({
        dir,
        contentEncoding: rawHeader(u.rawHeaders, 'content-encoding'),
        sse: /^\s*text\/event-stream\b/i.test(type),
        t0,
      });
      const tap = respTap;
      if (!res.destroyed) res.writeHead(u.statusCode ?? 502, u.statusMessage, endToEnd(u.rawHeaders).flat());
      // Headers go out now, not with the first body byte: a stream that waits before its first event must still look started.
      res.flushHeaders();
      u.on('data', (c: Buffer) => {
        tap.write(c);
        opts.stats.down(c.length);
        if (!res.write(c) && res.writableLength > PAUSE_BYTES) u.pause();
      });
      res.on('drain', () => u.resume());
      u.on('end', () => {
        res.end();
        finish(null);
      });
      u.on('close', () => {
        if (u.complete) return;
        // The upstream cut the body: the client's response is cut the same way, not ended cleanly.
        res.destroy();
        finish({ side: 'upstream', code: 'ECONNRESET', message: 'the upstream closed the connection before the response was complete' });
      });
      u.on('error', () => undefined); // Reported by 'close' above.
    });

    res.on('close', () => {
      if (res.writableFinished || finished) return;
      // The client went away first: the upstream request is abandoned and the exchange written as it stands.
      upReq.destroy();
      finish({
        side: 'client',
        code: null,
        message: up ? 'the client disconnected before the response was complete' : 'the client disconnected before the response began',
      });
    });
    // A client reset ends with res 'close' (above); these only keep an unhandled 'error' from ending the process.
    req.on('error', () => undefined);
    res.on('error', () => undefined);
  };

  const server: Server = createServer(handle);
  // No timeout of the proxy's own: a model may think for minutes before its first byte; the client decides.
  server.requestTimeout = 0;
  server.headersTimeout = 0;
  server.keepAliveTimeout = 5_000;
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    async close(graceMs) {
      closing = true;
      const closed = new Promise<void>((ok) => server.close(() => ok()));
      server.closeIdleConnections();
      const inFlight = [...flights];
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(inFlight.map((f) => f.done)), new Promise((ok) => (timer = setTimeout(ok, graceMs)))]);
      clearTimeout(timer);
      const left = [...flights];
      for (const f of left) f.cut();
      await Promise.all(left.map((f) => f.done));
      for (const s of sockets) s.destroy();
      await closed;
      agents.http.destroy();
      agents.https.destroy();
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}
