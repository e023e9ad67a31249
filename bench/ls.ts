// `palimpsest ls` against `ccusage session --json --offline` on the same Claude Code tree, for
// `npm run bench` (bench/bench.ts calls benchLs()). The targets (docs/performance.md): the first
// run (empty index) no slower than ccusage, a repeat run (warm index) at most 0.3x of it.
//
// The tree (~90 sessions, ~200 MB) is made once under bench/data/claude-tree/ by replicating the
// real Claude Code samples committed in fixtures/claude-code/ (marot/spotter, MIT; see
// fixtures/README.md): every copy gets its own uuids, session id, message ids, request ids and
// tool-use ids (a bijective per-copy rewrite that keeps every length, so each copy has exactly the
// bytes and structure of its original), so that a tool that de-duplicates by message id + request
// id (ccusage does) sees distinct sessions.
//
//   layout: <tree>/projects/-home-bench-projects-p<k>/<sessionId>.jsonl
//                                                  <sessionId>/subagents/agent-*.jsonl
//
// ccusage is not a dependency: it is installed on demand into ~/.cache/palimpsest-bench (or
// $PALIMPSEST_BENCH_TOOLS) with `npm install --prefix`, and its native build is run directly with
// CLAUDE_CONFIG_DIR pointing at the tree. If it cannot be installed, the comparison is skipped and
// says so. `ls` is run as a user runs it (bin/palimpsest.js), each run a new process; rounds
// alternate `node -e 0` (Node's own start-up: the floor of any `ls`), cold ls, warm ls and
// ccusage, and medians and minimums are reported.
//
// NODE_EXTRA_CA_CERTS, when set (some sandboxes and corporate machines set it for a proxy), makes
// every Node process read and parse that CA bundle before running any JavaScript: about 30 ms on
// the machine of docs/performance.md, for `ls` as for `node -e 0`, none for ccusage (a Bun
// binary). Then each round also runs node -e 0 and both ls runs without it, and both sets of
// figures are reported.
//
// In the same rounds, a repeat `ls` (the index warm: the loader is most of what it pays) is run
// through each way of loading its bundle, so that each has its figure beside the others: bin/
// palimpsest.js as shipped (dist/ls.cjs as a vm.Script); the same without its vm.Script (dist/ls.js
// imported as an ES module: the simplest loader); that with Node's built-ins taken from
// process.getBuiltinModule instead of import statements; and the whole CLI (dist/cli.js ls). The
// two loaders that are not shipped are written under the data folder.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { median, spread } from './stats';

/** Bump when the tree a given version makes changes: an older tree is rebuilt. */
export const TREE_VERSION = 3;

export interface TreeSpec {
  /** Copies of the 3 MB session with compaction (+ its two subagent files). */
  readonly big: number;
  /** Copies of each of the three small samples (short, tool_heavy, dag_compact_after_rewind_preserved). */
  readonly smallEach: number;
  readonly projects: number;
}

export const DEFAULT_TREE: TreeSpec = { big: 57, smallEach: 11, projects: 6 };

export interface TreeInfo {
  readonly root: string;
  /** The folder CLAUDE_CONFIG_DIR points at (it holds projects/). */
  readonly configDir: string;
  readonly sessions: number;
  readonly files: number;
  readonly bytes: number;
  /** The number of sessions of each source sample (by file name). */
  readonly bySource: Readonly<Record<string, number>>;
  readonly built: boolean;
}

const BIG = '4d5611e5-241a-462a-8d15-5122611a9569';
const SMALL = ['short.jsonl', 'tool_heavy.jsonl', 'dag_compact_after_rewind_preserved.jsonl'];
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const API_ID = /\b(msg|req|toolu|srvtoolu)_([0-9A-Za-z]{2,})/g;
const B62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A per-copy bijection on uuids (first 8 hex digits xor a key) and API ids (two base-62 digits shifted). */
export function rewriter(copy: number): (text: string) => string {
  const key = Math.imul(copy + 1, 0x9e3779b1) >>> 0 || 1;
  const s0 = (copy + 1) % 62;
  const s1 = Math.floor((copy + 1) / 62) % 62;
  const shift = (c: string, by: number): string => {
    const i = B62.indexOf(c);
    return i < 0 ? c : (B62[(i + by) % 62] as string);
  };
  return (text) =>
    text
      .replace(UUID, (u) => ((parseInt(u.slice(0, 8), 16) ^ key) >>> 0).toString(16).padStart(8, '0') + u.slice(8))
      .replace(
        API_ID,
        (_m, p: string, body: string) => `${p}_${shift(body[0] as string, s0)}${shift(body[1] as string, s1)}${body.slice(2)}`,
      );
}

