// The health view's data on a generated library, for `npm run bench -- --only health`
// (bench/bench.ts calls benchHealth()). The target (docs/health.md): the Health view's first paint
// within 1 s on a library of a few thousand sessions. What the view waits for is the host's report
// (SessionFilesHealthSource rows, then healthReport); with the row cache warm that is the figure
// held against the second. Cold (an empty cache: every session loaded) and warm are timed in this
// process beside a baseline measured in the same process: reading every file's bytes once.
//
// The library is copies of real sessions committed in fixtures/ (Codex CLI rollouts and Claude
// Code samples, fixtures/README.md), one folder per project, written once under the data folder.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SessionFilesHealthSource } from '../src/main/health/session-files';
import { healthReport } from '../src/shared/health/report';
import { median } from './stats';

const SOURCES = [
  'fixtures/codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl',
  'fixtures/codex/rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl',
  'fixtures/claude-code/short.jsonl',
  'fixtures/claude-code/tool_heavy.jsonl',
  'fixtures/claude-code/microcompact.jsonl',
  'fixtures/palimpsest/compaction-lifecycle.jsonl',
];
const LIBRARY_VERSION = 1;

export interface HealthBenchResult {
  readonly sessions: number;
  readonly bytes: number;
  readonly baselineMs: number[];
  readonly coldMs: number;
  readonly warmMs: number[];
  readonly coldRatio: number;
  readonly warmRatio: number;
  readonly warmWithinTarget: boolean;
}

/** The library: `sessions` copies of the sources, 20 projects. Made once. */
function library(dataDir: string, sessions: number): string {
  const root = join(dataDir, `health-lib-${sessions}-v${LIBRARY_VERSION}`);
  if (existsSync(join(root, 'done'))) return root;
  rmSync(root, { recursive: true, force: true });
  for (let i = 0; i < sessions; i++) {
    const dir = join(root, `p${i % 20}`);
    mkdirSync(dir, { recursive: true });
    const src = SOURCES[i % SOURCES.length] as string;
    copyFileSync(src, join(dir, `s${i}-${src.split('/').pop() as string}`));
  }
  writeFileSync(join(root, 'done'), '');
  return root;
}

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.jsonl') ? [join(dir, e.name)] : [],
  );
}

async function report(dir: string, cacheDir: string): Promise<number> {
  const t = performance.now();
  const rows = await new SessionFilesHealthSource({ dir, cacheDir }).rows();
  healthReport(rows, 'day');
  return performance.now() - t;
}

export async function benchHealth(options: { dataDir: string; sessions?: number; runs?: number }): Promise<HealthBenchResult> {
  const sessions = options.sessions ?? 3000;
  const dir = library(options.dataDir, sessions);
  const all = files(dir);
  const bytes = all.reduce((n, f) => n + readFileSync(f).length, 0);
  const baselineMs: number[] = [];
  for (let r = 0; r < 3; r++) {
    const t = performance.now();
    for (const f of all) readFileSync(f);
    baselineMs.push(performance.now() - t);
  }
  const cacheDir = mkdtempSync(join(options.dataDir, 'health-cache-'));
  try {
    const coldMs = await report(dir, cacheDir);
    const warmMs: number[] = [];
    for (let r = 0; r < (options.runs ?? 3); r++) warmMs.push(await report(dir, cacheDir));
    const base = median(baselineMs);
    const result = {
      sessions: all.length,
      bytes,
      baselineMs,
      coldMs,
      warmMs,
      coldRatio: coldMs / base,
      warmRatio: median(warmMs) / base,
      warmWithinTarget: median(warmMs) <= 1000,
    };
    console.log(
      `  ${all.length} sessions, ${(bytes / 1e6).toFixed(1)} MB: reading their bytes ${base.toFixed(0)} ms; report cold ${coldMs.toFixed(0)} ms (${result.coldRatio.toFixed(1)}×), warm ${median(warmMs).toFixed(0)} ms (${result.warmRatio.toFixed(1)}×; target ≤ 1000 ms: ${result.warmWithinTarget ? 'met' : 'missed'})`,
    );
    return result;
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
}
