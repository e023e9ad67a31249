// The performance bench of docs/performance.md, in one run on the same files:
//
//   npm run bench                     all four data files (generated on first use)
//   npm run bench -- --quick          only the 10 MB file, to try things out
//   npm run bench -- --only e1m       one file (s10mb, s100mb, s1gb, e1m)
//   npm run bench -- --runs 5         rounds of each timed loop (default 3, files under 50 MB at least 9; the median is reported)
//   npm run bench -- --cpu-prof       also write a V8 CPU profile of each child to bench/data/prof/
//   npm run bench -- --only ls        only `palimpsest ls` against ccusage (--no-ccusage: ls alone)
//   npm run bench -- --only index     only the session index and search on a ~0.1 GB library (--index-gb 1: ~1 GB; bench/index.ts)
//   npm run bench -- --only claude200mb   only the Claude Code importer on a ~200 MB session
//   npm run bench -- --only rerun     only the re-run's MapReduce scheduling against the mock (bench/rerun.ts; --runs rounds)
//   npm run bench -- --only record    only `palimpsest record`'s proxy against the mock (bench/record.ts)
//   npm run bench -- --only joined    only opening a ~3 MB session with its capture against alone (bench/joined.ts)
//   npm run bench -- --only firstview only s100mb's first view in the host against opening it whole (bench/first-view.ts)
//   npm run bench -- --only commands  only the CLI's commands on real 2–5 MB sessions, beside `node -e 0` (bench/commands.ts)
//   npm run bench -- --only ui        only the session view's figures in Chromium (bench/ui-bench.ts; builds the renderer first)
//   npm run bench -- --only health    only the health report's data on a generated library of 3,000 sessions, cold and warm (bench/health.ts)
//   npm run bench -- --only export    only `export --html` of the largest committed real session, with and without --redact (bench/export.ts)
//
// Also, on s100mb: token counting (bench/tokens.ts); and, unless --quick: `palimpsest ls` on a
// ~90-session Claude Code tree against `ccusage session --json --offline` (bench/ls.ts).
//
// Each trick of docs/performance.md is measured with and without in the same run, and the table
// "With and without" sums them up: the reader with and without reading ahead (same rounds); the
// compact log in ranges, on one thread, and the array log (same rounds, when the default load reads
// ranges); the idle objects kept per load class and none (children in turns, small files); the
// token count on workers and on this thread (bench/tokens.ts); `ls` through each loader (bench/ls.ts).
//
// Each data file is measured in its own child process (so peak RSS is per file): the bare loop
// (1 MiB reads, split on 0x0A with Buffer.indexOf, toString per line, JSON.parse), the reader alone,
// and loadSession (read + import, as the app loads: the compact log and parallel ranges for a large
// Palimpsest file) followed by replay, alternately, `--runs` times each — and in the same rounds the
// array log on one thread (`{ compactLog: false, threads: 1 }`) and its replay; then, on the
// last loaded session, the model view at 1,000 seeded random requests and every view in order, the
// diagnostics rules, and (with every view in order) a search, the token report before counting and
// `palimpsest inspect --json` in a child process. The child runs with `--retain-maps-for-n-gc`
// raised (RETAIN_MAPS_FOR_N_GC says why); for files under 50 MB the rounds are run again in a child
// with V8's default, and the first bare loop and the first load of fresh processes are timed too.
// Results go to the terminal and to bench/data/latest.json (not committed).
import { fork, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readJsonl } from '../src/main/reader';
import { SessionInspector } from '../src/main/session/inspector';
import { CompactLog } from '../src/main/session/compact-log';
import { loadSession } from '../src/main/session/load';
import { startRangeJobs } from '../src/main/session/parallel-load';
import { askQuestions, SEARCH_QUERY, type Questions } from './questions';
import type { LoadedSession } from '../src/main/session/types';
import { replay, type ReplayState } from '../src/shared/replay/fold';
import { modelView } from '../src/shared/replay/view';
import {
  recordChild,
  RECORD_TARGET_GROWTH_MB,
  RECORD_TARGET_MBPS,
  RECORD_TARGET_TTFB_MS,
  runRecordBench,
  type RecordBenchResult,
} from './record';
import { mockChild, RERUN_TARGET_OVERHEAD_MS, RERUN_TARGET_RATIO, runRerunBench, type RerunBenchResult } from './rerun';
import { DATA_SET, ensureData, Rng, type DataSpec } from './generate';
import { CLAUDE_TARGET_RATIO, ensureClaudeBig } from './claude';
import { benchLs, type LsBenchResult } from './ls';
import { benchIndex, renderIndexBench, type IndexBenchResult } from './index';
import { benchExport, type ExportBenchResult } from './export';
import { benchHealth, type HealthBenchResult } from './health';
import { runTokenBench, TARGET_FULL_COUNT_S, TARGET_SEEK_P99_MS, type TokenBenchResult } from './tokens';
import { median } from './stats';
import { JOINED_TARGET_RATIO, runJoinedBench } from './joined';
import { FIRST_VIEW_TARGET_RATIO, runFirstViewBench } from './first-view';
import { encoderChild, runCommandsBench, type CommandsBenchResult } from './commands';

const MB = 1e6;
const TARGET_RATIO = 0.6;
const TARGET_RSS = 1;
const TARGET_P99_MS = 20;
const RANDOM_VIEWS = 1000;
const FULL_VIEWS = 50;
const VIEW_SEED = 20_240_601;

interface Timing {
  readonly runsMs: number[];
  readonly medianMs: number;
  readonly mbps: number;
}