/** A sample whose session id is not a uuid (the synthetic ones) gets one, so that its copies differ. */
function withUuidSession(text: string, copy: number): string {
  const id = sessionIdOf(text);
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id)) return text;
  const fresh = `5e551011-0000-4000-8000-${(copy + 1).toString(16).padStart(12, '0')}`;
  return text.split(`"sessionId":"${id}"`).join(`"sessionId":"${fresh}"`);
}

function sessionIdOf(text: string): string {
  const m = /"sessionId":"([^"]+)"/.exec(text);
  if (!m?.[1]) throw new Error('a sample without a sessionId');
  return m[1];
}

function sizeOfTree(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      const s = sizeOfTree(p);
      files += s.files;
      bytes += s.bytes;
    } else if (e.isFile() && e.name.endsWith('.jsonl')) {
      files++;
      bytes += statSync(p).size;
    }
  }
  return { files, bytes };
}

/**
 * Makes the tree under `root` unless a complete one of this version and spec is there already
 * (a `.complete` file says so). `samples` is the folder holding the Claude Code samples.
 */
export function ensureClaudeTree(
  root: string,
  samples: string,
  spec: TreeSpec = DEFAULT_TREE,
  log: (s: string) => void = () => undefined,
): TreeInfo {
  const configDir = root;
  const marker = join(root, '.complete');
  const want = JSON.stringify({ version: TREE_VERSION, spec });
  const bySource: Record<string, number> = { [`${BIG}.jsonl`]: spec.big };
  for (const s of SMALL) bySource[s] = spec.smallEach;
  const sessions = spec.big + SMALL.length * spec.smallEach;
  if (existsSync(marker) && readFileSync(marker, 'utf8') === want) {
    return { root, configDir, sessions, ...sizeOfTree(join(root, 'projects')), bySource, built: false };
  }
  log(`building the Claude Code tree under ${root} (${sessions} sessions) from ${samples}`);
  const tmp = `${root}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  const projectDir = (i: number): string => join(tmp, 'projects', `-home-bench-projects-p${i % spec.projects}`);

  const bigMain = readFileSync(join(samples, `${BIG}.jsonl`), 'utf8');
  const subDir = join(samples, BIG, 'subagents');
  const bigSubs = readdirSync(subDir)
    .filter((n) => n.endsWith('.jsonl'))
    .sort()
    .map((n) => ({ name: n, text: readFileSync(join(subDir, n), 'utf8') }));
  let copy = 0;
  for (let i = 0; i < spec.big; i++, copy++) {
    const rw = rewriter(copy);
    const text = rw(bigMain);
    const id = sessionIdOf(text);
    const dir = projectDir(copy);
    mkdirSync(join(dir, id, 'subagents'), { recursive: true });
    writeFileSync(join(dir, `${id}.jsonl`), text);
    for (const s of bigSubs) writeFileSync(join(dir, id, 'subagents', s.name), rw(s.text));
  }
  for (const name of SMALL) {
    const src = readFileSync(join(samples, name), 'utf8');
    for (let i = 0; i < spec.smallEach; i++, copy++) {
      const text = rewriter(copy)(withUuidSession(src, copy));
      const dir = projectDir(copy);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${sessionIdOf(text)}.jsonl`), text);
    }
  }
  rmSync(root, { recursive: true, force: true });
  renameSync(tmp, root);
  writeFileSync(marker, want);
  const size = sizeOfTree(join(root, 'projects'));
  log(`  ${size.files} files, ${(size.bytes / 1e6).toFixed(1)} MB`);
  return { root, configDir, sessions, ...size, bySource, built: true };
}

/** The folder of the samples: this repository's copy (fixtures/claude-code), which every clone has. */
export function defaultSamples(repoRoot: string): string {
  return join(repoRoot, 'fixtures', 'claude-code');
}

// ---------------------------------------------------------------------------------------------
// Timing.

