// Questions a user asks of a long session beyond its views: an inspector step, a search, the token
// report before any count, and `palimpsest inspect --json`. bench.ts asks them of e1m (and of any
// file named with --only); bench/questions-cli.ts asks them alone, on any tree that has these APIs,
// to compare two trees (docs/performance.md, "Questions of a long session").
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { indexOrFail, viewHead } from '../src/main/api/session/views';
import { searchSession } from '../src/main/search/session-search';
import type { SessionInspector } from '../src/main/session/inspector';
import { InlineCounter } from '../src/main/tokens/pool';
import { SessionTokens } from '../src/main/tokens/service';

export interface Questions {
  /** searchSession for SEARCH_QUERY: wall time, texts that hold it, events searched in their preview only. */
  readonly search: { readonly ms: number; readonly total: number; readonly partial: number };
  /**
   * The token report before any count (estimates from characters): wall time, and when the tree
   * builds it in steps (SessionTokens.reportSteps) how many and the longest — what the app's main
   * process is blocked for at most.
   */
  readonly report: { readonly ms: number; readonly steps: number | null; readonly longestStepMs: number | null };
  /** `palimpsest inspect FILE --json` in a child process (counts every text), wall time. */
  readonly inspectJsonMs: number | null;
  /**
   * A step of the inspector (getViewHead's answer: the view, its raw items by fate) over STEPS
   * requests stepping back from the last, a view not built before each time: the first, the median
   * and the slowest, ms.
   */
  readonly step: { readonly firstMs: number; readonly medianMs: number; readonly maxMs: number };
}

/** Requests stepped through for `step`, 37 apart (so that no view is cached from the one before). */
const STEPS = 30;

/** A word the generator's vocabulary uses often (bench/generate.ts), so that the search has work. */
export const SEARCH_QUERY = 'replay';

type ReportSteps = Generator<void, unknown, void>;

export async function askQuestions(path: string, inspector: SessionInspector, log: (msg: string) => void): Promise<Questions> {
  const n = inspector.replay().requests.length;
  const ms: number[] = [];
  for (let k = 0; k < STEPS && n - 1 - k * 37 >= 0; k++) {
    const s0 = performance.now();
    viewHead(indexOrFail(inspector, inspector.defaultBranch, n - 1 - k * 37));
    ms.push(performance.now() - s0);
  }
  const sorted = [...ms].sort((a, b) => a - b);
  const step = { firstMs: ms[0] ?? NaN, medianMs: sorted[sorted.length >> 1] ?? NaN, maxMs: sorted[sorted.length - 1] ?? NaN };
  log(
    `inspector step (view head) over ${ms.length} requests: first ${step.firstMs.toFixed(0)} ms, median ${step.medianMs.toFixed(1)} ms, max ${step.maxMs.toFixed(0)} ms`,
  );

  let t0 = performance.now();
  const found = await searchSession(inspector, SEARCH_QUERY, inspector.defaultBranch, 100);
  const search = { ms: performance.now() - t0, total: found.total, partial: found.partial };
  log(
    `search "${SEARCH_QUERY}": ${search.ms.toFixed(0)} ms, ${search.total.toLocaleString('en-US')} texts, ${search.partial} in preview only`,
  );

  const tokens = new SessionTokens(inspector, { counter: new InlineCounter() });
  // An earlier tree has no reportSteps: its report is one block.
  const stepped = (tokens as unknown as { reportSteps?: () => ReportSteps }).reportSteps?.bind(tokens);
  let steps: number | null = null;
  let longest: number | null = null;
  t0 = performance.now();
  if (stepped) {
    const g = stepped();
    steps = 0;
    longest = 0;
    for (;;) {
      const s0 = performance.now();
      const r = g.next();
      longest = Math.max(longest, performance.now() - s0);
      steps++;
      if (r.done) break;
    }
  } else {
    tokens.report();
  }
  const report = { ms: performance.now() - t0, steps, longestStepMs: longest };
  log(
    `token report before counting: ${(report.ms / 1000).toFixed(1)} s${steps === null ? ' in one block' : ` in ${steps} steps, longest ${(longest ?? 0).toFixed(0)} ms`}`,
  );

  const cli = fileURLToPath(new URL('./cli.js', import.meta.url));
  let inspectJsonMs: number | null = null;
  if (existsSync(cli)) {
    t0 = performance.now();
    const run = spawnSync(process.execPath, [cli, 'inspect', path, '--json'], { stdio: 'ignore' });
    inspectJsonMs = run.status === 0 || run.status === 1 ? performance.now() - t0 : null;
    log(
      `palimpsest inspect --json: ${inspectJsonMs === null ? `failed (exit ${String(run.status)})` : `${(inspectJsonMs / 1000).toFixed(1)} s`}`,
    );
  }
  return { search, report, inspectJsonMs, step };
}
