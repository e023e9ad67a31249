import { layered } from '../src/shared/strategies/layered';
import type { SourceItem, SourceView, StrategyResult } from '../src/shared/strategies/types';
import { loadEncoder } from '../src/main/tokens/encoder';
import { fork } from 'node:child_process';
import { Agent, request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { ScriptInput } from '../src/main/mock';
import { startMockProvider } from '../src/main/mock';
import { mockAnswerer, openSummarizer } from '../src/main/rerun/summarizer';
import { spread, type Spread } from './stats';

/**
 * The re-run figures (docs/rerun.md): cosh's MapReduce with 4 concurrent maps against the
 * in-process mock at a fixed latency, against the same run with 1 map at a time (same process, same
 * source, same mock).
 *   wall(4) / wall(1) ≤ 0.3
 *   our overhead per request = (wall(1) − requests × latency − the mock's own work) / requests ≤ 5 ms
 * and, beside it, the overhead beyond a bare client: the same request bodies sent one after another
 * with node:http (keep-alive, no SDK, no strategy) to the same mock, which shows what this machine's
 * loopback and wake-ups cost any client at all. Each figure is the median of `runs` rounds.
 * Maps get a short scripted answer so reductions stay one level (what is measured is scheduling, not
 * the mock's summary sizes); the final reduction gets the extractive mock summary, the audit PASS.
 * The mock runs in a child process, as a real provider would be elsewhere: its own parsing and
 * streaming are the provider's time, not ours.
 */

const MAP_SCRIPT: ScriptInput = {
  steps: [
    {
      label: 'map',
      when: { systemContains: 'You summarise one segment' },
      times: 0,
      reply: { content: [{ type: 'text', text: '## Objective\nChecks of this segment.' }] },
    },
  ],
};

/** In the child (`bench.js --mock-child LATENCY`): serve the mock until the parent goes away. */
export async function mockChild(argv: readonly string[]): Promise<void> {
  let workMs = 0;
  const mock = await startMockProvider({
    script: { steps: [] },
    answer: mockAnswerer(MAP_SCRIPT),
    latencyMs: Number(argv[0] ?? 0),
    maxRequests: 1_000_000,
    onServed: (ms) => {
      workMs += ms;
    },
  });
  process.send?.({ url: mock.url });
  // The parent asks how much of the time was the mock's own work (reset on each ask).
  process.on('message', () => {
    process.send?.({ workMs });
    workMs = 0;
  });
  process.on('disconnect', () => void mock.dispose().then(() => process.exit(0)));
}

interface MockChild {
  readonly url: string;
  /** The mock's own work since the last call, in ms. */
  work(): Promise<number>;
  stop(): void;
}

async function startMockChild(latencyMs: number): Promise<MockChild> {
  // The entry script (dist/bench.js, or the file tsx runs) answers --mock-child; see bench.ts.
  const child = fork(process.argv[1] ?? fileURLToPath(import.meta.url), ['--mock-child', String(latencyMs)], { stdio: 'inherit' });
  const url = await new Promise<string>((res, rej) => {
    child.once('message', (m) => res((m as { url: string }).url));
    child.once('exit', (code) => rej(new Error(`the mock child exited (${code ?? 'signal'}) before listening`)));
  });
  return {
    url,
    work: () =>
      new Promise<number>((res) => {
        child.once('message', (m) => res((m as { workMs: number }).workMs));
        child.send('work');
      }),
    stop: () => child.disconnect(),
  };
}

export const RERUN_TARGET_RATIO = 0.3;
export const RERUN_TARGET_OVERHEAD_MS = 5;

export interface RerunBenchResult {
  readonly latencyMs: number;
  readonly maps: number;
  readonly rounds: number;
  readonly requests: { readonly sequential: number; readonly concurrent: number };
  readonly wallMs: { readonly sequential: Spread; readonly concurrent: Spread };
  readonly ratio: Spread;
  /** Beyond the mock's nominal latency and its own measured work: the target's figure. */
  readonly overheadPerRequestMs: Spread;
  /** Beyond a bare node:http client sending the same bodies to the same mock. */
  readonly overheadBeyondBareClientMs: Spread;
  /** A bare client's time per request beyond the nominal latency (loopback, wake-ups, the mock). */
  readonly bareClientMs: Spread;
  readonly pass: { readonly ratio: boolean; readonly overhead: boolean };
}

export function source(items: number): SourceView {
  const out: SourceItem[] = [
    { id: 'u0', role: 'user', blocks: [{ type: 'text', text: 'Audit every module under src/ and fix the failing checks.' }], seq: 0 },
  ];
  for (let i = 1; i <= items; i++) {
    const body = Array.from({ length: 40 }, (_, k) => `src/module${i}/file${k}.ts:${k + 1}: check_${i}_${k} returned ${i * 1000 + k}`).join(
      '\n',
    );
    out.push({
      id: `a${i}`,
      role: 'assistant',
      blocks: [{ type: 'tool_call', id: `c${i}`, name: 'run_checks', input: JSON.stringify({ dir: `src/module${i}` }) }],
      seq: i * 2 - 1,
    });
    out.push({
      id: `t${i}`,
      role: 'tool',
      blocks: [{ type: 'tool_result', callId: `c${i}`, content: [{ type: 'text', text: body }] }],
      seq: i * 2,
    });
  }
  return {
    system: [{ type: 'text', text: 'You are a coding agent.' }],
    tools: null,
    items: out,
    route: { model: 'bench' },
    reportedInputTokens: null,
  };
}

interface Once {
  readonly wallMs: number;
  readonly result: StrategyResult;
  /** What each request sent, in order (for the bare client). */
  readonly sent: readonly { readonly url: string; readonly body: string }[];
}

async function once(view: SourceView, concurrency: number, url: string, count: (t: string) => number): Promise<Once> {
  const handle = await openSummarizer({
    models: [{ provider: 'mock', model: 'bench', baseUrl: url, params: { maxOutput: 1_000 }, window: 6_000 }],
  });
  try {
    const t0 = performance.now();
    const result = await layered.run({
      source: view,
      budget: { window: 220_000, maxOutput: null },
      count,
      summarizer: handle.summarizer,
      signal: new AbortController().signal,
      options: { concurrency, forceMapReduce: true },
    });
    const wallMs = performance.now() - t0;
    return { wallMs, result, sent: result.calls.flatMap((c) => handle.ledger.sentFor(c)) };
  } finally {
    await handle.dispose();
  }
}

/** The bodies sent again, one after another, by node:http alone; total ms. */
async function bareClient(sent: Once['sent']): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const post = (url: string, body: string): Promise<void> =>
    new Promise((resolve, reject) => {
      const req = httpRequest(
        url,
        {
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': 'no-key' },
        },
        (res) => {
          res.resume();
          res.on('end', resolve);
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  try {
    const t0 = performance.now();
    for (const s of sent) await post(s.url, s.body);
    return performance.now() - t0;
  } finally {
    agent.destroy();
  }
}

export async function runRerunBench(log: (s: string) => void, rounds = 3, latencyMs = 50, items = 512): Promise<RerunBenchResult> {
  const encoder = await loadEncoder('o200k_base');
  const count = (t: string): number => encoder.count(t);
  const view = source(items);
  const mock = await startMockChild(latencyMs);
  const seqWall: number[] = [];
  const conWall: number[] = [];
  const ratios: number[] = [];
  const overheads: number[] = [];
  const beyondBare: number[] = [];
  const bare: number[] = [];
  let maps = 0;
  let requests = { sequential: 0, concurrent: 0 };
  try {
    await once(source(8), 4, mock.url, count); // warm the SDK, the encoder memo and the JIT
    for (let r = 0; r < rounds; r++) {
      await mock.work();
      const seq = await once(view, 1, mock.url, count);
      const mockWork = await mock.work();
      const bareMs = await bareClient(seq.sent);
      const con = await once(view, 4, mock.url, count);
      for (const [name, run] of [
        ['sequential', seq],
        ['concurrent', con],
      ] as const) {
        if (run.result.outcome !== 'committed') throw new Error(`rerun bench: the ${name} run did not commit: ${run.result.error ?? ''}`);
      }
      maps = con.result.mapreduce?.segments.filter((s) => s.status === 'accepted').length ?? 0;
      requests = { sequential: seq.result.calls.length, concurrent: con.result.calls.length };
      const n = requests.sequential;
      seqWall.push(seq.wallMs);
      conWall.push(con.wallMs);
      ratios.push(con.wallMs / seq.wallMs);
      // Ours = everything but the mock: its fixed latency and its own work on each request (measured in the child).
      overheads.push((seq.wallMs - n * latencyMs - mockWork) / n);
      beyondBare.push((seq.wallMs - bareMs) / n);
      bare.push(bareMs / seq.sent.length - latencyMs);
      const inCalls = seq.result.calls.reduce((x, c) => x + c.latencyMs, 0);
      log(
        `round ${r + 1}: ${maps} maps, mock latency ${latencyMs} ms: sequential ${seq.wallMs.toFixed(0)} ms (${n} requests, ${inCalls.toFixed(0)} ms of it inside calls, ${mockWork.toFixed(0)} ms the mock's own work), bare client ${bareMs.toFixed(0)} ms, 4 concurrent ${con.wallMs.toFixed(0)} ms (${requests.concurrent} requests)`,
      );
    }
  } finally {
    mock.stop();
  }
  const ratio = spread(ratios);
  const overhead = spread(overheads);
  return {
    latencyMs,
    maps,
    rounds,
    requests,
    wallMs: { sequential: spread(seqWall), concurrent: spread(conWall) },
    ratio,
    overheadPerRequestMs: overhead,
    overheadBeyondBareClientMs: spread(beyondBare),
    bareClientMs: spread(bare),
    pass: { ratio: ratio.median <= RERUN_TARGET_RATIO, overhead: overhead.median <= RERUN_TARGET_OVERHEAD_MS },
  };
}