interface Latency {
  readonly samples: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

export interface FileResult {
  readonly name: string;
  readonly file: string;
  readonly bytes: number;
  readonly lines: number;
  readonly events: number;
  readonly requests: number;
  readonly compactions: number;
  readonly items: number;
  readonly diagnostics: { readonly load: number; readonly replay: number; readonly first: string[] };
  /** The bare Buffer-split + JSON.parse loop. */
  readonly baseline: Timing;
  /** readJsonl with a callback that does nothing: the reader alone. */
  readonly reader: Timing;
  /** The same without reading ahead (`readAhead: false`: each read waits for the chunk before it to be parsed), in the same rounds. */
  readonly readerNoReadAhead: Timing;
  /** loadSession with the default options (what the app does): read + import (+ elision) into the in-memory event log. */
  readonly load: Timing;
  /** Median time for a worker to read an empty range: what a parallel load pays to start one (null: no worker script). */
  readonly workerStartMs: number | null;
  /** How the default load held the log and read the file. */
  readonly log: {
    readonly kind: 'compact' | 'array';
    readonly ranges: number;
    readonly byWorkers: number;
    readonly arenaBytes: number;
    readonly inArena: number;
    readonly objects: number;
  };
  readonly replay: Timing;
  /** load + replay of the same round. */
  readonly loadReplay: Timing;
  readonly ratio: {
    readonly reader: number;
    readonly readerNoReadAhead: number;
    readonly load: number;
    readonly loadReplay: number;
    readonly loadArray: number;
    readonly loadReplayArray: number;
    /** The compact log on one thread (null: the default load did not read the file in ranges). */
    readonly loadCompactOneThread: number | null;
    readonly loadReplayCompactOneThread: number | null;
  };
  /**
   * The array log read on one thread (`{ compactLog: false, threads: 1 }`, the default before the
   * compact log and parallel load) and replay over it, in the same rounds; not the session the views below use.
   */
  readonly arrayLog: {
    readonly load: Timing;
    readonly replay: Timing;
    readonly loadReplay: Timing;
    /** Heap after the load and a full GC (before replay). */
    readonly logHeap: number;
  };
  /**
   * When the default load read the file in byte ranges on several threads: the compact log read on
   * this thread alone (`{ compactLog: true, threads: 1 }`) and replay over it, in the same rounds,
   * so that the parallel load and the compact log each have a figure of their own. Else null.
   */
  readonly compactOneThread: { readonly load: Timing; readonly replay: Timing; readonly loadReplay: Timing } | null;
  /**
   * Process CPU time (all threads, GC helpers included) of each round of the bare loop and the load,
   * and the ratio of their medians. Not a target: a second view of the load ratio that moves less
   * than wall time when other jobs share the cores.
   */
  readonly cpu: { readonly baselineMs: number[]; readonly loadMs: number[]; readonly loadRatio: number };
  /**
   * The same rounds in a child with V8's default map retention (RETAIN_MAPS_FOR_N_GC says why),
   * where the bench's forced GCs drop optimised code before every timed load; files under
   * SMALL_FILE_BYTES only, null otherwise. Set by the parent.
   */
  v8Defaults?: { readonly baseline: Timing; readonly load: Timing; readonly loadRatio: number } | null;
  /**
   * What keeping one idle object per load class buys (src/main/reader/shapes.ts): the same rounds in
   * children that keep them and children that keep none (`PALIMPSEST_KEEP_SHAPES=0`), SHAPE_PAIRS
   * of each, in turns, with the bench's map retention and with V8's default; medians over the
   * children of each kind. Files under SMALL_FILE_BYTES only, null otherwise. Set by the parent.
   */
  keptShapes?: {
    readonly kept: ShapeFigure;
    readonly none: ShapeFigure;
    readonly keptV8Defaults: ShapeFigure;
    readonly noneV8Defaults: ShapeFigure;
  } | null;
  /**
   * The first bare loop and the first load of a fresh process each (no code optimised yet, V8's
   * defaults), COLD_RUNS processes of each, alternately: what opening the file from the command line
   * costs. Files under COLD_MAX_BYTES only. Set by the parent.
   */
  cold?: { readonly bareMs: number[]; readonly loadMs: number[]; readonly ratio: number } | null;
  readonly memory: {
    /** maxRSS after the first bare loop, before anything was loaded. */
    readonly baselinePeakRss: number;
    /** maxRSS after the first load + replay (a fresh process opening the file once, as the app does). */
    readonly peakRss: number;
    readonly peakRssRatio: number;
    /** maxRSS after every round (the GC lets the heap grow while a second copy is loaded). */
    readonly peakRssAllRounds: number;
    /** With the last session and its replay held, after a full GC. */
    readonly heldRss: number;
    readonly heldHeap: number;
    readonly heldExternal: number;
    readonly heldHeapRatio: number;
    readonly heapBytesPerEvent: number;
    /** Heap of the event log alone (after load, before replay, after a full GC). */
    readonly logHeap: number;
    readonly logHeapPerEvent: number;
    /** maxRSS at the very end (views, the inspector's own replay and full-text re-reads included). */
    readonly finalPeakRss: number;
  };
  readonly views: (Latency & { readonly avgItems: number; readonly maxItems: number }) | null;
  readonly fullViews: (Latency & { readonly hydrated: number }) | null;
  readonly stepping: {
    readonly views: number;
    readonly totalMs: number;
    readonly msPerView: number;
    readonly ratioToReplay: number;
    readonly items: number;
  } | null;
  /** The diagnostics rules over the replayed default branch, once (what `palimpsest inspect` and the app's panel wait for). */
  readonly rules: { readonly ms: number; readonly findings: number } | null;
  /** Questions a user asks of a long session beyond views (with every view in order only: e1m, or --only). */
  readonly questions: Questions | null;
}

/** Medians over children of one kind: the load ratio, the load's median ms and the CPU ratio (steadier when other jobs share the cores). */
interface ShapeFigure {
  readonly loadRatio: number;
  readonly loadMs: number;
  readonly cpuRatio: number;
  readonly children: number;
}

type ChildMessage = { readonly ok: true; readonly result: FileResult } | { readonly ok: false; readonly error: string };

// ---------------------------------------------------------------------------------------------
// Measurements (child side).

const gc = (): void => {
  const g = (globalThis as { gc?: () => void }).gc;
  if (g) {
    g();
    g();
  }
};

const maxRss = (): number => process.resourceUsage().maxRSS * 1024;

/** CPU time of the whole process since `from`, in ms. */
const cpuMsSince = (from: NodeJS.CpuUsage): number => {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1000;
};

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1] as number;
}

function latency(ms: readonly number[]): Latency {
  const s = [...ms].sort((a, b) => a - b);
  return {
    samples: s.length,
    p50: percentile(s, 50),
    p95: percentile(s, 95),
    p99: percentile(s, 99),
    max: s[s.length - 1] ?? NaN,
    mean: s.reduce((a, b) => a + b, 0) / Math.max(1, s.length),
  };
}

function timing(runsMs: number[], bytes: number): Timing {
  const m = median(runsMs);
  return { runsMs, medianMs: m, mbps: bytes / MB / (m / 1000) };
}

/** The reference loop: 1 MiB reads, split on 0x0A with Buffer.indexOf, toString per line, JSON.parse. */
async function bareLoop(path: string): Promise<number> {
  const fh = await open(path, 'r');
  const buf = Buffer.allocUnsafe(1 << 20);
  let carry: Buffer | null = null;
  let objects = 0;
  const take = (s: string): void => {
    const v: unknown = JSON.parse(s);
    if (typeof v === 'object' && v !== null) objects++;
  };
  try {
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      const chunk = buf.subarray(0, bytesRead);
      let pos = 0;
      for (;;) {
        const nl = chunk.indexOf(10, pos);
        if (nl === -1) {
          if (pos < chunk.length) {
            const rest = Buffer.from(chunk.subarray(pos));
            carry = carry ? Buffer.concat([carry, rest]) : rest;
          }
          break;
        }
        if (carry) {
          take(Buffer.concat([carry, chunk.subarray(pos, nl)]).toString('utf8'));
          carry = null;
        } else {
          take(chunk.toString('utf8', pos, nl));
        }
        pos = nl + 1;
      }
    }
    if (carry && carry.length > 0) take(carry.toString('utf8'));
  } finally {
    await fh.close();
  }
  return objects;
}

async function readerOnly(path: string, readAhead: boolean): Promise<number> {
  let n = 0;
  await readJsonl(
    path,
    () => void n++,
    () => undefined,
    { readAhead },
  );
  return n;
}

function log(name: string, msg: string): void {
  console.log(`  [${name}] ${msg}`);
}