export interface LsBenchOptions {
  /** Alternating rounds of cold ls, warm ls and ccusage (default 5; the median and the minimum are reported). */
  readonly runs?: number;
  /** Folder for the tree and the indexes (default bench/data). */
  readonly dataDir?: string;
  /** The repository root (default: the current directory). */
  readonly repoRoot?: string;
  /** Skip ccusage even when it could be installed. */
  readonly noCcusage?: boolean;
  readonly log?: (line: string) => void;
}

export interface Timings {
  readonly runsMs: number[];
  readonly medianMs: number;
  readonly minMs: number;
}

/** One environment's figures for `ls` (and Node's bare start-up in it), with ratios to ccusage. */
export interface LsEnvResult {
  /** `node -e 0` in that environment. */
  readonly node: Timings | null;
  readonly cold: Timings | null;
  readonly warm: Timings | null;
  readonly ratios: { readonly coldMedian: number; readonly warmMedian: number; readonly coldMin: number; readonly warmMin: number } | null;
  readonly pass: { readonly cold: boolean; readonly warm: boolean } | null;
}

export interface LsBenchResult {
  readonly tree: { readonly root: string; readonly sessions: number; readonly files: number; readonly bytes: number };
  /** `node -e 0` in the environment `ls` ran in. */
  readonly node: Timings | null;
  /** How `ls` was run. */
  readonly command: string | null;
  /** Why `ls` or ccusage could not be measured. */
  readonly skipped: string[];
  readonly cold: Timings | null;
  readonly warm: Timings | null;
  readonly ccusage: (Timings & { readonly version: string; readonly binary: string }) | null;
  /** cold / ccusage and warm / ccusage, on medians and on minimums; targets ≤ 1 and ≤ 0.3. */
  readonly ratios: { readonly coldMedian: number; readonly warmMedian: number; readonly coldMin: number; readonly warmMin: number } | null;
  /** What ls found on the tree: sessions, requests, compactions (a check that it read it all). */
  readonly listed: { readonly sessions: number; readonly requests: number; readonly compactions: number } | null;
  readonly pass: { readonly cold: boolean; readonly warm: boolean } | null;
  /** The same without NODE_EXTRA_CA_CERTS, when it is set (see the top of this file); else null. */
  readonly withoutCaCerts: LsEnvResult | null;
  /**
   * A repeat `ls` through each way of loading it (see the top of this file), LOADER_REPEATS of each
   * per round, in turns, in the cleanest environment (without NODE_EXTRA_CA_CERTS when it is set).
   */
  readonly loaders: {
    readonly env: string;
    /**
     * cpu: the process's CPU time, all threads (perf stat's task-clock, else GNU time's user +
     * system to 10 ms), which moves far less than wall time when other jobs share the cores; null
     * without either tool.
     */
    readonly rows: readonly { readonly name: string; readonly command: string; readonly timings: Timings; readonly cpu: Timings | null }[];
  } | null;
}

/** perf, else GNU time, for the CPU time of a loader's process (Linux); without either the loaders get wall time only. */
const PERF = '/usr/bin/perf';
const GNU_TIME = '/usr/bin/time';

/** A process run under perf stat or GNU time: its wall ms and its CPU ms (null when neither reported). */
function runTimed(args: readonly string[], env: NodeJS.ProcessEnv, out: string): Run & { readonly cpuMs: number | null } {
  if (existsSync(PERF)) {
    const r = run(PERF, ['stat', '-x,', '-e', 'task-clock', '-o', out, process.execPath, ...args], env);
    const m = /^([\d.]+),msec,task-clock/m.exec(readFileSync(out, 'utf8'));
    return { ...r, cpuMs: m ? Number(m[1]) : null };
  }
  if (!existsSync(GNU_TIME)) return { ...run(process.execPath, args, env), cpuMs: null };
  const r = run(GNU_TIME, ['-f', '%U %S', '-o', out, process.execPath, ...args], env);
  const [user, system] = readFileSync(out, 'utf8').trim().split('\n').pop()?.split(' ').map(Number) ?? [];
  const cpuMs = user !== undefined && system !== undefined && Number.isFinite(user + system) ? (user + system) * 1000 : null;
  return { ...r, cpuMs };
}

/** Runs of each loader per round. */
const LOADER_REPEATS = 3;

