import { layered } from '../src/shared/strategies/layered';
import type { SourceItem, SourceView, StrategyResult } from '../src/shared/strategies/types';
import { loadEncoder } from '../src/main/tokens/encoder';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ScriptInput } from '../src/main/mock';
import { startMockProvider } from '../src/main/mock';
import { mockAnswerer, openSummarizer } from '../src/main/rerun/summarizer';

/**
 * Issue #8's figures: seed 001's MapReduce with 4 concurrent maps against the in-process mock at a
 * fixed latency, against the same run with 1 map at a time (same process, same source, same mock).
 *   wall(4) / wall(1) ≤ 0.3
 *   our overhead per request = (wall(1) − requests × latency − the mock's own work) / requests ≤ 5 ms
 * Maps get a short scripted answer so reductions stay one level (what is measured is scheduling, not
 * the mock's summary sizes); the final reduction gets the extractive mock summary, the audit PASS.
 * The mock runs in a child process, as a real provider would be elsewhere: its own parsing and
 * streaming are the provider's time, not ours.
 */

const MAP_SCRIPT: ScriptInput = {
  steps: [{ label: 'map', when: { systemContains: 'You summarise one segment' }, times: 0, reply: { content: [{ type: 'text', text: '## Objective\nChecks of this segment.' }] } }],
};

/** In the child (`bench.js --mock-child LATENCY`): serve the mock until the parent goes away. */
export async function mockChild(argv: readonly string[]): Promise<void> {
  let workMs = 0;
  const mock = await startMockProvider({
    script: { steps: [] }, answer: mockAnswerer(MAP_SCRIPT), latencyMs: Number(argv[0] ?? 0), maxRequests: 1_000_000,
    onServed: (ms) => { workMs += ms; },
  });
  process.send?.({ url: mock.url });
  // The parent asks how much of the time was the mock's own work (reset on each ask).
  process.on('message', () => {
    process.send?.({ workMs });
    workMs = 0;
  });
  process.on('disconnect', () => void mock.close().then(() => process.exit(0)));
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
    work: () => new Promise<number>((res) => {
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
  readonly requests: { readonly sequential: number; readonly concurrent: number };
  readonly wallMs: { readonly sequential: number; readonly concurrent: number };
  readonly ratio: number;
  readonly overheadPerRequestMs: number;
  readonly pass: { readonly ratio: boolean; readonly overhead: boolean };
}

export function source(items: number): SourceView {
  const out: SourceItem[] = [{ id: 'u0', role: 'user', blocks: [{ type: 'text', text: 'Audit every module under src/ and fix the failing checks.' }], seq: 0 }];
  for (let i = 1; i <= items; i++) {
    const body = Array.from({ length: 40 }, (_, k) => `src/module${i}/file${k}.ts:${k + 1}: check_${i}_${k} returned ${i * 1000 + k}`).join('\n');
    out.push({ id: `a${i}`, role: 'assistant', blocks: [{ type: 'tool_call', id: `c${i}`, name: 'run_checks', input: JSON.stringify({ dir: `src/module${i}` }) }], seq: i * 2 - 1 });
    out.push({ id: `t${i}`, role: 'tool', blocks: [{ type: 'tool_result', callId: `c${i}`, content: [{ type: 'text', text: body }] }], seq: i * 2 });
  }
  return { system: [{ type: 'text', text: 'You are a coding agent.' }], tools: null, items: out, route: { model: 'bench' }, reportedInputTokens: null };
}

async function once(view: SourceView, concurrency: number, url: string, count: (t: string) => number): Promise<{ wallMs: number; result: StrategyResult }> {
  const handle = await openSummarizer({ models: [{ provider: 'mock', model: 'bench', baseUrl: url, params: { maxOutput: 1_000 }, window: 6_000 }] });
  try {
    const t0 = performance.now();
    const result = await layered.run({
      source: view, budget: { window: 220_000, maxOutput: null }, count, summarizer: handle.summarizer, signal: new AbortController().signal,
      options: { concurrency, forceMapReduce: true },
    });
    return { wallMs: performance.now() - t0, result };
  } finally {
    await handle.dispose();
  }
}

export async function runRerunBench(log: (s: string) => void, latencyMs = 50, items = 512): Promise<RerunBenchResult> {
  const encoder = await loadEncoder('o200k_base');
  const count = (t: string): number => encoder.count(t);
  const view = source(items);
  const mock = await startMockChild(latencyMs);
  let seq: Awaited<ReturnType<typeof once>>;
  let con: Awaited<ReturnType<typeof once>>;
  let mockWork: number;
  try {
    await once(source(8), 4, mock.url, count); // warm the SDK, the encoder memo and the JIT
    await mock.work();
    seq = await once(view, 1, mock.url, count);
    mockWork = await mock.work();
    con = await once(view, 4, mock.url, count);
  } finally {
    mock.stop();
  }
  for (const [name, r] of [['sequential', seq], ['concurrent', con]] as const) {
    if (r.result.outcome !== 'committed') throw new Error(`rerun bench: the ${name} run did not commit: ${r.result.error ?? ''}`);
  }
  const maps = con.result.mapreduce?.segments.filter((s) => s.status === 'accepted').length ?? 0;
  const requests = { sequential: seq.result.calls.length, concurrent: con.result.calls.length };
  const ratio = con.wallMs / seq.wallMs;
  // Ours = everything but the mock: its fixed latency and its own work on each request (measured in the child).
  const overhead = (seq.wallMs - requests.sequential * latencyMs - mockWork) / requests.sequential;
  const inCalls = seq.result.calls.reduce((n, c) => n + c.latencyMs, 0);
  log(`layered MapReduce, ${maps} maps, mock latency ${latencyMs} ms: sequential ${seq.wallMs.toFixed(0)} ms (${requests.sequential} requests, ${inCalls.toFixed(0)} ms of it inside calls, ${mockWork.toFixed(0)} ms the mock's own work), 4 concurrent ${con.wallMs.toFixed(0)} ms (${requests.concurrent} requests)`);
  return {
    latencyMs, maps, requests, wallMs: { sequential: seq.wallMs, concurrent: con.wallMs }, ratio, overheadPerRequestMs: overhead,
    pass: { ratio: ratio <= RERUN_TARGET_RATIO, overhead: overhead <= RERUN_TARGET_OVERHEAD_MS },
  };
}
