// The session index and search (docs/search.md), for `npm run bench -- --only index`:
//
//   npm run bench -- --only index                  a ~100 MB library (the default)
//   npm run bench -- --only index --index-gb 1     the ~1 GB library of the targets
//
// The library is made once under bench/data/index-library-<size>/ from the real samples committed in
// fixtures/ (Claude Code: marot/spotter, MIT; Codex: see fixtures/codex/README.md): the Claude Code
// tree of bench/ls.ts (ensureClaudeTree: every copy with its own ids, same bytes and structure) and
// as many copies of the three Codex rollouts, each copy's uuids rewritten by the same bijection,
// under sessions/YYYY/MM/DD. About three quarters of the bytes are Claude Code, one quarter Codex.
//
// In one process, against a baseline measured in the same run on the same files:
//   - baseline: read every file and JSON.parse every line (what any reader of these logs pays);
//   - first index: an empty index folder, SessionCatalog.update({ content: true }) — walk, fast
//     scan, the real importers and replay, diagnostics, item texts into FTS5;
//   - re-index after touching one file (its mtime): the same update again;
//   - search: each query of QUERIES, `--runs` rounds (at least 5), p50 and p95 over all of them;
//     then the same rounds with every match ranked (no cap, search.ts RANK_CAP): what the cap gains;
//   - ccusage (installed on demand as bench/ls.ts does; not a dependency), `ccusage session --json
//     --offline` over the same Claude Code tree: ccusage reads Claude Code only, so its row covers
//     the Claude Code part of the library, and the index's first run is given for that part too.
// Targets: first index ≤ 60 s on the 1 GB library, re-index ≤ 1 s, search p95 ≤ 100 ms.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RANK_CAP, searchCatalog } from '../src/main/catalog/search';
import { extractSession } from '../src/main/catalog/extract';
import { SessionCatalog, type UpdateOptions } from '../src/main/catalog/update';
import { ccusageBinary, defaultSamples, ensureClaudeTree, rewriter, type TreeSpec } from './ls';
import { median } from './stats';

export const INDEX_TARGET_FIRST_S = 60;
export const INDEX_TARGET_TOUCH_S = 1;
export const SEARCH_TARGET_P95_MS = 100;

/** Queries a user would type: words, prefixes, phrases, with and without filters. */
const QUERIES: readonly { q: string; filters?: Parameters<typeof searchCatalog>[2] }[] = [
  { q: 'compaction' },
  { q: 'compact*' },
  { q: '"before compaction"' },
  { q: 'error' },
  { q: 'test*' },
  { q: '"Request interrupted by user"' },
  { q: 'transcript' },
  { q: 'mix*' },
  { q: 'REDACTED*', filters: { harness: 'codex' } },
  { q: 'summary', filters: { has: 'compaction' } },
  { q: 'server', filters: { harness: 'claude-code', since: '2026-01-01T00:00:00.000Z' } },
  { q: 'elixir OR phoenix' },
];

const CODEX = [
  'rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl',
  'rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl',
  'rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl',
];

export interface IndexBenchResult {
  readonly library: { readonly root: string; readonly files: number; readonly bytes: number; readonly sessions: number };
  readonly baselineS: number;
  readonly firstS: number;
  readonly firstRatio: number;
  /** CPU time of the first index over all threads (workers included), and of the baseline: less moved by other load than wall time. */
  readonly firstCpuS: number;
  readonly baselineCpuS: number;
  /** Worker threads that read sessions in the first index (PALIMPSEST_INDEX_THREADS; 0: this thread). */
  readonly threads: number;
  /** Queries whose matches were more than search.ts ranks (RANK_CAP): their hits say so. */
  readonly capped: number;
  readonly touchS: number;
  readonly touchRead: number;
  readonly search: {
    readonly queries: number;
    readonly p50Ms: number;
    readonly p95Ms: number;
    /** CPU time per query (this process). */
    readonly cpuP50Ms: number;
    readonly cpuP95Ms: number;
    /** The same queries ranking every match (no cap). */
    readonly uncappedP50Ms: number;
    readonly uncappedP95Ms: number;
  };
  readonly indexBytes: number;
  readonly ccusage: { readonly version: string; readonly s: number; readonly claudeIndexS: number } | { readonly skipped: string };
}

