import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadTiktoken } from '../src/main/tokens/encoder';
import { RankBpe } from '../src/main/tokens/rank-bpe';
import { median } from './stats';

/*
 * The commands a user runs on one real session, as the user runs them: `node bin/palimpsest.js …`
 * in a fresh process, wall time and peak RSS (medians), beside a bare `node -e 0` and a bare
 * `node` that reads the same file and JSON.parses every line, in the same rounds (alternated), so
 * that the ratios hold on any machine. Targets for a real 2–5 MB session: every command ≤ 0.3 s
 * and ≤ 150 MB; `tokens` with its counts cached the same, cold ≤ 0.8 s.
 *
 * The sessions: the committed real ones of fixtures/corpus/ of 1.5 MB and more, and those of
 * .corpus/ (fetched real sessions, not committed: absent in CI, where their rows are left out and
 * the bench says so). The count cache is a fresh folder per run (PALIMPSEST_CACHE_DIR): "cold" is
 * an empty one, "cached" one a first `tokens` filled.
 *
 * With and without, same rounds: `inspect --json` with its code cache (bin/open.js), without it,
 * and from dist/cli.js's ES modules; `tokens` cold on its default counter (this thread up to a million
 * characters) against a pool of two workers from the start (`--workers 2`); and, in fresh processes,
 * building o200k_base's encoder on the lean ranks (src/main/tokens/rank-bpe.ts) against js-tiktoken's
 * `Tiktoken`, the work every counting thread does first.
 */

export const COMMAND_TARGET_S = 0.3;
export const COMMAND_TARGET_MB = 150;
export const TOKENS_COLD_TARGET_S = 0.8;
const MIN_BYTES = 1_500_000;
const MAX_BYTES = 6_000_000;
const BIN = 'bin/palimpsest.js';

interface Sample {
  readonly ms: number;
  readonly rssMB: number;
  readonly cpuMs: number;
}

export interface CommandFigure {
  readonly name: string;
  readonly ms: number;
  readonly rssMB: number;
  readonly cpuMs: number;
  /** Wall time over the bare `node -e 0`'s, and over the read-and-parse process's. */
  readonly overBare: number;
  readonly overParse: number;
  readonly target: { readonly s: number; readonly mb: number } | null;
  readonly pass: boolean | null;
}

export interface SessionCommands {
  readonly file: string;
  readonly bytes: number;
  readonly requests: number;
  readonly figures: readonly CommandFigure[];
}

export interface EncoderBuildFigure {
  readonly name: string;
  /** Building the encoder (the rank file's module already loaded), and the whole process. */
  readonly buildMs: number;
  readonly ms: number;
  readonly rssMB: number;
}

export interface CommandsBenchResult {
  readonly encoders: readonly EncoderBuildFigure[];
  readonly sessions: readonly SessionCommands[];
  /** Folders looked in that were not there (.corpus/ in CI). */
  readonly missing: readonly string[];
}

/** Real sessions of a typical size: the committed corpus, and .corpus/ when present. */
export function realSessions(roots: readonly string[] = ['fixtures/corpus', '.corpus']): { files: string[]; missing: string[] } {
  const files: string[] = [];
  const missing: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.jsonl')) {
        const size = statSync(p).size;
        if (size >= MIN_BYTES && size <= MAX_BYTES) files.push(p);
      }
    }
  };
  for (const r of roots) {
    if (existsSync(r)) walk(r);
    else missing.push(r);
  }
  return { files: files.sort(), missing };
}

/** A preloaded script that writes the process's resource usage to the file its environment names. */
function rusageScript(dir: string): string {
  const path = join(dir, 'rusage.cjs');
  writeFileSync(
    path,
    "process.on('exit', () => require('node:fs').writeFileSync(process.env.PALIMPSEST_BENCH_RUSAGE, JSON.stringify(process.resourceUsage())));\n",
  );
  return path;
}

function runWithStdout(args: readonly string[], rusage: string, dir: string): { build: number; s: Sample } {
  let stdout = '';
  const s = run(args, process.env, rusage, dir, (o) => (stdout = o));
  return { build: Number(stdout.trim()), s };
}