async function measureFile(name: string, path: string, runs: number, stepAll: boolean, roundsOnly: boolean): Promise<FileResult> {
  const bytes = statSync(path).size;
  const t = (): number => performance.now();
  const base: number[] = [];
  const rdr: number[] = [];
  const rdrNoAhead: number[] = [];
  const ld: number[] = [];
  const rp: number[] = [];
  const lr: number[] = [];
  const cpuBase: number[] = [];
  const cpuLoad: number[] = [];
  const ldA: number[] = [];
  const rpA: number[] = [];
  const lrA: number[] = [];
  const ldC: number[] = [];
  const rpC: number[] = [];
  const lrC: number[] = [];
  let arrayHeap = 0;
  let logInfo: FileResult['log'] = { kind: 'array', ranges: 1, byWorkers: 0, arenaBytes: 0, inArena: 0, objects: 0 };
  let lines = 0;
  let baselinePeakRss = 0;
  let logHeap = 0;
  let firstPeakRss = 0;
  // Held in an object so that the previous round's session can be let go before the next load.
  const held: { session: LoadedSession | null; state: ReplayState | null } = { session: null, state: null };

  // Each load is its own function, so that no local of this one holds a session once the phase is
  // over: an async function keeps its locals across awaits, and a session from the round before
  // (466 MB of heap on e1m) would still be alive while the next load runs.
  const defaultRound = async (round: number): Promise<void> => {
    held.session = null;
    held.state = null;
    gc();
    const c0 = process.cpuUsage();
    const t0 = t();
    const session = await loadSession(path);
    held.session = session;
    const t1 = t();
    cpuLoad.push(cpuMsSince(c0));
    // The event log alone (a GC between load and replay, outside both timings).
    gc();
    logHeap = process.memoryUsage().heapUsed;
    const ranges = session.files[0]?.ranges;
    const stats = session.events instanceof CompactLog ? session.events.stats() : null;
    logInfo = {
      kind: stats ? 'compact' : 'array',
      ranges: ranges?.count ?? 1,
      byWorkers: ranges?.byWorkers ?? 0,
      arenaBytes: stats?.arenaBytes ?? 0,
      inArena: stats?.inArena ?? 0,
      objects: stats?.objects ?? session.events.length,
    };
    const t1b = t();
    held.state = replay(session.events);
    const t2 = t();
    ld.push(t1 - t0);
    rp.push(t2 - t1b);
    lr.push(t1 - t0 + (t2 - t1b));
    if (round === 0) firstPeakRss = maxRss();
    log(
      name,
      `round ${round + 1}/${runs}: bare ${(base[round] as number).toFixed(0)} ms, reader ${(rdr[round] as number).toFixed(0)} ms, ` +
        `load ${(t1 - t0).toFixed(0)} ms (${logInfo.kind} log, ${logInfo.ranges} range${logInfo.ranges === 1 ? '' : 's'}, ${logInfo.byWorkers} by workers; ` +
        `CPU: bare ${(cpuBase[round] as number).toFixed(0)}, load ${(cpuLoad[round] as number).toFixed(0)}), replay ${(t2 - t1b).toFixed(0)} ms, maxRSS ${(maxRss() / MB).toFixed(0)} MB`,
    );
  };
  /**
   * One load on this thread alone with nothing else held, then its replay; the session is let go
   * after it. Returns the heap in use once the log is built. Used for the array log (the load
   * before the compact log existed) and, when the default load read ranges on several threads,
   * for the compact log without the parallel load.
   */
  const oneThreadRound = async (
    round: number,
    label: string,
    compactLog: boolean,
    into: { load: number[]; replay: number[]; both: number[] },
  ): Promise<number> => {
    held.session = null;
    held.state = null;
    gc();
    const t0 = t();
    const s = await loadSession(path, { compactLog, threads: 1 });
    const t1 = t();
    gc();
    const heap = process.memoryUsage().heapUsed;
    const t1b = t();
    const st = replay(s.events);
    const t2 = t();
    into.load.push(t1 - t0);
    into.replay.push(t2 - t1b);
    into.both.push(t1 - t0 + (t2 - t1b));
    log(
      name,
      `round ${round + 1}/${runs}: ${label}, one thread: load ${(t1 - t0).toFixed(0)} ms, replay ${(t2 - t1b).toFixed(0)} ms (${st.requests.length} requests)`,
    );
    await s.dispose();
    return heap;
  };
  const arrayRound = async (round: number): Promise<void> => {
    arrayHeap = await oneThreadRound(round, 'array log', false, { load: ldA, replay: rpA, both: lrA });
  };
  const compactRound = async (round: number): Promise<void> => {
    await oneThreadRound(round, 'compact log', true, { load: ldC, replay: rpC, both: lrC });
  };
  const parallel = (): boolean => logInfo.ranges > 1;

  for (let round = 0; round < runs; round++) {
    gc();
    const c0 = process.cpuUsage();
    let t0 = t();
    lines = await bareLoop(path);
    base.push(t() - t0);
    cpuBase.push(cpuMsSince(c0));
    if (round === 0) baselinePeakRss = maxRss();

    // The reader with and without reading ahead, in turns (which goes first alternates).
    for (const ahead of round % 2 === 0 ? [true, false] : [false, true]) {
      gc();
      t0 = t();
      const records = await readerOnly(path, ahead);
      (ahead ? rdr : rdrNoAhead).push(t() - t0);
      if (records !== lines) log(name, `the reader saw ${records} records, the bare loop ${lines} objects`);
    }

    // The array log's load and replay (and the compact log's on one thread) after the default's in
    // the first round (so that the first peak RSS is the default load's alone), before it in the others.
    if (round > 0) {
      await arrayRound(round);
      if (parallel()) await compactRound(round);
    }
    await defaultRound(round);
    if (round === 0) {
      await arrayRound(round);
      if (parallel()) await compactRound(round);
    }
  }
  // With one round, the array log came last and let the session go: load again, untimed, for the views.
  if (!held.session) {
    held.session = await loadSession(path);
    held.state = replay(held.session.events);
  }
  // What a worker costs to start: one reading an empty range (the parallel load's fixed cost per worker).
  const workerStarts: number[] = [];
  for (let k = 0; k < 3; k++) {
    const t0 = t();
    const jobs = startRangeJobs(
      path,
      [
        { start: 0, end: 0 },
        { start: bytes, end: bytes },
      ],
      {},
      'worker',
      () => undefined,
    );
    if (!jobs) break;
    await Promise.all(jobs.map((j) => j.result));
    for (const j of jobs) j.cancel();
    workerStarts.push(t() - t0);
  }
  const workerStartMs = workerStarts.length > 0 ? median(workerStarts) : null;
  log(name, `worker start (an empty range): ${workerStartMs === null ? 'no worker script' : `${workerStartMs.toFixed(0)} ms`}`);
  const { session, state } = held;
  if (!session || !state) throw new Error('no round ran');
  const peakRssAllRounds = maxRss();
  gc();
  const mem = process.memoryUsage();

  const baseline = timing(base, bytes);
  const reader = timing(rdr, bytes);
  const readerNoReadAhead = timing(rdrNoAhead, bytes);
  const load = timing(ld, bytes);
  const rep = timing(rp, bytes);
  const loadReplay = timing(lr, bytes);
  const loadArray = timing(ldA, bytes);
  const replayArray = timing(rpA, bytes);
  const loadReplayArray = timing(lrA, bytes);
  const compactOneThread = ldC.length > 0 ? { load: timing(ldC, bytes), replay: timing(rpC, bytes), loadReplay: timing(lrC, bytes) } : null;
  const diagnosticsFirst = [...session.diagnostics, ...state.diagnostics].slice(0, 5).map((d) => `${d.rule}: ${d.message}`);

  // The view at seeded random requests.
  const n = state.requests.length;
  let views: FileResult['views'] = null;
  let fullViews: FileResult['fullViews'] = null;
  let stepping: FileResult['stepping'] = null;
  let rules: FileResult['rules'] = null;
  let questions: FileResult['questions'] = null;
  if (n > 0 && !roundsOnly) {
    const rng = new Rng(VIEW_SEED);
    const ms: number[] = [];
    let items = 0;
    let maxItems = 0;
    for (let k = 0; k < RANDOM_VIEWS; k++) {
      const i = rng.int(n);
      const t0 = t();
      const v = modelView(state, i);
      ms.push(t() - t0);
      const c = v?.items.length ?? 0;
      items += c;
      if (c > maxItems) maxItems = c;
    }
    views = { ...latency(ms), avgItems: items / RANDOM_VIEWS, maxItems };
    log(name, `random views: p50 ${views.p50.toFixed(2)} ms, p99 ${views.p99.toFixed(2)} ms over ${n.toLocaleString('en-US')} requests`);

    if (stepAll) {
      const t0 = t();
      let all = 0;
      for (let i = 0; i < n; i++) all += modelView(state, i)?.items.length ?? 0;
      const totalMs = t() - t0;
      stepping = { views: n, totalMs, msPerView: totalMs / n, ratioToReplay: totalMs / rep.medianMs, items: all };
      log(
        name,
        `every view in order: ${(totalMs / 1000).toFixed(1)} s (${stepping.msPerView.toFixed(3)} ms/view, ${stepping.ratioToReplay.toFixed(1)}× replay)`,
      );
    }

    // The same views with every elided text re-read from the file (what a reader of the full text waits for).
    const inspector = new SessionInspector(session);
    inspector.replay();
    const tr = t();
    const findings = inspector.diagnostics().length;
    rules = { ms: t() - tr, findings };
    log(name, `diagnostics rules: ${rules.ms.toFixed(0)} ms, ${findings} findings`);
    const fms: number[] = [];
    let hydrated = 0;
    for (let k = 0; k < FULL_VIEWS; k++) {
      const i = rng.int(n);
      const t0 = t();
      const v = await inspector.fullView(i);
      fms.push(t() - t0);
      hydrated += v?.items.length ?? 0;
    }
    fullViews = { ...latency(fms), hydrated };
    log(name, `full-text views: p50 ${fullViews.p50.toFixed(1)} ms, p99 ${fullViews.p99.toFixed(1)} ms`);
    // Last: the token report and inspect's counts leave a heap of caches behind, and the views above
    // would measure its garbage collection (a p99 of 379 ms on e1m when they came after).
    if (stepAll) questions = await askQuestions(path, inspector, (msg) => log(name, msg));
  }

  return {
    name,
    file: path,
    bytes,
    lines,
    events: session.events.length,
    requests: n,
    compactions: state.compactions.length,
    items: state.items.length,
    diagnostics: { load: session.diagnostics.length, replay: state.diagnostics.length, first: diagnosticsFirst },
    baseline,
    reader,
    readerNoReadAhead,
    load,
    replay: rep,
    loadReplay,
    ratio: {
      reader: reader.mbps / baseline.mbps,
      readerNoReadAhead: readerNoReadAhead.mbps / baseline.mbps,
      load: load.mbps / baseline.mbps,
      loadReplay: loadReplay.mbps / baseline.mbps,
      loadArray: loadArray.mbps / baseline.mbps,
      loadReplayArray: loadReplayArray.mbps / baseline.mbps,
      loadCompactOneThread: compactOneThread ? compactOneThread.load.mbps / baseline.mbps : null,
      loadReplayCompactOneThread: compactOneThread ? compactOneThread.loadReplay.mbps / baseline.mbps : null,
    },
    log: logInfo,
    workerStartMs,
    arrayLog: { load: loadArray, replay: replayArray, loadReplay: loadReplayArray, logHeap: arrayHeap },
    compactOneThread,
    cpu: { baselineMs: cpuBase, loadMs: cpuLoad, loadRatio: median(cpuBase) / median(cpuLoad) },
    memory: {
      baselinePeakRss,
      peakRss: firstPeakRss,
      peakRssRatio: firstPeakRss / bytes,
      peakRssAllRounds,
      heldRss: mem.rss,
      heldHeap: mem.heapUsed,
      heldExternal: mem.external,
      heldHeapRatio: mem.heapUsed / bytes,
      heapBytesPerEvent: mem.heapUsed / Math.max(1, session.events.length),
      logHeap,
      logHeapPerEvent: logHeap / Math.max(1, session.events.length),
      finalPeakRss: maxRss(),
    },
    views,
    fullViews,
    stepping,
    rules,
    questions,
  };
}

