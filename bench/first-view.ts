import { closeSync, existsSync, openSync, readSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHandlers, type Handlers } from '../src/main/api/handlers';
import { SessionRegistry } from '../src/main/api/sessions';
import { sessionSummary } from '../src/main/api/session/summary';
import { closeSessionTokens } from '../src/main/api/session/tokens';
import { FIRST_VIEW } from '../src/main/api/first-view';
import type { ApiResult } from '../src/shared/api/contract';
import { DATA_SET, ensureData } from './generate';
import { median } from './stats';

/*
 * A large session's first view in the host (src/main/api/first-view.ts): on s100mb, the time from
 * `open` to the first answer (the open and its summary, what the app shows first) with the first
 * view, against opening the whole session as before (the baseline, in the same process and
 * rounds, alternately), and the time until the whole session has taken the first view's place.
 * Also the whole open of s100mb's first FIRST_VIEW_MIN_BYTES (whole lines): what a file just under
 * the cut costs, the figure the cut is chosen by; and the time until the whole is in its place while
 * a client asks what the app asks of a first view (`asked`, below): the app's work on the first view
 * shares the cores with the read of the whole. The app's figure, with Chromium, is
 * bench/ui-bench.ts's.
 */

/** The first answer of a first view against the whole open's, at most. */
export const FIRST_VIEW_TARGET_RATIO = 0.25;

export interface FirstViewBench {
  readonly bytes: number;
  /** With the first view: open → its first answer, and → the whole session in its place. */
  readonly firstMs: readonly number[];
  readonly wholeInMs: readonly number[];
  /** The same, → the whole in its place, while a client asks what the app asks of the first view. */
  readonly wholeInAskedMs: readonly number[];
  /** Without (the baseline): open → its answer, the whole session. */
  readonly baselineMs: readonly number[];
  /** The whole open of a file of the cut's size (s100mb's first lines). */
  readonly atCutMs: readonly number[];
  readonly ratio: number;
  readonly pass: boolean;
  /** The whole in its place while asked ÷ the whole open. */
  readonly askedRatio: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function ok<T>(r: ApiResult<T>): T {
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.value;
}

/**
 * What the app asks of a first view until `stop`: the request list and the first request's view,
 * its token meter and the context chart, then, as its panels and banner do, the meter and the chart
 * again every second while their figures are being worked out, and the session every 500 ms.
 */
async function asked(h: Handlers, sessionId: string, stop: () => boolean): Promise<void> {
  ok(await h.listRequests({ sessionId }));
  ok(await h.getViewHead({ sessionId, index: 0 }));
  let meter = ok(await h.getTokenMeter({ sessionId, index: 0 }));
  let series = ok(await h.getTokenSeries({ sessionId }));
  let last = performance.now();
  while (!stop()) {
    await sleep(500);
    if (stop()) return;
    ok(await h.getSessionInfo({ sessionId }));
    if (performance.now() - last < 1000) continue;
    last = performance.now();
    if (meter.counting.state === 'counting' || meter.pending) meter = ok(await h.getTokenMeter({ sessionId, index: 0 }));
    if (series.pending) series = ok(await h.getTokenSeries({ sessionId }));
  }
}

/** Opens with the first view, the app's questions asked meanwhile: open → the whole in its place. */
async function openAsked(path: string): Promise<number> {
  const registry = new SessionRegistry({ allow: 'any', captureDiscovery: null });
  const h = createHandlers({ registry, initialPaths: [] });
  let whole = false;
  try {
    const t0 = performance.now();
    const { sessionId } = ok(await h.openSession({ path }));
    const asking = asked(h, sessionId, () => whole);
    await registry.untilWhole(sessionId, 600_000);
    const ms = performance.now() - t0;
    whole = true;
    await asking;
    if (registry.get(sessionId).partial) throw new Error('the whole session did not come in within 600 s');
    return ms;
  } finally {
    whole = true;
    registry.dispose();
    // The token counter's workers go with the round: the next starts as the first did.
    await closeSessionTokens();
  }
}

async function openOnce(path: string, firstView: boolean): Promise<{ firstMs: number; wholeMs: number }> {
  const registry = new SessionRegistry({ allow: 'any', captureDiscovery: null, ...(firstView ? {} : { firstView: null }) });
  try {
    const t0 = performance.now();
    const s = await registry.open(path);
    sessionSummary(registry.get(s.id));
    const firstMs = performance.now() - t0;
    await registry.untilWhole(s.id, 600_000);
    if (registry.get(s.id).partial) throw new Error('the whole session did not come in within 600 s');
    return { firstMs, wholeMs: performance.now() - t0 };
  } finally {
    registry.dispose();
  }
}

/** s100mb's first whole lines up to FIRST_VIEW_MIN_BYTES, written beside it once. */
function atCut(dataDir: string, path: string): string {
  const out = join(dataDir, `s100mb-first${FIRST_VIEW.minBytes}.jsonl`);
  if (existsSync(out)) return out;
  const buf = Buffer.alloc(FIRST_VIEW.minBytes);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, buf, 0, buf.length, 0);
  } finally {
    closeSync(fd);
  }
  writeFileSync(out, buf.subarray(0, buf.lastIndexOf(0x0a) + 1));
  return out;
}

export async function runFirstViewBench(dataDir: string, runs: number, log: (s: string) => void): Promise<FirstViewBench> {
  const spec = DATA_SET.find((d) => d.name === 's100mb');
  if (!spec) throw new Error('no s100mb in the bench data set');
  const meta = ensureData(dataDir, spec, { log });
  const path = join(dataDir, spec.file);
  const firstMs: number[] = [];
  const wholeInMs: number[] = [];
  const wholeInAskedMs: number[] = [];
  const baselineMs: number[] = [];
  const atCutMs: number[] = [];
  const cutPath = atCut(dataDir, path);
  for (let i = 0; i < runs; i++) {
    const base = await openOnce(path, false);
    baselineMs.push(base.firstMs);
    const first = await openOnce(path, true);
    firstMs.push(first.firstMs);
    wholeInMs.push(first.wholeMs);
    const cut = await openOnce(cutPath, false);
    atCutMs.push(cut.firstMs);
    const askedMs = await openAsked(path);
    wholeInAskedMs.push(askedMs);
    log(
      `run ${i + 1}: whole open ${base.firstMs.toFixed(0)} ms; first view ${first.firstMs.toFixed(0)} ms, whole in its place ${first.wholeMs.toFixed(0)} ms (${askedMs.toFixed(0)} ms while asked as the app asks); a file at the cut opened whole ${cut.firstMs.toFixed(0)} ms`,
    );
  }
  const ratio = median(firstMs) / median(baselineMs);
  log(`(first view: files of ${FIRST_VIEW.minBytes / 2 ** 20} MiB or more, their first ${FIRST_VIEW.prefixBytes / 2 ** 20} MiB)`);
  const askedRatio = median(wholeInAskedMs) / median(baselineMs);
  return {
    bytes: meta.bytes,
    firstMs,
    wholeInMs,
    wholeInAskedMs,
    baselineMs,
    atCutMs,
    ratio,
    pass: ratio <= FIRST_VIEW_TARGET_RATIO,
    askedRatio,
  };
}