function run(args: readonly string[], env: NodeJS.ProcessEnv, rusage: string, dir: string, onStdout?: (o: string) => void): Sample {
  const out = join(dir, 'rusage.json');
  rmSync(out, { force: true });
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['-r', rusage, ...args], {
    env: { ...env, PALIMPSEST_BENCH_RUSAGE: out },
    stdio: ['ignore', onStdout ? 'pipe' : 'ignore', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
  const ms = performance.now() - t0;
  if (onStdout) onStdout(r.stdout.toString());
  if (r.status !== 0 && r.status !== 1)
    throw new Error(`${args.join(' ')} exited ${r.status ?? r.signal}: ${r.stderr.toString().slice(0, 400)}`);
  const u = JSON.parse(readFileSync(out, 'utf8')) as { maxRSS: number; userCPUTime: number; systemCPUTime: number };
  return { ms, rssMB: u.maxRSS / 1024, cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000 };
}

const PARSE = `const fs=require('node:fs');const b=fs.readFileSync(process.argv[1]);let s=0,n=0;for(;;){const i=b.indexOf(10,s);if(i<0)break;if(i>s){JSON.parse(b.toString('utf8',s,i));n++}s=i+1}`;

/** `bench.js --encoder-child lean|tiktoken`: builds one encoder of o200k_base and prints the milliseconds it took. */
export async function encoderChild(kind: string): Promise<void> {
  const ranks = (await import('js-tiktoken/ranks/o200k_base')).default;
  const t0 = performance.now();
  if (kind === 'lean') RankBpe.fromFile(ranks).encode('warm');
  else (await loadTiktoken('o200k_base')).bpe.encode('warm', [], []);
  process.stdout.write(`${performance.now() - t0}\n`);
}

function encoderBuilds(rounds: number, rusage: string, dir: string, log: (m: string) => void): EncoderBuildFigure[] {
  const kinds = [
    { kind: 'lean', name: 'lean ranks (RankBpe)' },
    { kind: 'tiktoken', name: "js-tiktoken's Tiktoken" },
  ];
  const samples = kinds.map(() => [] as { build: number; s: Sample }[]);
  for (let i = 0; i < rounds; i++)
    kinds.forEach((k, j) =>
      (samples[j] as { build: number; s: Sample }[]).push(
        runWithStdout([process.argv[1] as string, '--encoder-child', k.kind], rusage, dir),
      ),
    );
  return kinds.map((k, j) => {
    const s = samples[j] as { build: number; s: Sample }[];
    const f = {
      name: k.name,
      buildMs: median(s.map((x) => x.build)),
      ms: median(s.map((x) => x.s.ms)),
      rssMB: median(s.map((x) => x.s.rssMB)),
    };
    log(
      `encoder of o200k_base, ${f.name.padEnd(24)} built in ${f.buildMs.toFixed(0)} ms; process ${(f.ms / 1000).toFixed(2)} s, ${f.rssMB.toFixed(0)} MB`,
    );
    return f;
  });
}

export function runCommandsBench(rounds: number, log: (m: string) => void, files?: readonly string[]): CommandsBenchResult {
  const found = files ? { files: [...files], missing: [] } : realSessions();
  if (found.missing.length > 0) log(`not found, left out: ${found.missing.join(', ')}`);
  const dir = mkdtempSync(join(tmpdir(), 'palimpsest-bench-commands-'));
  const rusage = rusageScript(dir);
  const sessions: SessionCommands[] = [];
  let encoders: EncoderBuildFigure[];
  try {
    encoders = encoderBuilds(rounds, rusage, dir, log);
    for (const file of found.files) {
      const cached = join(dir, 'cached');
      rmSync(cached, { recursive: true, force: true });
      mkdirSync(cached);
      const warmEnv = { ...process.env, PALIMPSEST_CACHE_DIR: cached };
      // Fills the count cache, and says how many requests the session has.
      const first = spawnSync(process.execPath, [BIN, 'inspect', file, '--json'], { env: warmEnv, maxBuffer: 256 * 1024 * 1024 });
      const requests = (JSON.parse(first.stdout.toString()) as { requests?: unknown[] }).requests?.length ?? 0;
      const last = String(Math.max(0, requests - 1));
      const cold = (): NodeJS.ProcessEnv => {
        const d = join(dir, 'cold');
        rmSync(d, { recursive: true, force: true });
        return { ...process.env, PALIMPSEST_CACHE_DIR: d };
      };
      const cases: { name: string; args: () => string[]; env: () => NodeJS.ProcessEnv; target: { s: number; mb: number } | null }[] = [
        { name: 'node -e 0', args: () => ['-e', '0'], env: () => process.env, target: null },
        { name: 'read + JSON.parse', args: () => ['-e', PARSE, file], env: () => process.env, target: null },
        { name: 'inspect', args: () => [BIN, 'inspect', file], env: () => warmEnv, target: { s: COMMAND_TARGET_S, mb: COMMAND_TARGET_MB } },
        {
          name: 'inspect --json',
          args: () => [BIN, 'inspect', file, '--json'],
          env: () => warmEnv,
          target: { s: COMMAND_TARGET_S, mb: COMMAND_TARGET_MB },
        },
        // With and without the code cache (bin/open.js), and the same command from the ES module
        // chunks of dist/cli.js (what it ran from before dist/open.cjs), in the same rounds.
        {
          name: 'inspect --json, no code cache',
          args: () => [BIN, 'inspect', file, '--json'],
          env: () => ({ ...warmEnv, PALIMPSEST_NO_CODE_CACHE: '1' }),
          target: null,
        },
        { name: 'inspect --json, ES modules', args: () => ['dist/cli.js', 'inspect', file, '--json'], env: () => warmEnv, target: null },
        {
          name: `view --request ${last}`,
          args: () => [BIN, 'view', file, '--request', last],
          env: () => warmEnv,
          target: { s: COMMAND_TARGET_S, mb: COMMAND_TARGET_MB },
        },
        {
          name: 'validate',
          args: () => [BIN, 'validate', file],
          env: () => warmEnv,
          target: { s: COMMAND_TARGET_S, mb: COMMAND_TARGET_MB },
        },
        {
          name: 'tokens (counts cached)',
          args: () => [BIN, 'tokens', file],
          env: () => warmEnv,
          target: { s: COMMAND_TARGET_S, mb: COMMAND_TARGET_MB },
        },
        { name: 'tokens (cold)', args: () => [BIN, 'tokens', file], env: cold, target: { s: TOKENS_COLD_TARGET_S, mb: COMMAND_TARGET_MB } },
        { name: 'tokens (cold, --workers 2)', args: () => [BIN, 'tokens', file, '--workers', '2'], env: cold, target: null },
      ];
      const samples = cases.map(() => [] as Sample[]);
      // Alternated, so that every case sees the same machine load.
      for (let i = 0; i < rounds; i++) cases.forEach((c, k) => (samples[k] as Sample[]).push(run(c.args(), c.env(), rusage, dir)));
      const med = (k: number): Sample => {
        const s = samples[k] as Sample[];
        return { ms: median(s.map((x) => x.ms)), rssMB: median(s.map((x) => x.rssMB)), cpuMs: median(s.map((x) => x.cpuMs)) };
      };
      const bare = med(0);
      const parse = med(1);
      const figures = cases.map((c, k): CommandFigure => {
        const m = med(k);
        return {
          name: c.name,
          ...m,
          overBare: m.ms / bare.ms,
          overParse: m.ms / parse.ms,
          target: c.target,
          pass: c.target ? m.ms <= c.target.s * 1000 && m.rssMB <= c.target.mb : null,
        };
      });
      const bytes = statSync(file).size;
      sessions.push({ file, bytes, requests, figures });
      log(`${file} (${(bytes / 1e6).toFixed(1)} MB, ${requests} requests)`);
      for (const f of figures) {
        const verdict = f.target ? ` (≤ ${f.target.s} s, ≤ ${f.target.mb} MB: ${f.pass ? 'met' : 'MISSED'})` : '';
        log(
          `  ${f.name.padEnd(28)} ${(f.ms / 1000).toFixed(2)} s  CPU ${(f.cpuMs / 1000).toFixed(2)} s  ${f.rssMB.toFixed(0).padStart(4)} MB  ${f.overBare.toFixed(1)}× node -e 0  ${f.overParse.toFixed(1)}× read + parse${verdict}`,
        );
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { encoders, sessions, missing: found.missing };
}
