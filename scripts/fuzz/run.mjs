// Runs the built `palimpsest` command on mutants, as a user runs it, and judges each run. A run
// fails when it crashes (a signal, an exit code other than 0, 1 or 2), hangs past its time limit, or
// prints a stack trace or an internal error: bad input must end as diagnostics and exit 1 or 2.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

/** The heap a run may use, in MiB; a mutant that needs more is a crash, not a slow test. */
export const HEAP_MIB = 512;
/** Output kept per stream: enough for a whole `inspect --json` of a batch. */
const KEEP_BYTES = 64 << 20;

/**
 * @typedef {{ code: number | null, signal: string | null, timedOut: boolean, stdout: string, stderr: string, ms: number }} RunResult
 * @param {string} root the repository @param {string[]} args @param {number} timeoutMs
 * @returns {Promise<RunResult>}
 */
export function runCli(root, args, timeoutMs) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, [`--max-old-space-size=${HEAP_MIB}`, 'bin/palimpsest.js', ...args], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      // The run's own NODE_OPTIONS (a debugger, a bigger heap) must not change what is tested.
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    /** @param {import('node:stream').Readable} stream */
    const collect = (stream) => {
      const chunks = [];
      let size = 0;
      stream.on('data', (c) => {
        if (size < KEEP_BYTES) chunks.push(c);
        size += c.length;
      });
      return () => Buffer.concat(chunks).toString('utf8');
    };
    const out = collect(/** @type {import('node:stream').Readable} */ (child.stdout));
    const err = collect(/** @type {import('node:stream').Readable} */ (child.stderr));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal: timedOut ? null : signal, timedOut, stdout: out(), stderr: err(), ms: performance.now() - started });
    });
  });
}

// What only a program error prints. JSON output escapes line breaks inside strings, so a stack
// frame at the start of a line cannot come from session text.
const FATAL = [
  ['internal error', /palimpsest: internal error/],
  ['stack overflow', /Maximum call stack size exceeded/],
  ['out of memory', /FATAL ERROR|JavaScript heap out of memory/],
  ['uncaught exception', /^Uncaught |^node:internal|UnhandledPromiseRejection|^\w*Error(\s\[\w+\])?: /m],
  ['stack trace', /^\s+at .+(:\d+:\d+\)?|\(native\)|\(<anonymous>\))$/m],
];

/**
 * Why a run failed, or null when it did not.
 * @param {RunResult} r @returns {{ kind: string, detail: string } | null}
 */
export function verdict(r) {
  if (r.timedOut) return { kind: 'hang', detail: `no exit after ${Math.round(r.ms / 1000)} s (killed)` };
  const both = `${r.stderr}\n${r.stdout}`;
  for (const [kind, re] of FATAL) {
    const m = re.exec(r.stderr) ?? re.exec(r.stdout);
    if (m) return { kind, detail: excerpt(both, m[0]) };
  }
  if (r.signal !== null) return { kind: 'crash', detail: `killed by ${r.signal}` };
  if (r.code === null || ![0, 1, 2].includes(r.code)) return { kind: 'crash', detail: `exit code ${r.code}` };
  return null;
}

/** A few lines of `text` around `needle`, long lines cut. @param {string} text @param {string} needle */
function excerpt(text, needle) {
  const at = Math.max(0, text.indexOf(needle));
  const start = text.lastIndexOf('\n', Math.max(0, at - 1)) + 1;
  return text
    .slice(start, start + 4000)
    .split('\n')
    .slice(0, 12)
    .map((l) => (l.length > 300 ? `${l.slice(0, 300)}… (${l.length} chars)` : l))
    .join('\n');
}

/**
 * A digest of everything under `dir` that a write would change: names, kinds, sizes, modes,
 * modification times and contents (symbolic links by target, never followed).
 * @param {string} dir
 */
export function treeDigest(dir) {
  const h = createHash('sha256');
  /** @param {string} p @param {string} rel */
  const visit = (p, rel) => {
    const s = lstatSync(p);
    h.update(`${rel}\0${s.mode}\0${s.size}\0${s.mtimeMs}\0`);
    if (s.isSymbolicLink()) h.update(readlinkSync(p));
    else if (s.isFile()) h.update(readFileSync(p));
    else if (s.isDirectory()) for (const name of readdirSync(p).sort()) visit(join(p, name), `${rel}/${name}`);
  };
  visit(dir, '.');
  return h.digest('hex');
}

/**
 * Runs `jobs` with at most `n` at a time.
 * @template T @param {(() => Promise<T>)[]} jobs @param {number} n @returns {Promise<T[]>}
 */
export async function pool(jobs, n) {
  const results = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await jobs[i]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, jobs.length) }, worker));
  return results;
}
