import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startMockProvider, type ScriptInput } from '../src/main/mock';
import { CaptureFile } from '../src/main/record/capture-file';
import { startRecordingProxy } from '../src/main/record/proxy';
import { parseUpstreams } from '../src/main/record/routes';
import { RecordStats } from '../src/main/record/stats';
import { median } from './stats';

/**
 * `palimpsest record`'s figures, against the mock on loopback in one run (`npm run bench -- --only record`):
 *   added time to first byte: p99 through the proxy − p99 direct, small JSON answers   ≤ 2 ms
 *   SSE pass-through: a 50 MB event stream (many small events), first byte to last      ≥ 200 MB/s
 *   memory growth of the proxy's process while it streams a 50 MB response and takes
 *   a 20 MB request (peak RSS − RSS before)                                            ≤ 50 MB
 * The proxy runs in a child process (`bench.js --record-child UPSTREAM`), so its RSS is its own;
 * the mock and the client share this one. It writes a real capture (to a temporary folder).
 */

export const RECORD_TARGET_TTFB_MS = 2;
export const RECORD_TARGET_MBPS = 200;
export const RECORD_TARGET_GROWTH_MB = 50;

const MB = 1e6;
const TTFB_SAMPLES = 1000;
const BIG_TEXT_BLOCK = 'x'.repeat(4_000);
const BIG_BLOCKS = 12_500; // ≈ 50 MB of events once framed

const SCRIPT: ScriptInput = {
  steps: [
    {
      when: { lastUserContains: 'BIG' },
      times: 0,
      reply: { content: Array.from({ length: BIG_BLOCKS }, () => ({ type: 'text' as const, text: BIG_TEXT_BLOCK })) },
    },
  ],
  fallback: { content: [{ type: 'text', text: 'ok' }] },
};

/**
 * In the child: the proxy. Asked (with how many exchanges the bench has sent it), it waits until
 * that many are written to the capture, then answers its RSS, its peak RSS so far (the kernel's
 * figure, free to read) and the CPU time it has used — so a figure includes writing the capture.
 */
export async function recordChild(argv: readonly string[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'palimpsest-record-bench-'));
  const capture = await CaptureFile.create(
    join(dir, 'bench.capture.jsonl'),
    { writer: 'bench', startedAt: new Date().toISOString(), upstreams: {} },
    false,
  );
  let written = 0;
  let waiting: { readonly n: number; readonly answer: () => void }[] = [];
  const proxy = await startRecordingProxy({
    upstreams: parseUpstreams([argv[0] ?? '']),
    capture,
    stats: new RecordStats(),
    onExchange: () => {
      written++;
      const ready = waiting.filter((w) => w.n <= written);
      waiting = waiting.filter((w) => w.n > written);
      for (const w of ready) w.answer();
    },
  });
  process.send?.({ url: proxy.url });
  process.on('message', (m) => {
    const ask = m as ChildAsk;
    const answer = (): void => {
      if (ask.gc) (globalThis as { gc?: () => void }).gc?.();
      const cpu = process.cpuUsage();
      process.send?.({
        rss: process.memoryUsage.rss(),
        peak: process.resourceUsage().maxRSS * 1024,
        cpuMs: (cpu.user + cpu.system) / 1000,
      } satisfies ChildState);
    };
    if (ask.after <= written) answer();
    else waiting.push({ n: ask.after, answer });
  });
  process.on('disconnect', () => {
    void proxy
      .close(2000)
      .then(() => capture.dispose())
      .then(() => {
        rmSync(dir, { recursive: true, force: true });
        process.exit(0);
      });
  });
}

interface ChildAsk {
  readonly after: number;
  readonly gc: boolean;
}
interface ChildState {
  readonly rss: number;
  readonly peak: number;
  readonly cpuMs: number;
}

/**
 * `state(after)`: the child's figures once it has written `after` exchanges. `peak` is its highest
 * RSS since it started (getrusage), so the memory step must come last.
 */
interface Child {
  readonly url: string;
  state(after: number, gc?: boolean): Promise<ChildState>;
  stop(): void;
}

