// The token-counting bench (docs/tokens.md), run by `npm run bench` on the 100 MB session:
//
//   1. a sample of the session's own texts (the same strings for every counter) counted three ways on
//      one thread — Palimpsest's bounded encoder, raw js-tiktoken `encode`, gpt-tokenizer
//      `countTokens` (when installed) — with throughput and whether the counts agree;
//   2. the full count of the session through SessionTokens and the worker pool (target ≤ 10 s on
//      this 2-core machine), with memory;
//   3. figures of a view after a seek, from cached counts (target p99 ≤ 5 ms), and before counting
//      (the estimates shown at once).
import os from 'node:os';
import type { Block } from '../src/shared/model/content';
import { refParts } from '../src/shared/tokens/units';
import type { EncodingName } from '../src/shared/tokens/encoding';
import { SessionInspector } from '../src/main/session/inspector';
import { loadSession } from '../src/main/session/load';
import type { LoadedSession } from '../src/main/session/types';
import { ContentCountCache } from '../src/main/tokens/cache';
import { loadEncoder, loadTiktoken, newStats, utf8Length } from '../src/main/tokens/encoder';
import { createTokenCounter, defaultWorkerSpec } from '../src/main/tokens/pool';
import { SessionTokens } from '../src/main/tokens/service';

export const TARGET_FULL_COUNT_S = 10;
export const TARGET_SEEK_P99_MS = 5;
/** Bytes of text in the three-way comparison (raw js-tiktoken runs at ~1–3 MB/s). */
const SAMPLE_BYTES = 8e6;
const SEEKS = 1000;
const SEED = 20_251_129;

export interface CounterFigure {
  readonly name: string;
  /** Memory the counter added, its tables included (after a full GC): RSS and V8 heap, bytes. */
  readonly rssDelta?: number;
  readonly heapDelta?: number;
  readonly ms: number;
  readonly mbps: number;
  readonly tokens: number;
  /** Texts whose count differs from Palimpsest's encoder, and the summed absolute difference. */
  readonly differingTexts: number;
  readonly absDiff: number;
}

export interface Latency {
  readonly samples: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
}

export interface TokenBenchResult {
  readonly file: string;
  readonly encoding: EncodingName;
  readonly machine: { readonly cpus: number; readonly node: string };
  readonly sample: {
    readonly texts: number;
    readonly chars: number;
    readonly bytes: number;
    /** Texts left out of the raw js-tiktoken run because one piece is over 1 KB (it would stall). */
    readonly rawSkipped: number;
    readonly counters: readonly CounterFigure[];
    /** gpt-tokenizer was not installed: its row is missing. */
    readonly gptTokenizer: 'measured' | 'not installed' | 'failed';
    readonly gptTokenizerError?: string;
  };
  readonly full: {
    readonly workers: number;
    readonly counter: 'workers' | 'inline';
    readonly refs: number;
    readonly texts: number;
    /** Characters of text counted (the session's text, not its JSON). */
    readonly chars: number;
    readonly hydrated: number;
    readonly tokens: number;
    /** Wall time of countAll, pool start-up (workers loading their ranks) included. */
    readonly wallMs: number;
    readonly mcharsPerSec: number;
    /** Sum of the threads' counting time. */
    readonly countMs: number;
    readonly estimatedTokens: number;
    readonly rssBefore: number;
    readonly rssAfter: number;
    readonly maxRssDelta: number;
    readonly heapAfter: number;
    readonly contentCacheEntries: number;
    readonly pass: boolean;
  };
  readonly recountSameSession: { readonly wallMs: number };
  /** The same full count on this thread alone (an inline counter, a cold content cache): what the worker pool buys. */
  readonly inline: { readonly wallMs: number; readonly mcharsPerSec: number; readonly texts: number };
  readonly seek: {
    readonly requests: number;
    /** Views not shown before: units built, counts summed. */
    readonly cached: Latency;
    /** After report() built every view once: pure sums. */
    readonly afterReport: Latency;
    readonly reportMs: number;
    /** 1-minute load average when measured (other work on the same cores shows in the tail). */
    readonly loadAverage: number;
    readonly estimatesBeforeCounting: Latency;
    readonly pass: boolean;
  };
}

class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  int(n: number): number {
    // mulberry32
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  }
}

