// The fuzz run (`npm run fuzz`, part of `npm test`): mutates copies of every fixture session and
// runs the built command on each mutant, failing on a crash, a hang, a stack trace or a write to
// the input. What it does and how to replay a failure: docs/fuzz.md.
//
//   node scripts/fuzz.mjs [--seed N] [--count N] [--only I,J] [--keep] [--timeout S] [--jobs N]
//                         [--batch N] [--known NAME,...] [--commands inspect,validate,view]
//
// Exit codes: 0 no failure; 1 a failure (each listed with how to replay it); 2 bad usage or no build.
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { randomInt } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { fixtureUnits, readUnit } from './fuzz/fixtures.mjs';
import { KNOWN } from './fuzz/known.mjs';
import { mutate } from './fuzz/mutate.mjs';
import { rng } from './fuzz/rng.mjs';
import { HEAP_MIB, pool, runCli, treeDigest, verdict } from './fuzz/run.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const fixtures = join(root, 'fixtures');

const usage =
  'usage: node scripts/fuzz.mjs [--seed N] [--count N] [--only I,J] [--keep] [--timeout S] [--jobs N] [--batch N] [--known NAME,...] [--commands inspect,validate,view]';
/** @type {ReturnType<typeof parseArgs>['values']} */
let opts;
try {
  opts = parseArgs({
    options: {
      seed: { type: 'string' },
      count: { type: 'string' },
      only: { type: 'string' },
      keep: { type: 'boolean' },
      timeout: { type: 'string' },
      jobs: { type: 'string' },
      batch: { type: 'string' },
      known: { type: 'string' },
      commands: { type: 'string' },
      help: { type: 'boolean' },
    },
  }).values;
} catch (err) {
  console.error(`fuzz: ${/** @type {Error} */ (err).message}\n${usage}`);
  process.exit(2);
}
if (opts.help) {
  console.log(usage);
  process.exit(0);
}
/** @param {string | boolean | undefined} v @param {number} dflt @param {string} name */
const natural = (v, dflt, name) => {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 0) {
    console.error(`fuzz: --${name} takes a whole number, not "${v}"`);
    process.exit(2);
  }
  return n;
};
const seed = natural(opts.seed, randomInt(2 ** 31), 'seed');
const count = natural(opts.count, 300, 'count');
const timeoutMs = natural(opts.timeout, 20, 'timeout') * 1000;
const jobs = Math.max(1, natural(opts.jobs, 2, 'jobs'));
const batchSize = Math.max(1, natural(opts.batch, 50, 'batch'));
const only = typeof opts.only === 'string' ? opts.only.split(',').map((s) => natural(s, 0, 'only')) : null;
const known = typeof opts.known === 'string' ? opts.known.split(',').filter(Boolean) : [];
const COMMANDS = ['inspect', 'validate', 'view'];
const commands = typeof opts.commands === 'string' ? opts.commands.split(',').filter(Boolean) : COMMANDS;
for (const c of commands) {
  if (!COMMANDS.includes(c)) {
    console.error(`fuzz: --commands takes ${COMMANDS.join(', ')}, not "${c}"`);
    process.exit(2);
  }
}
for (const k of known) {
  if (!(k in KNOWN)) {
    console.error(`fuzz: --known ${k}: no such class (${Object.keys(KNOWN).join(', ') || 'none defined'})`);
    process.exit(2);
  }
}
if (!existsSync(join(root, 'dist', 'cli.js'))) {
  console.error('fuzz: dist/cli.js is missing; run `npm run build:cli` first');
  process.exit(2);
}

const started = performance.now();
const secs = () => ((performance.now() - started) / 1000).toFixed(1);
console.log(
  `fuzz: seed ${seed}, ${only ? `mutants ${only.join(', ')}` : `${count} mutants`}; ${jobs} at a time, ${timeoutMs / 1000} s and ${HEAP_MIB} MiB heap each`,
);

const tmp = mkdtempSync(join(tmpdir(), 'palimpsest-fuzz-'));
const fixturesBefore = treeDigest(fixtures);