/**
 * The ways of loading `ls` that are compared: bin/palimpsest.js, and two loaders written into
 * `dir`: without its vm.Script, then that with its built-ins from process.getBuiltinModule.
 */
function lsLoaders(repo: string, dir: string): { name: string; args: string[] }[] {
  mkdirSync(dir, { recursive: true });
  const lean = JSON.stringify(pathToFileURL(join(repo, 'dist', 'ls.js')).href);
  const cli = JSON.stringify(pathToFileURL(join(repo, 'dist', 'cli.js')).href);
  const body =
    `const lean = fileURLToPath(new URL(${lean}));\nconst cli = fileURLToPath(new URL(${cli}));\n` +
    `if (process.argv[2] === 'ls' && existsSync(lean)) await import(lean);\nelse await import(cli);\n`;
  const simplest = join(dir, 'import-static.js');
  writeFileSync(
    simplest,
    `// bin/palimpsest.js without its vm.Script: the simplest loader (written by bench/ls.ts).\n` +
      `import { existsSync } from 'node:fs';\nimport { fileURLToPath } from 'node:url';\n${body}`,
  );
  const viaGetBuiltin = join(dir, 'import-getbuiltin.js');
  writeFileSync(
    viaGetBuiltin,
    `// The simplest loader with its built-ins from process.getBuiltinModule (written by bench/ls.ts).\n` +
      `const { existsSync } = process.getBuiltinModule('node:fs');\nconst { fileURLToPath } = process.getBuiltinModule('node:url');\n${body}`,
  );
  return [
    { name: 'bin/palimpsest.js (ls.cjs, vm.Script)', args: [join(repo, 'bin', 'palimpsest.js'), 'ls'] },
    { name: 'no vm.Script: import(ls.js)', args: [simplest, 'ls'] },
    { name: 'that, built-ins by getBuiltinModule', args: [viaGetBuiltin, 'ls'] },
    { name: 'dist/cli.js ls (the whole CLI)', args: [join(repo, 'dist', 'cli.js'), 'ls'] },
  ];
}

const TARGET_COLD = 1;
const TARGET_WARM = 0.3;

function timings(xs: number[]): Timings {
  const { median: medianMs, min } = spread(xs);
  return { runsMs: xs, medianMs, minMs: min };
}