/** One timed bare loop or load in this fresh process (`--cold bare|load PATH`); prints the ms. */
async function coldChild(argv: readonly string[]): Promise<void> {
  const [what, path] = argv;
  if ((what !== 'bare' && what !== 'load') || !path) throw new Error('usage: bench.js --cold bare|load PATH');
  const t0 = performance.now();
  if (what === 'bare') await bareLoop(path);
  else await loadSession(path);
  console.log(JSON.stringify({ ms: performance.now() - t0 }));
}

async function child(argv: readonly string[]): Promise<void> {
  const [name, path, runsText, stepText, whatText] = argv;
  if (!name || !path) throw new Error('usage: bench.js --child NAME PATH RUNS STEP [rounds|all]');
  const send = (m: ChildMessage): Promise<void> =>
    new Promise((res) => {
      if (process.send) process.send(m, () => res());
      else {
        console.log(JSON.stringify(m));
        res();
      }
    });
  try {
    const result = await measureFile(name, path, Math.max(1, Number(runsText ?? 3)), stepText === '1', whatText === 'rounds');
    await send({ ok: true, result });
  } catch (e) {
    await send({ ok: false, error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
    process.exitCode = 1;
  }
}

// ---------------------------------------------------------------------------------------------
// The run (parent side).

interface Args {
  quick: boolean;
  noCcusage: boolean;
  only: string[];
  runs: number;
  dataDir: string;
  cpuProf: boolean;
  out: string | null;
  indexGb: number;
}

function parseArgs(argv: readonly string[]): Args {
  const a: Args = { quick: false, noCcusage: false, only: [], runs: 3, dataDir: 'bench/data', cpuProf: false, out: null, indexGb: 0.1 };
  for (let i = 0; i < argv.length; i++) {
    const x = argv[i];
    if (x === '--quick') a.quick = true;
    else if (x === '--no-ccusage') a.noCcusage = true;
    else if (x === '--only') a.only.push(...(argv[++i] ?? '').split(',').filter(Boolean));
    else if (x === '--runs') a.runs = Math.max(1, Number(argv[++i] ?? 3) || 3);
    else if (x === '--data') a.dataDir = argv[++i] ?? a.dataDir;
    else if (x === '--cpu-prof') a.cpuProf = true;
    else if (x === '--out') a.out = argv[++i] ?? null;
    else if (x === '--index-gb') a.indexGb = Math.max(0.01, Number(argv[++i] ?? 0.1) || 0.1);
    else throw new Error(`bench: unknown argument ${x}`);
  }
  return a;
}

function runChild(
  spec: DataSpec,
  path: string,
  args: Args,
  step: boolean,
  v8Defaults = false,
  keepShapes = true,
  roundsOnly = v8Defaults,
): Promise<ChildMessage> {
  const self = fileURLToPath(import.meta.url);
  const execArgv = [...process.execArgv];
  if (!execArgv.includes('--expose-gc')) execArgv.push('--expose-gc');
  if (!v8Defaults) execArgv.push(`--retain-maps-for-n-gc=${RETAIN_MAPS_FOR_N_GC}`);
  if (args.cpuProf && !roundsOnly) {
    const dir = resolve(args.dataDir, 'prof');
    mkdirSync(dir, { recursive: true });
    execArgv.push('--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${spec.name}.cpuprofile`);
  }
  return new Promise((res) => {
    let message: ChildMessage | null = null;
    const env = keepShapes ? process.env : { ...process.env, PALIMPSEST_KEEP_SHAPES: '0' };
    const c = fork(
      self,
      ['--child', spec.name, path, String(roundsFor(path, args.runs)), step ? '1' : '0', roundsOnly ? 'rounds' : 'all'],
      { execArgv, stdio: 'inherit', env },
    );
    c.on('message', (m) => {
      message = m as ChildMessage;
    });
    c.on('exit', (code, signal) => {
      res(
        message ?? {
          ok: false,
          error: `the child process ended with ${signal ? `signal ${signal}` : `exit code ${code}`} before reporting (out of memory?)`,
        },
      );
    });
  });
}

/** Children of each kind in the kept-shapes comparison: one child's ratio moves by ±0.1 when other jobs share the cores. */
const SHAPE_PAIRS = 3;

/** The kept-shapes comparison (FileResult.keptShapes), or why it failed. */
async function compareKeptShapes(spec: DataSpec, path: string, args: Args): Promise<NonNullable<FileResult['keptShapes']> | string> {
  const kinds = [
    [false, true],
    [false, false],
    [true, true],
    [true, false],
  ] as const;
  const got: { ratio: number; ms: number; cpu: number }[][] = kinds.map(() => []);
  for (let k = 0; k < SHAPE_PAIRS; k++) {
    for (let i = 0; i < kinds.length; i++) {
      const [v8Defaults, keep] = kinds[i] as readonly [boolean, boolean];
      const m = await runChild(spec, path, args, false, v8Defaults, keep, true);
      if (!m.ok) return m.error;
      (got[i] as { ratio: number; ms: number; cpu: number }[]).push({
        ratio: m.result.ratio.load,
        ms: m.result.load.medianMs,
        cpu: m.result.cpu.loadRatio,
      });
    }
  }
  const figure = (i: number): ShapeFigure => {
    const xs = got[i] as { ratio: number; ms: number; cpu: number }[];
    return {
      loadRatio: median(xs.map((x) => x.ratio)),
      loadMs: median(xs.map((x) => x.ms)),
      cpuRatio: median(xs.map((x) => x.cpu)),
      children: xs.length,
    };
  };
  return { kept: figure(0), none: figure(1), keptV8Defaults: figure(2), noneV8Defaults: figure(3) };
}

/** Processes of each kind for the fresh-process figure: a process costs about 0.2 s (s10mb) to 0.6 s (s100mb). */
const COLD_RUNS = 7;
/** Files under this size get the fresh-process figure (s10mb and s100mb): enough to see the warm-up fade. */
const COLD_MAX_BYTES = 150 * MB;

function runCold(path: string): NonNullable<FileResult['cold']> | string {
  const self = fileURLToPath(import.meta.url);
  const one = (what: 'bare' | 'load'): number | string => {
    const r = spawnSync(process.execPath, [self, '--cold', what, path], { encoding: 'utf8' });
    const line = r.stdout.trim().split('\n').pop() ?? '';
    try {
      const ms = (JSON.parse(line) as { ms?: unknown }).ms;
      if (typeof ms === 'number') return ms;
    } catch {
      // Not JSON: the child failed; its stderr says why.
    }
    return `the fresh-process ${what} failed (exit ${r.status ?? r.signal}): ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`;
  };
  const bareMs: number[] = [];
  const loadMs: number[] = [];
  for (let k = 0; k < COLD_RUNS; k++) {
    const b = one('bare');
    const l = one('load');
    if (typeof b === 'string') return b;
    if (typeof l === 'string') return l;
    bareMs.push(b);
    loadMs.push(l);
  }
  return { bareMs, loadMs, ratio: median(bareMs) / median(loadMs) };
}

const f0 = (x: number): string => (Number.isFinite(x) ? x.toFixed(0) : '—');
const f1 = (x: number): string => (Number.isFinite(x) ? x.toFixed(1) : '—');
const f2 = (x: number): string => (Number.isFinite(x) ? x.toFixed(2) : '—');

function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, [...c].length)));
  return rows
    .map((r, ri) => {
      const line = r.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
      return ri === 0 ? `${line}\n${widths.map((w) => '─'.repeat(w)).join('  ')}` : line;
    })
    .join('\n');
}