/** @typedef {import('./fuzz/known.mjs').Failure & { mutant: number | null, path: string, known?: string }} Failure */
/** @type {Failure[]} */
const failures = [];
const stats = { runs: 0, retried: 0, exits: /** @type {Record<string, number>} */ ({}) };
/**
 * Runs the command; `sessions` is how many it reads, for the time limit. A run on one session that
 * times out is run again once with three times the limit before it counts as a hang: on a loaded
 * machine a slow run is not a hang. (A folder that times out is bisected instead: its lone mutant
 * gets that second chance.)
 * @param {string[]} args @param {number} sessions
 */
async function run(args, sessions = 1) {
  const limit = timeoutMs * Math.max(1, Math.ceil(sessions / 10));
  let r = await runCli(root, args, limit);
  if (r.timedOut && sessions === 1) {
    stats.retried++;
    r = await runCli(root, args, limit * 3);
  }
  stats.runs++;
  const k = r.timedOut ? 'timeout' : (r.signal ?? String(r.code));
  stats.exits[k] = (stats.exits[k] ?? 0) + 1;
  return r;
}

// ---- baseline: which importer reads each fixture ---------------------------------------------------

const units = fixtureUnits(fixtures);
/** @param {string} dir @param {Map<string, Buffer>} files */
function writeUnit(dir, files) {
  for (const [f, b] of files) {
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    writeFileSync(join(dir, f), b);
  }
}
const baseDir = join(tmp, 'baseline');
units.forEach((u, i) => writeUnit(join(baseDir, `u${i}`), readUnit(fixtures, u)));
const base = await run(['validate', baseDir, '--json'], units.length);
/** @type {Map<number, string>} */
const formatOf = new Map();
{
  const why = verdict(base);
  if (why)
    failures.push({
      mutant: null,
      unit: 'every fixture, unmutated',
      recipe: 'none',
      command: ['validate', baseDir, '--json'],
      path: baseDir,
      ...why,
    });
  try {
    for (const s of JSON.parse(base.stdout).sessions) {
      const i = Number(/^u(\d+)/.exec(relative(baseDir, s.path))?.[1]);
      if (s.format && !formatOf.has(i)) formatOf.set(i, /\.zstd?$/.test(s.path) ? `${s.format} (zstd)` : s.format);
    }
  } catch {
    // Unparsable output is the failure above; every fixture then counts as unreadable.
  }
}
rmSync(baseDir, { recursive: true, force: true });

// Every importer gets the same share of mutants, whatever its number of fixtures; fixtures no
// importer reads (bad input, captured requests) get one share too.
/** @type {Map<string, number[]>} */
const buckets = new Map();
units.forEach((_, i) => {
  const f = formatOf.get(i) ?? 'unreadable';
  buckets.set(f, [...(buckets.get(f) ?? []), i]);
});
const order = [...buckets.keys()].sort((a, b) => (a === 'unreadable' ? 1 : b === 'unreadable' ? -1 : a.localeCompare(b)));
/** The fixture of mutant `i`: a function of the seed and `i` alone, so `--only` makes the same one. @param {number} i */
const unitOf = (i) => {
  const bucket = /** @type {number[]} */ (buckets.get(order[i % order.length]));
  const offset = rng(seed, 'offset', order[i % order.length]).int(bucket.length);
  return bucket[(Math.floor(i / order.length) + offset) % bucket.length];
};
console.log(`fuzz: ${units.length} fixtures: ${order.map((f) => `${f} ${buckets.get(f)?.length}`).join(', ')} (${secs()} s)`);

// ---- mutants -----------------------------------------------------------------------------------------

const ids = only ?? Array.from({ length: count }, (_, i) => i);
/** @typedef {{ i: number, unit: import('./fuzz/fixtures.mjs').Unit, recipe: string, dir: string, digest: string }} Mutant */
/** @type {Mutant[]} */
const mutants = [];
for (const [k, i] of ids.entries()) {
  const unit = units[unitOf(i)];
  const m = mutate(readUnit(fixtures, unit), unit.name, rng(seed, i));
  const dir = join(tmp, `b${Math.floor(k / batchSize)}`, `m${i}`);
  mkdirSync(dir, { recursive: true });
  writeUnit(dir, m.files);
  mutants.push({ i, unit, recipe: m.recipe || '(no operation applied)', dir, digest: treeDigest(dir) });
}
/** @param {Mutant} m */
const target = (m) => join(m.dir, m.unit.name);
console.log(`fuzz: ${mutants.length} mutants written to ${tmp} (${secs()} s)`);