function filesUnder(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) filesUnder(p, out);
    else if (e.name.endsWith('.jsonl')) out.push(p);
  }
  return out;
}

/** Codex copies under `root`/sessions, made once (a `.complete` file says how many). */
function ensureCodex(root: string, copies: number, log: (s: string) => void): void {
  const marker = join(root, '.complete');
  if (existsSync(marker) && readFileSync(marker, 'utf8') === String(copies)) return;
  rmSync(root, { recursive: true, force: true });
  log(`building ${copies * CODEX.length} Codex rollouts under ${root}`);
  const texts = CODEX.map((n) => readFileSync(join('fixtures', 'codex', n), 'utf8'));
  for (let c = 0; c < copies; c++) {
    const rw = rewriter(10_000 + c);
    const day = join(root, 'sessions', '2026', '02', String(1 + (c % 28)).padStart(2, '0'));
    mkdirSync(day, { recursive: true });
    CODEX.forEach((n, i) => writeFileSync(join(day, rw(n)), rw(texts[i] as string)));
  }
  writeFileSync(marker, String(copies));
}

const cpuSince = (from: NodeJS.CpuUsage): number => {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1e6;
};

function baseline(files: readonly string[]): number {
  const t = performance.now();
  let n = 0;
  for (const f of files) {
    for (const line of readFileSync(f, 'utf8').split('\n')) {
      if (line.length === 0) continue;
      try {
        JSON.parse(line);
        n++;
      } catch {
        // A bad line is skipped, as the reader does.
      }
    }
  }
  if (n === 0) throw new Error('bench: no line parsed');
  return (performance.now() - t) / 1000;
}