/**
 * How many full GCs V8 keeps a map (hidden class) that optimised code or an inline cache uses alive
 * after its last object died, in the bench's children (V8's default: 2, `--retain-maps-for-n-gc`).
 *
 * Why: optimised code holds the maps it was built for weakly; a full GC that frees one throws the
 * code away ("reason: weak objects" under `node --trace-deopt`). The maps of parsed lines die with the
 * session that held their objects. The bench lets each session go and forces a GC before each timed
 * loop and after each load (to time each loop from a collected heap, and to weigh the log), and each
 * `gc()` is two mark-compacts: up to eight between one load and the next, where a process left to
 * itself would run none. With V8's default, the bench's own instrument threw the importer's code
 * away before every timed load (s10mb: a load of 50–60 ms instead of 35–45); the bare loop, which
 * never reads a property of what it parses, keeps its code. 2 + 8 lets the forced GCs pass as if
 * they had not happened. The same rounds are also run with V8's default, for the files under
 * SMALL_FILE_BYTES where it shows (`v8Defaults`): what a load costs when V8 did throw that code away.
 */
const RETAIN_MAPS_FOR_N_GC = 10;

/** Files under this size are measured over at least SMALL_FILE_ROUNDS rounds. */
const SMALL_FILE_BYTES = 50 * MB;
/**
 * A round of the 10 MB file lasts about 50 ms: of three, one with the code not yet optimised (the
 * first) or disturbed by another job decides the median. Nine rounds cost half a second.
 */
const SMALL_FILE_ROUNDS = 9;

function roundsFor(path: string, runs: number): number {
  return statSync(path).size < SMALL_FILE_BYTES ? Math.max(runs, SMALL_FILE_ROUNDS) : runs;
}

const mark = (ok: boolean): string => (ok ? 'PASS' : 'MISS');