// ---- runs ----------------------------------------------------------------------------------------------

/** Requests per mutant, from the `inspect --json` that read it. @type {Map<number, number>} */
const requests = new Map();
/** @param {string} stdout */
function noteRequests(stdout) {
  try {
    const j = JSON.parse(stdout);
    for (const s of j.sessions ?? [j]) {
      const i = Number(/[/\\]m(\d+)[/\\]/.exec(s.path)?.[1]);
      if (Array.isArray(s.requests) && !requests.has(i)) requests.set(i, s.requests.length);
    }
  } catch {
    // Not JSON: the run failed, and says so.
  }
}

/** @param {Mutant} m @param {string[]} command @param {{ kind: string, detail: string }} why */
function fail(m, command, why) {
  failures.push({ mutant: m.i, unit: m.unit.id, recipe: m.recipe, command, path: target(m), ...why });
}

/** @param {Mutant} m @param {string} dir */
function moveTo(m, dir) {
  const to = join(dir, `m${m.i}`);
  if (to === m.dir) return;
  mkdirSync(dir, { recursive: true });
  renameSync(m.dir, to);
  m.dir = to;
}

/**
 * A folder run of `cmd` failed with `why`: runs it on each half of `group` in a folder of its own,
 * down to the one mutant, which is run alone, in its own place, as a user would run it (`cmd` on
 * its file or session folder). The mutants are back in `home` afterwards. True when this group's
 * failure was reported, for itself or for a smaller group.
 * @param {(path: string) => string[]} cmd @param {Mutant[]} group @param {string} dir @param {string} home
 * @param {{ kind: string, detail: string }} why
 */
async function bisect(cmd, group, dir, home, why) {
  let found = false;
  if (group.length === 1) {
    const m = group[0];
    moveTo(m, home);
    const r = await run(cmd(target(m)));
    if (cmd('')[0] === 'inspect') noteRequests(r.stdout);
    const alone = verdict(r);
    if (alone) fail(m, cmd(target(m)), alone);
    found = alone !== null;
  } else {
    for (const [h, half] of [group.slice(0, group.length >> 1), group.slice(group.length >> 1)].entries()) {
      const sub = `${dir}.${h}`;
      for (const m of half) moveTo(m, sub);
      // A lone mutant is run on its own at once, not as a folder first.
      let failed = null;
      if (half.length > 1) {
        const r = await run(cmd(sub), half.length);
        if (cmd('')[0] === 'inspect') noteRequests(r.stdout);
        failed = verdict(r);
      }
      if (failed || half.length === 1) found = (await bisect(cmd, half, sub, home, failed ?? why)) || found;
      for (const m of half) moveTo(m, home);
      rmSync(sub, { recursive: true, force: true });
    }
  }
  // A failure that no smaller group repeats: reported for the whole group, unless it was a time
  // limit that every smaller group kept (a slow folder on a loaded machine, not a hang). Reported
  // once, for the smallest group that shows it: the groups around it say nothing more.
  if (!found && group.length > 1 && why.kind !== 'hang') {
    failures.push({
      mutant: null,
      unit: group.map((m) => m.unit.id).join(', '),
      recipe: `mutants ${group.map((m) => m.i).join(', ')} together`,
      command: cmd(dir),
      path: dir,
      ...why,
    });
    found = true;
  }
  return found;
}

const groups = [];
for (let k = 0; k < mutants.length; k += batchSize) groups.push(mutants.slice(k, k + batchSize));
const inspect = (/** @type {string} */ p) => ['inspect', p, '--json'];
const validate = (/** @type {string} */ p) => ['validate', p, '--json'];
const folderCommands = [inspect, validate].filter((c) => commands.includes(c('')[0]));
/** Folder runs that failed, by folder: bisected one command at a time, since bisecting moves the mutants. */
/** @type {Map<number, { cmd: (p: string) => string[], why: { kind: string, detail: string } }[]>} */
const failedFolders = new Map();
await pool(
  groups.flatMap((g, b) =>
    folderCommands.map((cmd) => async () => {
      const r = await run(cmd(join(tmp, `b${b}`)), g.length);
      if (cmd('')[0] === 'inspect') noteRequests(r.stdout);
      const why = verdict(r);
      if (why) failedFolders.set(b, [...(failedFolders.get(b) ?? []), { cmd, why }]);
    }),
  ),
  jobs,
);
await pool(
  [...failedFolders].map(([b, failed]) => async () => {
    for (const { cmd, why } of failed) await bisect(cmd, groups[b], join(tmp, `b${b}`), join(tmp, `b${b}`), why);
  }),
  jobs,
);
console.log(
  `fuzz: ${folderCommands.map((c) => `${c('')[0]} --json`).join(' and ')} of ${groups.length} folder(s) of mutants, ${failedFolders.size} bisected (${secs()} s)`,
);