async function startChild(upstream: string, profDir: string | null): Promise<Child> {
  const execArgv = ['--expose-gc', ...(profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [])];
  const child = fork(process.argv[1] ?? fileURLToPath(import.meta.url), ['--record-child', upstream], { stdio: 'inherit', execArgv });
  const url = await new Promise<string>((ok, fail) => {
    child.once('message', (m) => ok((m as { url: string }).url));
    child.once('exit', (code) => fail(new Error(`the proxy child exited (${code ?? 'signal'}) before listening`)));
  });
  return {
    url,
    state: (after, gc = false) =>
      new Promise((ok) => {
        child.once('message', (m) => ok(m as ChildState));
        child.send({ after, gc } satisfies ChildAsk);
      }),
    stop: () => child.disconnect(),
  };
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** One request; resolves with the time to the response head and to the end (ms), and the body bytes. */
function timed(url: string, body: string | Buffer): Promise<{ ttfb: number; firstByte: number; end: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const ttfb = performance.now() - t0;
        let firstByte = 0;
        let bytes = 0;
        res.on('data', (c: Buffer) => {
          if (bytes === 0) firstByte = performance.now() - t0;
          bytes += c.length;
        });
        res.on('end', () => resolve({ ttfb, firstByte, end: performance.now() - t0, bytes }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const ask = (text: string, stream: boolean) =>
  JSON.stringify({ model: 'claude-bench', max_tokens: 10, stream, messages: [{ role: 'user', content: text }] });

function p99(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(s.length * 0.99) - 1)] as number;
}

export interface RecordBenchResult {
  /** `proxyCpuUs`: the proxy's CPU time (user + system) per exchange, its capture line included. */
  readonly ttfb: {
    readonly samples: number;
    readonly directP50: number;
    readonly proxyP50: number;
    readonly directP99: number;
    readonly proxyP99: number;
    readonly addedP99: number;
    readonly proxyCpuUs: number;
  };
  /** `proxyCpuMs`: the proxy's CPU time per stream (median), its capture line included; less bent by other load than MB/s. */
  readonly sse: {
    readonly bytes: number;
    readonly rounds: number;
    readonly directMBps: number;
    readonly proxyMBps: number;
    readonly proxyCpuMs: number;
  };
  readonly memory: {
    readonly baselineRss: number;
    readonly peakRss: number;
    readonly growthMB: number;
    readonly responseBytes: number;
    readonly requestBytes: number;
  };
  readonly pass: { readonly ttfb: boolean; readonly sse: boolean; readonly memory: boolean };
}

/** `profDir`: write a V8 CPU profile of the proxy's process there (bench --cpu-prof). */
export async function runRecordBench(log: (m: string) => void, rounds: number, profDir: string | null = null): Promise<RecordBenchResult> {
  const mock = await startMockProvider({ script: SCRIPT, maxRequests: 1_000_000, maxBodyBytes: 64 * 1024 * 1024 });
  const child = await startChild(mock.url, profDir);
  try {
    const direct = `${mock.url}/v1/messages`;
    const proxied = `${child.url}/anthropic/v1/messages`;
    let sent = 0;
    const viaProxy = (body: string): ReturnType<typeof timed> => {
      sent++;
      return timed(proxied, body);
    };
    const small = ask('hello', false);
    for (let i = 0; i < 100; i++) await (i % 2 ? timed(direct, small) : viaProxy(small));
    const d: number[] = [];
    const p: number[] = [];
    const cpu0 = (await child.state(sent)).cpuMs;
    // Alternated, so both see the same machine load.
    for (let i = 0; i < TTFB_SAMPLES; i++) {
      d.push((await timed(direct, small)).ttfb);
      p.push((await viaProxy(small)).ttfb);
    }
    const proxyCpuUs = (((await child.state(sent)).cpuMs - cpu0) * 1000) / TTFB_SAMPLES;
    const ttfb = {
      samples: TTFB_SAMPLES,
      directP50: median(d),
      proxyP50: median(p),
      directP99: p99(d),
      proxyP99: p99(p),
      addedP99: p99(p) - p99(d),
      proxyCpuUs,
    };
    log(
      `time to first byte, ${TTFB_SAMPLES} each: direct p50 ${ttfb.directP50.toFixed(3)} / p99 ${ttfb.directP99.toFixed(3)} ms; through the proxy p50 ${ttfb.proxyP50.toFixed(3)} / p99 ${ttfb.proxyP99.toFixed(3)} ms; proxy CPU ${proxyCpuUs.toFixed(0)} µs per exchange`,
    );

    const baseline = await child.state(sent, true);
    const big = ask('BIG', true);
    const dm: number[] = [];
    const pm: number[] = [];
    const pc: number[] = [];
    let bytes = 0;
    for (let i = 0; i < rounds; i++) {
      const a = await timed(direct, big);
      const c0 = (await child.state(sent)).cpuMs;
      const b = await viaProxy(big);
      pc.push((await child.state(sent)).cpuMs - c0);
      if (a.bytes !== b.bytes) throw new Error(`the proxy passed ${b.bytes} bytes, the mock sent ${a.bytes}`);
      bytes = b.bytes;
      dm.push(a.bytes / MB / ((a.end - a.firstByte) / 1000));
      pm.push(b.bytes / MB / ((b.end - b.firstByte) / 1000));
    }
    const sse = { bytes, rounds, directMBps: median(dm), proxyMBps: median(pm), proxyCpuMs: median(pc) };
    log(
      `SSE ${(bytes / MB).toFixed(1)} MB, ${rounds} round(s): direct ${sse.directMBps.toFixed(0)} MB/s, through the proxy ${sse.proxyMBps.toFixed(0)} MB/s; proxy CPU ${sse.proxyCpuMs.toFixed(0)} ms per stream (${(bytes / MB / (sse.proxyCpuMs / 1000)).toFixed(0)} MB per CPU second)`,
    );

    const request = ask(`BODY ${'y'.repeat(20 * MB)}`, false);
    await viaProxy(request);
    const after = await child.state(sent);
    const memory = {
      baselineRss: baseline.rss,
      peakRss: after.peak,
      growthMB: (after.peak - baseline.rss) / MB,
      responseBytes: bytes,
      requestBytes: Buffer.byteLength(request),
    };
    log(
      `proxy RSS ${(baseline.rss / MB).toFixed(0)} MB before, peak ${(after.peak / MB).toFixed(0)} MB while streaming the responses and a ${(memory.requestBytes / MB).toFixed(0)} MB request`,
    );
    return {
      ttfb,
      sse,
      memory,
      pass: {
        ttfb: ttfb.addedP99 <= RECORD_TARGET_TTFB_MS,
        sse: sse.proxyMBps >= RECORD_TARGET_MBPS,
        memory: memory.growthMB <= RECORD_TARGET_GROWTH_MB,
      },
    };
  } finally {
    child.stop();
    agent.destroy();
    await mock.dispose();
  }
}