export async function benchIndex(opts: {
  dataDir: string;
  gb: number;
  runs: number;
  noCcusage: boolean;
  log?: (s: string) => void;
}): Promise<IndexBenchResult> {
  const log = opts.log ?? ((s: string) => console.log(s));
  // Per 0.1 GB: 20 copies of the 3.5 MB Claude session with its subagents, 80 of each small one,
  // 25 of the Codex trio (1.1 MB): ~70 + ~5 + ~27 MB.
  const k = opts.gb / 0.1;
  const spec: TreeSpec = { big: Math.round(20 * k), smallEach: Math.round(80 * k), projects: 12 };
  const tag = `${opts.gb}gb`.replace('.', '_');
  const lib = join(opts.dataDir, `index-library-${tag}`);
  const tree = ensureClaudeTree(join(lib, 'claude'), defaultSamples(process.cwd()), spec, log);
  ensureCodex(join(lib, 'codex'), Math.round(25 * k), log);
  const files = filesUnder(lib);
  const bytes = files.reduce((a, f) => a + statSync(f).size, 0);
  log(`  library: ${files.length} files, ${(bytes / 1e6).toFixed(0)} MB`);

  const cache = join(opts.dataDir, `index-cache-${tag}`);
  rmSync(cache, { recursive: true, force: true });
  const options: UpdateOptions = {
    env: { CLAUDE_CONFIG_DIR: join(lib, 'claude'), CODEX_HOME: join(lib, 'codex') },
    home: join(lib, 'home'),
    harnesses: ['claude-code', 'codex'],
    content: true,
    extract: extractSession,
  };

  let cpu = process.cpuUsage();
  const baselineS = baseline(files);
  const baselineCpuS = cpuSince(cpu);
  log(`  baseline (read + JSON.parse every line): ${baselineS.toFixed(1)} s`);

  const catalog = SessionCatalog.open(cache);
  let t = performance.now();
  cpu = process.cpuUsage();
  const first = await catalog.update(options);
  const firstS = (performance.now() - t) / 1000;
  const firstCpuS = cpuSince(cpu);
  const threads = first.threads;
  log(
    `  first index: ${firstS.toFixed(1)} s, ${first.sessions} sessions (${(firstS / baselineS).toFixed(1)}× the baseline), CPU ${firstCpuS.toFixed(1)} s (${(firstCpuS / baselineCpuS).toFixed(1)}× the baseline's), ${threads} reading threads`,
  );
  for (const p of first.problems.slice(0, 5)) log(`    ${p}`);

  const touched = files[Math.floor(files.length / 2)] as string;
  const now = new Date();
  utimesSync(touched, now, new Date(now.getTime() + 60_000));
  t = performance.now();
  const again = await catalog.update(options);
  const touchS = (performance.now() - t) / 1000;
  log(`  re-index after touching one file: ${(touchS * 1000).toFixed(0)} ms, ${again.added + again.changed + again.appended} read`);

  const times: number[] = [];
  const rounds = Math.max(5, opts.runs);
  const cappedQueries = new Set<string>();
  // CPU time per query too: on the shared machine a query's wall time is mostly waiting for a core.
  const cpuTimes: number[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const { q, filters } of QUERIES) {
      const s = performance.now();
      const c = process.cpuUsage();
      const answer = searchCatalog(catalog.db, q, filters ?? {}, 50);
      cpuTimes.push(cpuSince(c) * 1000);
      times.push(performance.now() - s);
      if (answer.capped !== null) cappedQueries.add(q);
    }
  }
  cpuTimes.sort((a, b) => a - b);
  const cpuP95 = cpuTimes[Math.min(cpuTimes.length - 1, Math.floor(cpuTimes.length * 0.95))] as number;
  times.sort((a, b) => a - b);
  const p95 = times[Math.min(times.length - 1, Math.floor(times.length * 0.95))] as number;
  // The same queries with every match ranked (no cap), in the same run: what the cap gains.
  const uncapped: number[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const { q, filters } of QUERIES) {
      const s = performance.now();
      searchCatalog(catalog.db, q, filters ?? {}, 50, Number.MAX_SAFE_INTEGER - 1);
      uncapped.push(performance.now() - s);
    }
  }
  uncapped.sort((a, b) => a - b);
  const uncappedP95 = uncapped[Math.min(uncapped.length - 1, Math.floor(uncapped.length * 0.95))] as number;
  log(
    `  search: ${times.length} queries, p50 ${median(times).toFixed(1)} ms, p95 ${p95.toFixed(1)} ms; capped at ${RANK_CAP}: ${[...cappedQueries].join(', ') || 'none'}; CPU p50 ${median(cpuTimes).toFixed(1)} ms, p95 ${cpuP95.toFixed(1)} ms; without the cap p50 ${median(uncapped).toFixed(1)} ms, p95 ${uncappedP95.toFixed(1)} ms`,
  );
  catalog.close();
  const indexBytes = ['index.db', 'index.db-wal'].reduce((a, n) => a + (existsSync(join(cache, n)) ? statSync(join(cache, n)).size : 0), 0);

  let ccusage: IndexBenchResult['ccusage'] = { skipped: '--no-ccusage' };
  if (!opts.noCcusage) {
    const bin = ccusageBinary(log);
    if (typeof bin === 'string') ccusage = { skipped: bin };
    else {
      t = performance.now();
      const r = spawnSync(bin.binary, ['session', '--json', '--offline'], {
        env: { ...process.env, CLAUDE_CONFIG_DIR: tree.configDir },
        encoding: 'utf8',
        maxBuffer: 1 << 28,
      });
      const s = (performance.now() - t) / 1000;
      if (r.status !== 0) ccusage = { skipped: `ccusage exited ${r.status ?? r.signal ?? '?'}: ${(r.stderr ?? '').split('\n')[0] ?? ''}` };
      else {
        // The index's first run over the same Claude Code tree alone, for the like-for-like figure.
        const claudeCache = `${cache}-claude`;
        rmSync(claudeCache, { recursive: true, force: true });
        const c2 = SessionCatalog.open(claudeCache);
        const t2 = performance.now();
        await c2.update({ ...options, harnesses: ['claude-code'] });
        const claudeIndexS = (performance.now() - t2) / 1000;
        c2.close();
        rmSync(claudeCache, { recursive: true, force: true });
        ccusage = { version: bin.version, s, claudeIndexS };
        log(
          `  ccusage ${bin.version} over the Claude Code part: ${s.toFixed(1)} s; the first index of that part: ${claudeIndexS.toFixed(1)} s`,
        );
      }
    }
  }
  if ('skipped' in ccusage) log(`  ccusage: not run (${ccusage.skipped})`);
  return {
    library: { root: lib, files: files.length, bytes, sessions: first.sessions },
    baselineS,
    firstS,
    firstRatio: firstS / baselineS,
    firstCpuS,
    baselineCpuS,
    threads,
    capped: cappedQueries.size,
    touchS,
    touchRead: again.added + again.changed + again.appended,
    search: {
      queries: times.length,
      p50Ms: median(times),
      p95Ms: p95,
      cpuP50Ms: median(cpuTimes),
      cpuP95Ms: cpuP95,
      uncappedP50Ms: median(uncapped),
      uncappedP95Ms: uncappedP95,
    },
    indexBytes,
    ccusage,
  };
}