interface Run {
  readonly ms: number;
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function run(cmd: string, args: readonly string[], env: NodeJS.ProcessEnv): Run {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const ms = performance.now() - t0;
  return { ms, code: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? (r.error ? String(r.error) : '') };
}

/** How to run `ls`: bin/palimpsest.js when the CLI knows `ls`, else the discovery bundle itself. */
function lsCommand(repo: string, log: (s: string) => void): { cmd: string; args: string[] } | string {
  const empty = mkdtempSync(join(tmpdir(), 'palimpsest-ls-probe-'));
  try {
    const env = { ...process.env, HOME: empty, PALIMPSEST_CACHE_DIR: join(empty, 'cache') };
    const bin = join(repo, 'bin', 'palimpsest.js');
    const probe = run(process.execPath, [bin, 'ls', '--json', '--harness', 'palimpsest'], env);
    if (probe.code === 0 && probe.stdout.trimStart().startsWith('{')) return { cmd: process.execPath, args: [bin, 'ls'] };
    const lean = join(repo, 'dist', 'ls.js');
    if (existsSync(lean)) {
      log(`  bin/palimpsest.js does not run \`ls\` yet (${probe.stderr.split('\n')[0] ?? ''}); timing dist/ls.js directly`);
      return { cmd: process.execPath, args: [lean, 'ls'] };
    }
    return `\`palimpsest ls\` is not available: bin/palimpsest.js answers "${probe.stderr.split('\n')[0] ?? ''}" and dist/ls.js is not built`;
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
}

/**
 * ccusage 20's native binary, installed on demand. `ccusage@20` first; a release whose native
 * package is not on the registry (20.0.26 here) falls back to 20.0.24, the last seen with one.
 */
export function ccusageBinary(log: (s: string) => void): { binary: string; version: string } | string {
  const prefix = process.env.PALIMPSEST_BENCH_TOOLS ?? join(homedir(), '.cache', 'palimpsest-bench');
  const arch = `${process.platform}-${process.arch}`;
  const native = join(
    prefix,
    'node_modules',
    '@ccusage',
    `ccusage-${arch}`,
    'bin',
    process.platform === 'win32' ? 'ccusage.exe' : 'ccusage',
  );
  const version = (): string => {
    try {
      const pj = JSON.parse(readFileSync(join(prefix, 'node_modules', 'ccusage', 'package.json'), 'utf8')) as { version?: string };
      return pj.version ?? '?';
    } catch {
      return '?';
    }
  };
  for (const spec of ['ccusage@20', 'ccusage@20.0.24']) {
    if (existsSync(native)) break;
    mkdirSync(prefix, { recursive: true });
    log(`  installing ${spec} into ${prefix} (not a dependency of Palimpsest)`);
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const r = spawnSync(npm, ['install', '--prefix', prefix, spec, '--no-audit', '--no-fund', '--no-save', '--loglevel=error'], {
      encoding: 'utf8',
      timeout: 180_000,
    });
    if (r.status !== 0) log(`  npm install ${spec} failed: ${(r.stderr || String(r.error ?? '')).split('\n')[0] ?? ''}`);
  }
  if (!existsSync(native)) return `ccusage's native build for ${arch} could not be installed into ${prefix}`;
  try {
    chmodSync(native, 0o755);
  } catch {
    // The wrapper does the same; a binary that is already executable needs nothing.
  }
  return { binary: native, version: version() };
}

export async function benchLs(options: LsBenchOptions = {}): Promise<LsBenchResult> {
  const log = options.log ?? ((s: string) => console.log(s));
  const repo = resolve(options.repoRoot ?? '.');
  const dataDir = resolve(options.dataDir ?? join(repo, 'bench', 'data'));
  const runs = Math.max(1, options.runs ?? 5);
  const info = ensureClaudeTree(join(dataDir, 'claude-tree'), defaultSamples(repo), DEFAULT_TREE, log);
  const tree = { root: info.root, sessions: info.sessions, files: info.files, bytes: info.bytes };
  log(`ls vs ccusage on ${info.root}: ${info.sessions} sessions, ${info.files} files, ${(info.bytes / 1e6).toFixed(1)} MB`);
  const skipped: string[] = [];

  const ls = lsCommand(repo, log);
  if (typeof ls === 'string') skipped.push(ls);
  let cc: { binary: string; version: string } | null = null;
  if (options.noCcusage) skipped.push('ccusage: skipped (--no-ccusage)');
  else {
    const found = ccusageBinary(log);
    if (typeof found === 'string') skipped.push(`ccusage: ${found}; no comparison`);
    else cc = found;
  }

  const caCerts = (process.env.NODE_EXTRA_CA_CERTS ?? '') !== '';
  const envs = caCerts ? [process.env, withoutCaCerts(process.env)] : [process.env];
  const nodeMs: number[][] = envs.map(() => []);
  const cold: number[][] = envs.map(() => []);
  const warm: number[][] = envs.map(() => []);
  const ccMs: number[] = [];
  let listed: LsBenchResult['listed'] = null;
  let lsFailed = false;
  const lsArgs = ['--root', `claude-code=${info.configDir}`, '--json'];
  const ccEnv = { ...process.env, CLAUDE_CONFIG_DIR: info.configDir };
  const loaders = typeof ls === 'string' ? [] : lsLoaders(repo, join(dataDir, 'ls-loaders'));
  const loaderMs: number[][] = loaders.map(() => []);
  const loaderCpu: number[][] = loaders.map(() => []);
  const timeOut = join(dataDir, 'ls-loaders', 'time.txt');
  for (let round = 0; round < runs; round++) {
    const parts: string[] = [];
    for (let e = 0; e < envs.length && typeof ls !== 'string' && !lsFailed; e++) {
      const cache = join(dataDir, 'ls-index');
      rmSync(cache, { recursive: true, force: true });
      const env = { ...envs[e], PALIMPSEST_CACHE_DIR: cache };
      const n = run(process.execPath, ['-e', '0'], env);
      const a = run(ls.cmd, [...ls.args, ...lsArgs], env);
      const b = run(ls.cmd, [...ls.args, ...lsArgs], env);
      if (a.code !== 0 || b.code !== 0) {
        skipped.push(`ls failed (exit ${a.code ?? '?'}/${b.code ?? '?'}): ${(a.stderr || b.stderr).split('\n')[0] ?? ''}`);
        lsFailed = true;
        break;
      }
      (nodeMs[e] as number[]).push(n.ms);
      (cold[e] as number[]).push(a.ms);
      (warm[e] as number[]).push(b.ms);
      parts.push(
        `${e === 1 ? 'without NODE_EXTRA_CA_CERTS: ' : ''}node -e 0 ${n.ms.toFixed(0)} ms, ls cold ${a.ms.toFixed(0)} ms, warm ${b.ms.toFixed(0)} ms`,
      );
      if (listed === null) {
        const j = JSON.parse(b.stdout) as { sessions: { requests: number | null; compactions: number | null }[]; index: { hits: number } };
        listed = {
          sessions: j.sessions.length,
          requests: j.sessions.reduce((x, s) => x + (s.requests ?? 0), 0),
          compactions: j.sessions.reduce((x, s) => x + (s.compactions ?? 0), 0),
        };
        if (j.index.hits !== j.sessions.length)
          skipped.push(`the repeat run took ${j.index.hits} of ${j.sessions.length} sessions from the index`);
      }
    }
    if (lsFailed) break;
    // The loaders, over the index the last ls left, in the last environment, in turns.
    const loaderEnv = { ...envs[envs.length - 1], PALIMPSEST_CACHE_DIR: join(dataDir, 'ls-index') };
    for (let k = 0; k < LOADER_REPEATS * loaders.length && !lsFailed; k++) {
      const i = (k + round) % loaders.length;
      const r = runTimed([...(loaders[i] as { args: string[] }).args, ...lsArgs], loaderEnv, timeOut);
      if (r.code !== 0) {
        skipped.push(`ls through ${loaders[i]?.name ?? '?'} failed (exit ${r.code ?? '?'}): ${r.stderr.split('\n')[0] ?? ''}`);
        lsFailed = true;
      } else {
        (loaderMs[i] as number[]).push(r.ms);
        if (r.cpuMs !== null) (loaderCpu[i] as number[]).push(r.cpuMs);
      }
    }
    if (lsFailed) break;
    parts.push(`loaders ${loaders.map((l, i) => `${median(loaderMs[i] as number[]).toFixed(0)}`).join(' / ')} ms so far`);
    if (cc) {
      const c = run(cc.binary, ['session', '--json', '--offline'], ccEnv);
      if (c.code !== 0) {
        skipped.push(`ccusage failed (exit ${c.code ?? '?'}): ${c.stderr.split('\n')[0] ?? ''}`);
        cc = null;
      } else {
        ccMs.push(c.ms);
        parts.push(`ccusage ${c.ms.toFixed(0)} ms`);
      }
    }
    log(`  round ${round + 1}/${runs}: ${parts.join(', ')}`);
  }

  const ccT = cc && ccMs.length > 0 ? { ...timings(ccMs), version: cc.version, binary: cc.binary } : null;
  const byEnv = envs.map((_, e) => envResult(nodeMs[e] as number[], cold[e] as number[], warm[e] as number[], ccT));
  const main = byEnv[0] as LsEnvResult;
  const result: LsBenchResult = {
    tree,
    command: typeof ls === 'string' ? null : [ls.cmd, ...ls.args, ...lsArgs].join(' '),
    skipped,
    node: main.node,
    cold: main.cold,
    warm: main.warm,
    ccusage: ccT,
    ratios: main.ratios,
    listed,
    pass: main.pass,
    withoutCaCerts: byEnv[1] ?? null,
    loaders:
      loaders.length > 0 && loaderMs.every((m) => m.length > 0)
        ? {
            env: caCerts ? 'without NODE_EXTRA_CA_CERTS' : 'as set',
            rows: loaders.map((l, i) => ({
              name: l.name,
              command: ['node', ...l.args, ...lsArgs].join(' '),
              timings: timings(loaderMs[i] as number[]),
              cpu: (loaderCpu[i] as number[]).length > 0 ? timings(loaderCpu[i] as number[]) : null,
            })),
          }
        : null,
  };
  log(renderLsBench(result));
  return result;
}

/** The environment without NODE_EXTRA_CA_CERTS. */
function withoutCaCerts(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out = { ...env };
  delete out.NODE_EXTRA_CA_CERTS;
  return out;
}

function envResult(node: number[], cold: number[], warm: number[], cc: Timings | null): LsEnvResult {
  const nodeT = node.length > 0 ? timings(node) : null;
  const coldT = cold.length > 0 ? timings(cold) : null;
  const warmT = warm.length > 0 ? timings(warm) : null;
  const ratios =
    coldT && warmT && cc
      ? {
          coldMedian: coldT.medianMs / cc.medianMs,
          warmMedian: warmT.medianMs / cc.medianMs,
          coldMin: coldT.minMs / cc.minMs,
          warmMin: warmT.minMs / cc.minMs,
        }
      : null;
  const pass = ratios ? { cold: ratios.coldMedian <= TARGET_COLD, warm: ratios.warmMedian <= TARGET_WARM } : null;
  return { node: nodeT, cold: coldT, warm: warmT, ratios, pass };
}

const f0 = (x: number | undefined): string => (x !== undefined && Number.isFinite(x) ? x.toFixed(0) : '—');
const f2 = (x: number | undefined): string => (x !== undefined && Number.isFinite(x) ? x.toFixed(2) : '—');

export function renderLsBench(r: LsBenchResult): string {
  const out: string[] = [];
  const row = (name: string, t: Timings | null): string =>
    `  ${name.padEnd(42)} ${f0(t?.medianMs).padStart(7)} ${f0(t?.minMs).padStart(7)}`;
  const verdicts = (e: LsEnvResult, indent: string): void => {
    if (!e.ratios) return;
    out.push(
      `${indent}first run / ccusage: ${f2(e.ratios.coldMedian)} (median), ${f2(e.ratios.coldMin)} (min)   target ≤ ${TARGET_COLD}: ${e.pass?.cold ? 'PASS' : 'MISS'}`,
    );
    out.push(
      `${indent}repeat run / ccusage: ${f2(e.ratios.warmMedian)} (median), ${f2(e.ratios.warmMin)} (min)   target ≤ ${TARGET_WARM}: ${e.pass?.warm ? 'PASS' : 'MISS'}`,
    );
  };
  out.push(`  ${''.padEnd(42)} ${'median'.padStart(7)} ${'min'.padStart(7)}   (ms, ${r.cold?.runsMs.length ?? 0} rounds)`);
  out.push(row("node -e 0 (Node's own start-up)", r.node));
  out.push(row('palimpsest ls, first run (no index)', r.cold));
  out.push(row('palimpsest ls, repeat run (index)', r.warm));
  out.push(row(`ccusage ${r.ccusage?.version ?? ''} session --json --offline`, r.ccusage));
  verdicts(r, '  ');
  const w = r.withoutCaCerts;
  if (w) {
    out.push('  without NODE_EXTRA_CA_CERTS (set here; every Node process loads that CA bundle at start-up):');
    out.push(row('  node -e 0', w.node));
    out.push(row('  palimpsest ls, first run (no index)', w.cold));
    out.push(row('  palimpsest ls, repeat run (index)', w.warm));
    verdicts(w, '    ');
  }
  if (r.loaders) {
    out.push(
      `  a repeat run through each loader (${r.loaders.env}, ${r.loaders.rows[0]?.timings.runsMs.length ?? 0} runs each; wall median, min, then CPU median, min):`,
    );
    const first = r.loaders.rows[0];
    const diff = (x: number | undefined, y: number | undefined): string =>
      x === undefined || y === undefined ? '' : `${x >= y ? '+' : ''}${(x - y).toFixed(1)}`;
    for (const l of r.loaders.rows) {
      out.push(
        `${row(`  ${l.name}`, l.timings)} ${f0(l.cpu?.medianMs).padStart(7)} ${f0(l.cpu?.minMs).padStart(7)}   ` +
          `wall ${diff(l.timings.medianMs, first?.timings.medianMs)} ms, CPU ${diff(l.cpu?.medianMs, first?.cpu?.medianMs)} ms`,
      );
    }
  }
  if (r.listed)
    out.push(
      `  ls listed ${r.listed.sessions} sessions, ${r.listed.requests.toLocaleString('en-US')} requests, ${r.listed.compactions} compactions`,
    );
  for (const s of r.skipped) out.push(`  note: ${s}`);
  return out.join('\n');
}