function latency(ms: number[]): Latency {
  const s = [...ms].sort((a, b) => a - b);
  const at = (p: number): number => s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? NaN;
  return { samples: s.length, p50: at(50), p95: at(95), p99: at(99), max: s[s.length - 1] ?? NaN };
}

const maxRss = (): number => process.resourceUsage().maxRSS * 1024;
const gc = (): void => (globalThis as { gc?: () => void }).gc?.();

/** The session's own texts, in log order, up to `bytes` (elided ones re-read from the file). */
async function sampleTexts(session: LoadedSession, tokens: SessionTokens, bytes: number): Promise<string[]> {
  const out: string[] = [];
  let n = 0;
  for (const spec of tokens.accountant.allRefs()) {
    let blocks: readonly Block[] | null = spec.blocks;
    if (spec.elided) {
      const e = await session.hydrate(spec.seq);
      blocks =
        e.kind === 'item' ? e.item.blocks : e.kind === 'mask' ? (e.reference ?? null) : e.kind === 'header' ? (e.system ?? null) : null;
    }
    for (const p of refParts(spec, blocks)) {
      out.push(p.text);
      n += utf8Length(p.text);
    }
    if (n >= bytes) break;
  }
  return out;
}

/** Tokens of a text; -1: left out of this counter's run. */
type CountFn = (text: string, index: number) => number;