function report(results: readonly FileResult[]): string {
  const out: string[] = [];
  out.push(
    table([
      [
        'file',
        'MB',
        'events',
        'bare MB/s',
        'reader MB/s',
        'load MB/s',
        'load ratio',
        `≥${TARGET_RATIO}`,
        'CPU ratio',
        'replay ms',
        'load+replay ratio',
        'peak RSS MB',
        'RSS/size',
        'all rounds MB',
        'heap held/size',
      ],
      ...results.map((r) => [
        r.name,
        f1(r.bytes / MB),
        r.events.toLocaleString('en-US'),
        f0(r.baseline.mbps),
        f0(r.reader.mbps),
        f0(r.load.mbps),
        f2(r.ratio.load),
        mark(r.ratio.load >= TARGET_RATIO),
        f2(r.cpu.loadRatio),
        f0(r.replay.medianMs),
        f2(r.ratio.loadReplay),
        f0(r.memory.peakRss / MB),
        f2(r.memory.peakRssRatio),
        f0(r.memory.peakRssAllRounds / MB),
        f2(r.memory.heldHeapRatio),
      ]),
    ]),
  );
  out.push('');
  out.push(
    table([
      [
        'file',
        'log',
        'ranges',
        'by workers',
        'worker start ms',
        'load ratio',
        '(array log, 1 thread)',
        'replay ms',
        '(array log)',
        'load+replay ratio',
        '(array log)',
        'log heap MB',
        '(array log)',
        'arena MB',
        'events in arena',
      ],
      ...results.map((r) => [
        r.name,
        r.log.kind,
        String(r.log.ranges),
        String(r.log.byWorkers),
        r.workerStartMs === null ? '—' : f0(r.workerStartMs),
        f2(r.ratio.load),
        f2(r.ratio.loadArray),
        f0(r.replay.medianMs),
        f0(r.arrayLog.replay.medianMs),
        f2(r.ratio.loadReplay),
        f2(r.ratio.loadReplayArray),
        f0(r.memory.logHeap / MB),
        f0(r.arrayLog.logHeap / MB),
        f0(r.log.arenaBytes / MB),
        `${f1((100 * r.log.inArena) / Math.max(1, r.log.inArena + r.log.objects))} %`,
      ]),
    ]),
  );
  const withViews = results.filter((r) => r.views);
  if (withViews.length > 0) {
    out.push('');
    out.push(
      table([
        [
          'file',
          'requests',
          'avg view items',
          'view p50 ms',
          'p95 ms',
          'p99 ms',
          'max ms',
          'every view s',
          'ms/view',
          '× replay',
          'full-text p50 ms',
          'full-text p99 ms',
          'rules ms',
        ],
        ...withViews.map((r) => [
          r.name,
          r.requests.toLocaleString('en-US'),
          f0(r.views?.avgItems ?? NaN),
          f2(r.views?.p50 ?? NaN),
          f2(r.views?.p95 ?? NaN),
          f2(r.views?.p99 ?? NaN),
          f2(r.views?.max ?? NaN),
          r.stepping ? f1(r.stepping.totalMs / 1000) : '—',
          r.stepping ? f2(r.stepping.msPerView) : '—',
          r.stepping ? f1(r.stepping.ratioToReplay) : '—',
          f1(r.fullViews?.p50 ?? NaN),
          f1(r.fullViews?.p99 ?? NaN),
          f0(r.rules?.ms ?? NaN),
        ]),
      ]),
    );
  }
  const asked = results.filter((r) => r.questions);
  if (asked.length > 0) {
    out.push('');
    out.push(
      table([
        [
          'file',
          'inspector step ms (median)',
          'max',
          `search "${SEARCH_QUERY}" ms`,
          'texts found',
          'in preview only',
          'token report s (before counting)',
          'steps',
          'longest step ms',
          'inspect --json s',
        ],
        ...asked.map((r) => {
          const q = r.questions as Questions;
          return [
            r.name,
            f1(q.step.medianMs),
            f0(q.step.maxMs),
            f0(q.search.ms),
            q.search.total.toLocaleString('en-US'),
            String(q.search.partial),
            f1(q.report.ms / 1000),
            String(q.report.steps ?? '—'),
            q.report.longestStepMs === null ? '—' : f0(q.report.longestStepMs),
            q.inspectJsonMs === null ? '—' : f1(q.inspectJsonMs / 1000),
          ];
        }),
      ]),
    );
  }
  out.push('');
  out.push('With and without, in the same run (ratios to the bare loop of the same process):');
  for (const r of results) {
    out.push(`  ${r.name}: reader ${f2(r.ratio.reader)}, without reading ahead ${f2(r.ratio.readerNoReadAhead)}`);
    if (r.compactOneThread && r.ratio.loadCompactOneThread !== null && r.ratio.loadReplayCompactOneThread !== null) {
      out.push(
        `  ${r.name}: load (+ replay): compact log in ${r.log.ranges} ranges ${f2(r.ratio.load)} (${f2(r.ratio.loadReplay)}), ` +
          `compact log on one thread ${f2(r.ratio.loadCompactOneThread)} (${f2(r.ratio.loadReplayCompactOneThread)}), array log on one thread ${f2(r.ratio.loadArray)} (${f2(r.ratio.loadReplayArray)})`,
      );
    }
    const k = r.keptShapes;
    if (k) {
      const fig = (x: ShapeFigure): string => `${f2(x.loadRatio)} (${f0(x.loadMs)} ms, CPU ratio ${f2(x.cpuRatio)})`;
      out.push(
        `  ${r.name}: load with one idle object per load class kept ${fig(k.kept)}, none kept ${fig(k.none)}; ` +
          `under V8's default map retention ${fig(k.keptV8Defaults)} against ${fig(k.noneV8Defaults)} (medians of ${k.kept.children} children each)`,
      );
    }
  }
  out.push('');
  out.push('Targets:');
  for (const r of results) {
    const d = r.v8Defaults
      ? ` (with V8's default map retention, under which the bench's forced GCs drop optimised code before each load: ${f2(r.v8Defaults.loadRatio)}×, load ${f0(r.v8Defaults.load.medianMs)} ms against ${f0(r.load.medianMs)})`
      : '';
    out.push(`  read + import ≥ ${TARGET_RATIO}× bare loop, ${r.name}: ${f2(r.ratio.load)}× ${mark(r.ratio.load >= TARGET_RATIO)}${d}`);
    if (r.cold)
      out.push(
        `    ${r.name}, the first load of a fresh process against its first bare loop (no code optimised yet): ${f2(r.cold.ratio)}×, ${f0(median(r.cold.loadMs))} ms against ${f0(median(r.cold.bareMs))}`,
      );
  }
  const big = results.find((r) => r.name === 's1gb');
  if (big)
    out.push(
      `  peak RSS ≤ ${TARGET_RSS}× file size on s1gb: ${f2(big.memory.peakRssRatio)}× ${mark(big.memory.peakRssRatio <= TARGET_RSS)}`,
    );
  const e1m = results.find((r) => r.name === 'e1m');
  if (e1m?.views) out.push(`  view p99 ≤ ${TARGET_P99_MS} ms on e1m: ${f2(e1m.views.p99)} ms ${mark(e1m.views.p99 <= TARGET_P99_MS)}`);
  return out.join('\n');
}