const WIRES = ['', '', 'anthropic', 'responses', 'chat'];
await pool(
  (commands.includes('view') ? mutants : []).map((m) => async () => {
    const r = rng(seed, m.i, 'view');
    const n = requests.get(m.i);
    const index = n === undefined ? 1 : n === 0 ? 0 : r.chance(0.5) ? n - 1 : r.int(n);
    const wire = r.pick(WIRES);
    const command = ['view', target(m), '--request', String(index), '--wire', ...(wire ? [wire] : [])];
    const why = verdict(await run(command));
    if (why) fail(m, command, why);
  }),
  jobs,
);
console.log(`fuzz: view --wire of each mutant (${secs()} s)`);

for (const m of mutants) {
  if (treeDigest(m.dir) !== m.digest)
    fail(m, ['inspect', 'validate', 'view'], { kind: 'wrote to the input', detail: `the files under ${m.dir} changed` });
}
if (treeDigest(fixtures) !== fixturesBefore)
  failures.push({
    mutant: null,
    unit: 'fixtures/',
    recipe: 'none',
    command: [],
    path: fixtures,
    kind: 'wrote to the input',
    detail: 'fixtures/ changed during the run',
  });

// ---- report --------------------------------------------------------------------------------------------

for (const f of failures) {
  const k = known.find((name) => KNOWN[name].match(f));
  if (k) f.known = k;
}
const real = failures.filter((f) => !f.known);
for (const f of failures) {
  const again = f.mutant === null ? null : `node scripts/fuzz.mjs --seed ${seed} --only ${f.mutant} --keep`;
  console.log(
    `\n${f.known ? `KNOWN (${f.known})` : 'FAIL'} ${f.kind}: palimpsest ${f.command.map((a) => (relative(tmp, a).startsWith('..') ? a : `<mutant>/${relative(tmp, a).split(/[/\\]/).slice(2).join('/')}`)).join(' ')}`,
  );
  console.log(`  mutant   ${f.mutant ?? '—'} of seed ${seed}, from fixtures/${f.unit}`);
  console.log(`  recipe   ${f.recipe}`);
  console.log(`  output   ${f.detail.split('\n').join('\n           ')}`);
  if (again) console.log(`  again    ${again}\n           (keeps the mutant and prints the command to run on it)`);
  console.log(`  here     node bin/palimpsest.js ${f.command.join(' ')}`);
}
const keep = opts.keep || real.length > 0;
if (keep) {
  // Only what failed is worth keeping (with --keep, everything).
  if (!opts.keep) {
    const failing = new Set(failures.map((f) => f.path));
    for (const m of mutants) if (!failing.has(target(m))) rmSync(m.dir, { recursive: true, force: true });
  }
  console.log(`\nfuzz: mutants kept in ${tmp}`);
  // With --keep (as with --only I --keep to replay one), where each mutant is and what was done to it.
  if (opts.keep) for (const m of mutants) console.log(`  mutant ${m.i}: ${target(m)}\n    ${m.recipe}`);
} else rmSync(tmp, { recursive: true, force: true });
const exits = Object.entries(stats.exits)
  .sort()
  .map(([k, n]) => `${k}: ${n}`)
  .join(', ');
console.log(
  `\nfuzz: seed ${seed}: ${mutants.length} mutants of ${new Set(mutants.map((m) => m.unit.id)).size} fixtures, ${stats.runs} runs (exit ${exits}; ${stats.retried} run again after a timeout), ` +
    `${real.length} failure${real.length === 1 ? '' : 's'}${failures.length > real.length ? ` and ${failures.length - real.length} known` : ''}, ${secs()} s`,
);
process.exit(real.length > 0 ? 1 : 0);