async function gptTokenizer(encoding: EncodingName): Promise<CountFn | string> {
  // A computed specifier: the bundler leaves it alone, and a missing package is a result, not a build error.
  const specifier = ['gpt-tokenizer', 'encoding', encoding].join('/');
  try {
    const m = (await import(specifier)) as { countTokens: (text: string, options?: unknown) => number };
    // Special-token strings in session text are text, as for the other two.
    return (text: string) => m.countTokens(text, { disallowedSpecial: new Set<string>() });
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

function timeCounter(
  name: string,
  texts: readonly string[],
  bytes: number,
  count: CountFn,
  reference: Int32Array | null,
): { figure: CounterFigure; counts: Int32Array } {
  const counts = new Int32Array(texts.length).fill(-1);
  const t0 = performance.now();
  for (let i = 0; i < texts.length; i++) counts[i] = count(texts[i] as string, i);
  const ms = performance.now() - t0;
  let tokens = 0;
  let differingTexts = 0;
  let absDiff = 0;
  for (let i = 0; i < counts.length; i++) {
    const c = counts[i] as number;
    if (c < 0) continue;
    tokens += c;
    if (reference && c !== reference[i]) {
      differingTexts++;
      absDiff += Math.abs(c - (reference[i] as number));
    }
  }
  return { figure: { name, ms, mbps: bytes / 1e6 / (ms / 1000), tokens, differingTexts, absDiff }, counts };
}

/**
 * Runs the token bench on one session file (bench/data/s100mb.jsonl in `npm run bench`) and returns
 * its figures; progress lines go to `log`. Creates and closes its own worker pools.
 */
export async function runTokenBench(path: string, log: (line: string) => void): Promise<TokenBenchResult> {
  log(`loading ${path}`);
  const session = await loadSession(path);
  try {
    const inspector = new SessionInspector(session);
    const probe = new SessionTokens(inspector, { counter: null });
    const encoding = probe.encoding;

    // 1. Three counters on the same sample.
    let texts: string[] = await sampleTexts(session, probe, SAMPLE_BYTES);
    let bytes = 0;
    let chars = 0;
    for (const t of texts) {
      bytes += utf8Length(t);
      chars += t.length;
    }
    log(`sample: ${texts.length.toLocaleString('en-US')} texts, ${(bytes / 1e6).toFixed(1)} MB`);
    const mem = (): { rss: number; heap: number } => {
      gc();
      const m = process.memoryUsage();
      return { rss: m.rss, heap: m.heapUsed };
    };
    const delta = (a: { rss: number; heap: number }): { rssDelta: number; heapDelta: number } => {
      const b = mem();
      return { rssDelta: b.rss - a.rss, heapDelta: b.heap - a.heap };
    };
    let m0 = mem();
    const ours = await loadEncoder(encoding);
    const stats = newStats();
    const mineRun = timeCounter(`palimpsest (${ours.implementation})`, texts, bytes, (t) => ours.count(t, stats), null);
    const mine = { ...mineRun, figure: { ...mineRun.figure, ...delta(m0) } };
    log(`  ${mine.figure.name}: ${mine.figure.mbps.toFixed(1)} MB/s, ${mine.figure.tokens.toLocaleString('en-US')} tokens`);
    // Raw js-tiktoken uses the rank tables already loaded for the bounded encoder (its memory is above).
    const { bpe, patStr } = await loadTiktoken(encoding);
    m0 = mem();
    // Raw js-tiktoken is quadratic in a piece's length: texts with a piece over 1 KB are left out of its run.
    const re = new RegExp(patStr, 'gu');
    const rawOk = texts.map((t) => {
      re.lastIndex = 0;
      let m: RegExpExecArray | null;
      while ((m = re.exec(t)) !== null) if (m[0].length > 1024) return false;
      return true;
    });
    const rawSkipped = rawOk.filter((x) => !x).length;
    const rawBytes = texts.reduce((n, t, i) => (rawOk[i] ? n + utf8Length(t) : n), 0);
    const rawRun = timeCounter(
      'js-tiktoken encode (raw)',
      texts,
      rawBytes,
      (t, i) => (rawOk[i] ? bpe.encode(t, [], []).length : -1),
      mine.counts,
    );
    const raw = { ...rawRun, figure: { ...rawRun.figure, ...delta(m0) } };
    log(
      `  ${raw.figure.name}: ${raw.figure.mbps.toFixed(1)} MB/s, ${raw.figure.tokens.toLocaleString('en-US')} tokens, ${raw.figure.differingTexts} texts differ (${raw.figure.absDiff} tokens)`,
    );
    const counters: CounterFigure[] = [mine.figure, raw.figure];
    m0 = mem();
    const gpt = await gptTokenizer(encoding);
    let gptState: TokenBenchResult['sample']['gptTokenizer'] = 'not installed';
    let gptError: string | undefined;
    if (typeof gpt === 'function') {
      try {
        const g = timeCounter('gpt-tokenizer countTokens', texts, bytes, gpt, mine.counts);
        counters.push({ ...g.figure, ...delta(m0) });
        gptState = 'measured';
        log(
          `  ${g.figure.name}: ${g.figure.mbps.toFixed(1)} MB/s, ${g.figure.tokens.toLocaleString('en-US')} tokens, ${g.figure.differingTexts} texts differ (${g.figure.absDiff} tokens)`,
        );
      } catch (e) {
        gptState = 'failed';
        gptError = e instanceof Error ? e.message : String(e);
        log(`  gpt-tokenizer failed: ${gptError}`);
      }
    } else {
      gptError = gpt;
      log(`  gpt-tokenizer: not installed (${gpt.split('\n')[0]})`);
    }

    const sample = { texts: texts.length, chars, bytes, rawSkipped };
    texts = [];

    // 3a. Figures at once, before anything is counted.
    gc();
    const n = probe.state.requests.length;
    const rng = new Rng(SEED);
    const before: number[] = [];
    for (let k = 0; k < 100 && n > 0; k++) probe.request(rng.int(n));
    for (let k = 0; k < SEEKS && n > 0; k++) {
      const i = rng.int(n);
      const t0 = performance.now();
      probe.request(i);
      before.push(performance.now() - t0);
    }

    // 2. The full count, through the pool, from a cold content cache.
    gc();
    const workers = Math.max(1, Math.min(4, os.availableParallelism()));
    const counter = createTokenCounter({ size: workers });
    if (!defaultWorkerSpec())
      log('  no token worker script next to the bundle: counting inline (add token-worker to scripts/build-cli.mjs)');
    const cache = new ContentCountCache();
    const rssBefore = process.memoryUsage().rss;
    const maxBefore = maxRss();
    let full: TokenBenchResult['full'];
    let recountMs: number;
    let seekMs: number[] = [];
    const afterReportMs: number[] = [];
    let reportMs = 0;
    try {
      const tokens = new SessionTokens(inspector, { counter, cache });
      const run = await tokens.countAll();
      let total = 0;
      for (const spec of tokens.accountant.allRefs()) total += tokens.get(spec.ref)?.total ?? 0;
      const mem = process.memoryUsage();
      full = {
        workers: counter.threads,
        counter: counter.kind,
        refs: run.refs,
        texts: run.texts,
        chars: run.chars,
        hydrated: run.hydrated,
        tokens: total,
        wallMs: run.wallMs,
        mcharsPerSec: run.chars / 1e6 / (run.wallMs / 1000),
        countMs: run.countMs,
        estimatedTokens: run.encoder.estimatedTokens,
        rssBefore,
        rssAfter: mem.rss,
        maxRssDelta: maxRss() - maxBefore,
        heapAfter: mem.heapUsed,
        contentCacheEntries: cache.size,
        pass: run.wallMs <= TARGET_FULL_COUNT_S * 1000,
      };
      log(
        `full count: ${run.refs.toLocaleString('en-US')} refs, ${(run.chars / 1e6).toFixed(1)} M chars in ${(run.wallMs / 1000).toFixed(1)} s on ${counter.threads} ${counter.kind} (${full.mcharsPerSec.toFixed(1)} M chars/s), threads busy ${(run.countMs / 1000).toFixed(1)} s; RSS ${(rssBefore / 1e6).toFixed(0)} → ${(mem.rss / 1e6).toFixed(0)} MB`,
      );

      // The same session counted again by a new SessionTokens over the warm content cache (a re-open).
      const again = new SessionTokens(inspector, { counter, cache });
      recountMs = (await again.countAll()).wallMs;
      log(`recount from the content cache: ${(recountMs / 1000).toFixed(2)} s`);

      // 3b. A view after a seek: sums of cached counts. Measured in a steady state (the counting's
      // garbage collected, 100 seeks of warm-up), first on views never shown before, then again
      // after the report (the per-request table a UI shows once counting is done) built every view.
      gc();
      for (let k = 0; k < 100 && n > 0; k++) tokens.request(rng.int(n));
      for (let k = 0; k < SEEKS && n > 0; k++) {
        const i = rng.int(n);
        const t0 = performance.now();
        tokens.request(i);
        seekMs.push(performance.now() - t0);
      }
      const t0 = performance.now();
      tokens.report();
      reportMs = performance.now() - t0;
      gc();
      for (let k = 0; k < SEEKS && n > 0; k++) {
        const i = rng.int(n);
        const t1 = performance.now();
        tokens.request(i);
        afterReportMs.push(performance.now() - t1);
      }
    } finally {
      await counter.dispose();
    }
    // 2b. The same count with no worker: every text encoded on this thread.
    gc();
    const inlineRun = await new SessionTokens(inspector, {
      counter: createTokenCounter({ inline: true }),
      cache: new ContentCountCache(),
    }).countAll();
    const inline = { wallMs: inlineRun.wallMs, mcharsPerSec: inlineRun.chars / 1e6 / (inlineRun.wallMs / 1000), texts: inlineRun.texts };
    log(
      `full count on this thread alone (no worker): ${(inline.wallMs / 1000).toFixed(1)} s (${inline.mcharsPerSec.toFixed(1)} M chars/s), against ${(full.wallMs / 1000).toFixed(1)} s on ${full.workers} ${full.counter}`,
    );
    const cached = latency(seekMs);
    const afterReport = latency(afterReportMs);
    seekMs = [];
    log(
      `view after a seek (cached counts): p50 ${cached.p50.toFixed(2)} ms, p95 ${cached.p95.toFixed(2)} ms, p99 ${cached.p99.toFixed(2)} ms; ` +
        `after the report (${(reportMs / 1000).toFixed(1)} s for ${n.toLocaleString('en-US')} requests): p99 ${afterReport.p99.toFixed(2)} ms; before counting (estimates): p99 ${latency(before).p99.toFixed(2)} ms`,
    );
    return {
      file: path,
      encoding,
      machine: { cpus: os.availableParallelism(), node: process.version },
      sample: { ...sample, counters, gptTokenizer: gptState, ...(gptError ? { gptTokenizerError: gptError.split('\n')[0] } : {}) },
      full,
      recountSameSession: { wallMs: recountMs },
      inline,
      seek: {
        requests: n,
        cached,
        afterReport,
        reportMs,
        estimatesBeforeCounting: latency(before),
        pass: cached.p99 <= TARGET_SEEK_P99_MS,
        loadAverage: os.loadavg()[0] ?? 0,
      },
    };
  } finally {
    await session.dispose();
  }
}