async function parent(argv: readonly string[]): Promise<void> {
  const args = parseArgs(argv);
  let specs = DATA_SET.filter((d) => (args.quick ? d.name === 's10mb' : true));
  if (args.only.length > 0) specs = DATA_SET.filter((d) => args.only.includes(d.name) || args.only.includes(d.file));
  const onlyExtra =
    args.only.length > 0 &&
    args.only.every(
      (o) =>
        o === 'ls' ||
        o === 'index' ||
        o === 'claude200mb' ||
        o === 'rerun' ||
        o === 'ui' ||
        o === 'record' ||
        o === 'joined' ||
        o === 'firstview' ||
        o === 'commands' ||
        o === 'health' ||
        o === 'export',
    );
  if (onlyExtra) specs = [];
  if (specs.length === 0 && !onlyExtra)
    throw new Error(`bench: no data file named ${args.only.join(', ')}; known: ${DATA_SET.map((d) => d.name).join(', ')}`);

  const machine = {
    node: process.version,
    v8: process.versions.v8,
    platform: `${os.platform()} ${os.release()}`,
    arch: os.arch(),
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    totalMemory: os.totalmem(),
    freeMemoryAtStart: os.freemem(),
  };
  console.log(
    `Palimpsest bench — node ${machine.node}, ${machine.cpus} × ${machine.cpuModel}, ${(machine.totalMemory / 2 ** 30).toFixed(1)} GiB`,
  );
  console.log(`Data (${args.dataDir}):`);
  for (const spec of specs) ensureData(args.dataDir, spec);

  const results: FileResult[] = [];
  const failures: { name: string; error: string }[] = [];
  for (const spec of specs) {
    const path = join(args.dataDir, spec.file);
    const step = spec.name === 'e1m' || args.quick || args.only.length > 0;
    console.log(
      `\n${spec.file} (${(statSync(path).size / MB).toFixed(1)} MB): ${roundsFor(path, args.runs)} rounds of bare loop / reader / load + replay, then views${step ? ' and every view in order' : ''}`,
    );
    const m = await runChild(spec, path, args, step);
    if (m.ok) {
      results.push(m.result);
      if (m.result.bytes < SMALL_FILE_BYTES) {
        console.log(
          `  [${spec.name}] the same rounds again, with V8's default map retention (RETAIN_MAPS_FOR_N_GC in bench/bench.ts says why):`,
        );
        const d = await runChild(spec, path, args, false, true);
        if (d.ok) m.result.v8Defaults = { baseline: d.result.baseline, load: d.result.load, loadRatio: d.result.ratio.load };
        else failures.push({ name: `${spec.name} (V8 defaults)`, error: d.error });
        console.log(
          `  [${spec.name}] the same rounds in children keeping one idle object per load class and keeping none (PALIMPSEST_KEEP_SHAPES=0), ${SHAPE_PAIRS} of each, in turns:`,
        );
        const shapes = await compareKeptShapes(spec, path, args);
        if (typeof shapes === 'string') failures.push({ name: `${spec.name} (kept shapes)`, error: shapes });
        else m.result.keptShapes = shapes;
      }
      if (m.result.bytes < COLD_MAX_BYTES) {
        const cold = runCold(path);
        if (typeof cold === 'string') failures.push({ name: `${spec.name} (fresh processes)`, error: cold });
        else {
          m.result.cold = cold;
          console.log(
            `  [${spec.name}] fresh processes, ${COLD_RUNS} of each: bare loop ${cold.bareMs.map((x) => x.toFixed(0)).join(', ')} ms; load ${cold.loadMs.map((x) => x.toFixed(0)).join(', ')} ms`,
          );
        }
      }
    } else {
      failures.push({ name: spec.name, error: m.error });
      console.error(`  [${spec.name}] FAILED: ${m.error}`);
    }
  }

  // The Claude Code importer on a ~200 MB session (docs/performance.md), measured the same way.
  let claude: FileResult | null = null;
  if (!args.quick && (args.only.length === 0 || args.only.includes('claude200mb'))) {
    const path = ensureClaudeBig(args.dataDir, 200_000_000, (m) => console.log(m));
    const spec = { name: 'claude200mb', file: 'claude200mb.jsonl', seed: 0, profile: 'standard', note: 'Claude Code, ~200 MB' } as DataSpec;
    console.log(`\nclaude200mb.jsonl (${(statSync(path).size / MB).toFixed(1)} MB): the Claude Code importer, ${args.runs} rounds`);
    const m = await runChild(spec, path, args, false);
    if (m.ok) claude = m.result;
    else failures.push({ name: 'claude200mb', error: m.error });
  }

  let tokens: TokenBenchResult | null = null;
  const tokenSpec = specs.find((s) => s.name === 's100mb');
  if (tokenSpec) {
    console.log(`\nTokens on ${tokenSpec.file}:`);
    try {
      tokens = await runTokenBench(join(args.dataDir, tokenSpec.file), (m) => console.log(`  [tokens] ${m}`));
    } catch (e) {
      failures.push({ name: 'tokens', error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
    }
  }

  console.log('\n' + report(results));
  if (claude) {
    console.log(
      `  Claude Code import ≥ ${CLAUDE_TARGET_RATIO}× bare loop, claude200mb: ${claude.ratio.load.toFixed(2)}× ${mark(claude.ratio.load >= CLAUDE_TARGET_RATIO)} (bare ${claude.baseline.mbps.toFixed(0)} MB/s, load ${claude.load.mbps.toFixed(0)} MB/s)`,
    );
  }
  if (tokens) {
    console.log(
      `  token count of s100mb ≤ ${TARGET_FULL_COUNT_S} s: ${(tokens.full.wallMs / 1000).toFixed(1)} s ${mark(tokens.full.pass)}`,
    );
    console.log(
      `    (on this thread alone, no worker: ${(tokens.inline.wallMs / 1000).toFixed(1)} s; again from the warm content cache: ${(tokens.recountSameSession.wallMs / 1000).toFixed(2)} s)`,
    );
    console.log(`  view after a seek p99 ≤ ${TARGET_SEEK_P99_MS} ms: ${tokens.seek.cached.p99.toFixed(2)} ms ${mark(tokens.seek.pass)}`);
  }
  for (const r of results) {
    if (r.diagnostics.load + r.diagnostics.replay > 0) {
      console.log(
        `\n${r.name}: ${r.diagnostics.load} load and ${r.diagnostics.replay} replay diagnostics on generated data, first: ${r.diagnostics.first.join(' | ')}`,
      );
    }
  }
  for (const f of failures) console.log(`\n${f.name}: FAILED — ${f.error.split('\n')[0]}`);

  let rerun: RerunBenchResult | null = null;
  if (args.only.length === 0 || args.only.includes('rerun')) {
    console.log('\nRe-run: cosh MapReduce, 4 concurrent maps vs 1, against the mock in a child process (docs/rerun.md)');
    try {
      rerun = await runRerunBench((m) => console.log(`  ${m}`), args.runs);
      const r = rerun;
      const range = (x: { median: number; min: number; max: number }, d: number) =>
        `${x.median.toFixed(d)} (${x.min.toFixed(d)}–${x.max.toFixed(d)})`;
      console.log(`  median of ${r.rounds} round(s), range in brackets:`);
      console.log(`  wall(4 concurrent) / wall(sequential) ≤ ${RERUN_TARGET_RATIO}: ${range(r.ratio, 3)} ${mark(r.pass.ratio)}`);
      console.log(
        `  our overhead per request ≤ ${RERUN_TARGET_OVERHEAD_MS} ms beyond the mock's ${r.latencyMs} ms and its own work: ${range(r.overheadPerRequestMs, 1)} ms ${mark(r.pass.overhead)}`,
      );
      console.log(
        `  (of which a bare node:http client pays ${range(r.bareClientMs, 1)} ms per request on this machine; beyond it: ${range(r.overheadBeyondBareClientMs, 1)} ms)`,
      );
    } catch (e) {
      failures.push({ name: 'rerun', error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
    }
  }

  let record: RecordBenchResult | null = null;
  if (args.only.length === 0 || args.only.includes('record')) {
    console.log('\npalimpsest record: the recording proxy (in a child process) against the mock on loopback');
    try {
      record = await runRecordBench((m) => console.log(`  ${m}`), args.runs, args.cpuProf ? resolve(args.dataDir, 'prof') : null);
      const r = record;
      console.log(`  added time to first byte, p99 ≤ ${RECORD_TARGET_TTFB_MS} ms: ${r.ttfb.addedP99.toFixed(3)} ms ${mark(r.pass.ttfb)}`);
      console.log(`  SSE pass-through ≥ ${RECORD_TARGET_MBPS} MB/s: ${r.sse.proxyMBps.toFixed(0)} MB/s ${mark(r.pass.sse)}`);
      console.log(
        `  memory growth ≤ ${RECORD_TARGET_GROWTH_MB} MB (${(r.memory.responseBytes / MB).toFixed(0)} MB responses, ${(r.memory.requestBytes / MB).toFixed(0)} MB request): ${r.memory.growthMB.toFixed(1)} MB ${mark(r.pass.memory)}`,
      );
    } catch (e) {
      failures.push({ name: 'record', error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
    }
  }

  if (args.only.length === 0 || args.only.includes('firstview')) {
    console.log('\nThe first view of s100mb in the host against opening it whole (bench/first-view.ts)');
    try {
      const f = await runFirstViewBench(args.dataDir, args.runs, (m) => console.log(`  ${m}`));
      console.log(
        `  median: first view ${median(f.firstMs).toFixed(0)} ms, whole open ${median(f.baselineMs).toFixed(0)} ms, whole in the first view's place ${median(f.wholeInMs).toFixed(0)} ms (${median(f.wholeInAskedMs).toFixed(0)} ms while asked as the app asks), a file at the cut opened whole ${median(f.atCutMs).toFixed(0)} ms`,
      );
      console.log(`  whole in its place while asked ÷ whole open: ${f.askedRatio.toFixed(2)}×`);
      console.log(`  first view ≤ ${FIRST_VIEW_TARGET_RATIO}× the whole open: ${f.ratio.toFixed(2)}× ${mark(f.pass)}`);
    } catch (e) {
      failures.push({ name: 'firstview', error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
    }
  }

  if (args.only.length === 0 || args.only.includes('joined')) {
    console.log('\nOpening a session with its capture (read, decode, join) against opening it alone');
    try {
      const j = await runJoinedBench(args.dataDir, args.runs, (m) => console.log(`  ${m}`));
      console.log(
        `  ${j.requests} requests alone, ${j.joinedRequests} joined; median ${median(j.aloneMs).toFixed(0)} ms alone, ${median(j.joinedMs).toFixed(0)} ms joined`,
      );
      console.log(`  with its capture ≤ ${JOINED_TARGET_RATIO}× the session alone: ${j.ratio.toFixed(2)}× ${mark(j.pass)}`);
    } catch (e) {
      failures.push({ name: 'joined', error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
    }
  }

  let commands: CommandsBenchResult | null = null;
  if (args.only.length === 0 || args.only.includes('commands')) {
    console.log('\nThe commands on real sessions, each in a fresh process, beside node -e 0 and a read + JSON.parse of the file');
    try {
      commands = runCommandsBench(Math.max(args.runs, 3), (m) => console.log(`  ${m}`));
    } catch (e) {
      failures.push({ name: 'commands', error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
    }
  }

  // The session view in Chromium (docs/session-view.md): its own script, run as a child with tsx so
  // that Playwright stays out of this bundle; it needs the built renderer (out/renderer).
  if (!args.quick && (args.only.length === 0 || args.only.includes('ui'))) {
    console.log('\nThe session view in Chromium: first view of s100mb, scrolling a 100k-item view (docs/session-view.md)');
    if (!existsSync('out/renderer/index.html'))
      spawnSync(process.execPath, ['node_modules/electron-vite/bin/electron-vite.js', 'build'], { stdio: 'inherit' });
    const ui = spawnSync(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'bench/ui-bench.ts', '--data', args.dataDir], {
      stdio: 'inherit',
    });
    if (ui.status !== 0) failures.push({ name: 'ui', error: `bench/ui-bench.ts exited ${ui.status ?? ui.signal ?? '?'}` });
  }

  let ls: LsBenchResult | null = null;
  if (!args.quick && (args.only.length === 0 || args.only.includes('ls'))) {
    console.log('\npalimpsest ls vs ccusage session --json --offline (docs/performance.md)');
    ls = await benchLs({ runs: Math.max(args.runs, 5), dataDir: args.dataDir, noCcusage: args.noCcusage });
  }

  let index: IndexBenchResult | null = null;
  if (!args.quick && (args.only.length === 0 || args.only.includes('index'))) {
    console.log(`\nthe session index and search on a ~${args.indexGb} GB library (docs/search.md)`);
    index = await benchIndex({ dataDir: args.dataDir, gb: args.indexGb, runs: args.runs, noCcusage: args.noCcusage });
    console.log(renderIndexBench(index));
  }

  let health: HealthBenchResult | null = null;
  if (!args.quick && (args.only.length === 0 || args.only.includes('health'))) {
    console.log('\nThe health report of a generated library: cold and warm row cache, beside reading the bytes (docs/health.md)');
    health = await benchHealth({ dataDir: args.dataDir, runs: Math.max(args.runs, 3) });
  }

  let exported: ExportBenchResult | null = null;
  if (args.only.length === 0 || args.only.includes('export')) {
    console.log('\nexport --html of the largest committed real session, beside a read + JSON.parse of the file (docs/export.md)');
    try {
      exported = await benchExport(Math.max(args.runs, 5));
    } catch (e) {
      failures.push({ name: 'export', error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
    }
  }

  const outPath = args.out ?? join(args.dataDir, 'latest.json');
  const doc = {
    command: `npm run bench${argv.length > 0 ? ` -- ${argv.join(' ')}` : ''}`,
    date: new Date().toISOString(),
    machine,
    targets: {
      loadRatio: TARGET_RATIO,
      peakRssRatioOn1GB: TARGET_RSS,
      viewP99MsOnE1m: TARGET_P99_MS,
      tokensFullCountS: TARGET_FULL_COUNT_S,
      tokensSeekP99Ms: TARGET_SEEK_P99_MS,
    },
    results,
    claude,
    tokens,
    ls,
    index,
    health,
    export: exported,
    rerun,
    record,
    commands,
    failures,
  };
  mkdirSync(resolve(outPath, '..'), { recursive: true });
  writeFileSync(outPath, JSON.stringify(doc, null, 2) + '\n');
  console.log(`\nWrote ${outPath}`);
  if (failures.length > 0) process.exitCode = 1;
}

const argv = process.argv.slice(2);
if (argv[0] === '--child') await child(argv.slice(1));
else if (argv[0] === '--cold') await coldChild(argv.slice(1));
else if (argv[0] === '--mock-child') await mockChild(argv.slice(1));
else if (argv[0] === '--record-child') await recordChild(argv.slice(1));
else if (argv[0] === '--encoder-child') await encoderChild(argv[1] ?? 'lean');
else {
  try {
    await parent(argv);
  } catch (e) {
    console.error(e instanceof Error ? e.message : String(e));
    process.exitCode = 2;
  }
}
