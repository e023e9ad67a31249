// The health view's data on a generated library, for `npm run bench -- --only health`
// (bench/bench.ts calls benchHealth()). The target (docs/health.md): the Health view's first paint
// within 1 s on a library of a few thousand sessions. Two sources, timed in this process beside a
// baseline measured in the same process (reading every file's bytes once):
//
// - loading every session (SessionFilesHealthSource, what `report DIR` uses): cold (empty row
//   cache) and warm;
// - the session index (CatalogHealthSource, what `report` and the Health tab use for the harnesses'
//   folders): cold (an empty index: every session read, its items indexed for search too), warm
//   (the update finds nothing changed, then the rows are read: the tab's settled answer), and the
//   first paint (the rows the index holds, read without an update: the tab's first answer).
//
// The library is copies of real sessions committed in fixtures/ (Codex CLI rollouts and Claude
// Code samples, fixtures/README.md), laid out as each harness keeps them (one folder per project
// under a root per harness), written once under the data folder.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CatalogHealthSource } from '../src/main/catalog/health-source';
import { SessionFilesHealthSource } from '../src/main/health/session-files';
import type { HealthRows } from '../src/main/health/source';
import type { Harness } from '../src/main/discovery/types';
import { healthReport } from '../src/shared/health/report';
import { median } from './stats';

const SOURCES: readonly { harness: Harness; path: string }[] = [
  { harness: 'codex', path: 'fixtures/codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl' },
  { harness: 'codex', path: 'fixtures/codex/rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl' },
  { harness: 'claude-code', path: 'fixtures/claude-code/short.jsonl' },
  { harness: 'claude-code', path: 'fixtures/claude-code/tool_heavy.jsonl' },
  { harness: 'claude-code', path: 'fixtures/claude-code/microcompact.jsonl' },
  { harness: 'palimpsest', path: 'fixtures/palimpsest/compaction-lifecycle.jsonl' },
];
const HARNESSES: readonly Harness[] = ['codex', 'claude-code', 'palimpsest'];
const LIBRARY_VERSION = 2;

export interface HealthBenchResult {
  readonly sessions: number;
  readonly bytes: number;
  readonly baselineMs: number[];
  /** Loading every session. */
  readonly coldMs: number;
  readonly warmMs: number[];
  readonly coldRatio: number;
  readonly warmRatio: number;
  /** The session index. */
  readonly indexColdMs: number;
  readonly indexWarmMs: number[];
  readonly firstPaintMs: number[];
  readonly indexColdRatio: number;
  readonly indexWarmRatio: number;
  readonly firstPaintRatio: number;
  readonly firstPaintWithinTarget: boolean;
}

/** The library: `sessions` copies of the sources under a root per harness, 20 projects. Made once. */
function library(dataDir: string, sessions: number): string {
  const root = join(dataDir, `health-lib-${sessions}-v${LIBRARY_VERSION}`);
  if (existsSync(join(root, 'done'))) return root;
  rmSync(root, { recursive: true, force: true });
  for (let i = 0; i < sessions; i++) {
    const src = SOURCES[i % SOURCES.length] as (typeof SOURCES)[number];
    const dir = join(root, src.harness, `p${i % 20}`);
    mkdirSync(dir, { recursive: true });
    const name = src.path.split('/').pop() as string;
    // Codex rollouts are found by their name's prefix.
    copyFileSync(src.path, join(dir, name.startsWith('rollout-') ? `rollout-s${i}-${name.slice(8)}` : `s${i}-${name}`));
  }
  writeFileSync(join(root, 'done'), '');
  return root;
}

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.jsonl') ? [join(dir, e.name)] : [],
  );
}

/** The rows of a source and their report, timed. */
async function timed(rowsOf: () => Promise<HealthRows | null> | HealthRows | null): Promise<number> {
  const t = performance.now();
  const rows = await rowsOf();
  if (!rows || rows.rows.length === 0) throw new Error('bench: the health source gave no rows');
  healthReport(rows, 'day');
  return performance.now() - t;
}

export async function benchHealth(options: { dataDir: string; sessions?: number; runs?: number }): Promise<HealthBenchResult> {
  const sessions = options.sessions ?? 3000;
  const runs = options.runs ?? 3;
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
  const indexDir = mkdtempSync(join(options.dataDir, 'health-index-'));
  const home = mkdtempSync(join(options.dataDir, 'health-home-'));
  try {
    const files = () => new SessionFilesHealthSource({ dir, cacheDir });
    const coldMs = await timed(() => files().rows());
    const warmMs: number[] = [];
    for (let r = 0; r < runs; r++) warmMs.push(await timed(() => files().rows()));

    // Only the library's roots: no harness folder of this machine is walked.
    const discover = { env: {}, home, harnesses: HARNESSES, roots: HARNESSES.map((h) => ({ harness: h, path: join(dir, h) })) };
    const index = () => new CatalogHealthSource({ discover, dir: indexDir });
    const indexColdMs = await timed(() => index().rows());
    const indexWarmMs: number[] = [];
    const firstPaintMs: number[] = [];
    for (let r = 0; r < runs; r++) {
      indexWarmMs.push(await timed(() => index().rows()));
      firstPaintMs.push(await timed(() => index().stored()));
    }
    const base = median(baselineMs);
    const result = {
      sessions: all.length,
      bytes,
      baselineMs,
      coldMs,
      warmMs,
      coldRatio: coldMs / base,
      warmRatio: median(warmMs) / base,
      indexColdMs,
      indexWarmMs,
      firstPaintMs,
      indexColdRatio: indexColdMs / base,
      indexWarmRatio: median(indexWarmMs) / base,
      firstPaintRatio: median(firstPaintMs) / base,
      firstPaintWithinTarget: median(firstPaintMs) <= 1000,
    };
    const ms = (x: number, ratio: number): string => `${x.toFixed(0)} ms (${ratio.toFixed(2)}×)`;
    console.log(`  ${all.length} sessions, ${(bytes / 1e6).toFixed(1)} MB: reading their bytes ${base.toFixed(0)} ms`);
    console.log(`  loading every session: cold ${ms(coldMs, result.coldRatio)}, warm row cache ${ms(median(warmMs), result.warmRatio)}`);
    console.log(
      `  session index: cold ${ms(indexColdMs, result.indexColdRatio)}, update + rows ${ms(median(indexWarmMs), result.indexWarmRatio)}, first paint (rows held) ${ms(median(firstPaintMs), result.firstPaintRatio)} (target ≤ 1000 ms: ${result.firstPaintWithinTarget ? 'met' : 'missed'})`,
    );
    return result;
  } finally {
    for (const d of [cacheDir, indexDir, home]) rmSync(d, { recursive: true, force: true });
  }
}