const mark = (ok: boolean): string => (ok ? 'ok' : 'MISSED');

export function renderIndexBench(r: IndexBenchResult): string {
  const gb = r.library.bytes / 1e9;
  return [
    `  library ${r.library.files} files, ${(r.library.bytes / 1e6).toFixed(0)} MB, ${r.library.sessions} sessions; index ${(r.indexBytes / 1e6).toFixed(0)} MB`,
    `  first index ${r.firstS.toFixed(1)} s (${r.firstRatio.toFixed(1)}× read + JSON.parse, ${r.baselineS.toFixed(1)} s)${gb >= 0.9 ? ` ≤ ${INDEX_TARGET_FIRST_S} s: ${mark(r.firstS <= INDEX_TARGET_FIRST_S)}` : ''}; ${r.threads} reading threads`,
    `  first index CPU ${r.firstCpuS.toFixed(1)} s (${(r.firstCpuS / r.baselineCpuS).toFixed(1)}× the baseline's ${r.baselineCpuS.toFixed(1)} s)`,
    `  re-index after touching one file ${(r.touchS * 1000).toFixed(0)} ms (${r.touchRead} read) ≤ ${INDEX_TARGET_TOUCH_S} s: ${mark(r.touchS <= INDEX_TARGET_TOUCH_S)}`,
    `  search p95 ${r.search.p95Ms.toFixed(1)} ms (p50 ${r.search.p50Ms.toFixed(1)}, ${r.search.queries} queries; ${r.capped} of ${QUERIES.length} capped at ${RANK_CAP} matches) ≤ ${SEARCH_TARGET_P95_MS} ms: ${mark(r.search.p95Ms <= SEARCH_TARGET_P95_MS)}`,
    `  search CPU p95 ${r.search.cpuP95Ms.toFixed(1)} ms (p50 ${r.search.cpuP50Ms.toFixed(1)})`,
    `  search without the cap p95 ${r.search.uncappedP95Ms.toFixed(1)} ms (p50 ${r.search.uncappedP50Ms.toFixed(1)})`,
    'skipped' in r.ccusage
      ? `  ccusage: not run (${r.ccusage.skipped})`
      : `  ccusage ${r.ccusage.version} on the Claude Code part ${r.ccusage.s.toFixed(1)} s; the first index of that part ${r.ccusage.claudeIndexS.toFixed(1)} s (${(r.ccusage.claudeIndexS / r.ccusage.s).toFixed(1)}×)`,
  ].join('\n');
}
