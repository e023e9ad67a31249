// What keeping a parsed log costs, without any of Palimpsest's code: the bare loop (split + parse,
// keep nothing) against the same loop keeping every parsed object, against keeping them with a
// `seq` and a `loc` object added, as the event log did before src/main/session/locations.ts. Garbage-collection time is read from
// PerformanceObserver 'gc' entries (minor = scavenges). One process, modes alternated per round.
//
//   node bench/retention.mjs bench/data/e1m.jsonl [ROUNDS]
//
// docs/performance.md ("Why e1m misses") quotes its output.
import { readFileSync } from 'node:fs';
import { PerformanceObserver, constants } from 'node:perf_hooks';

const file = process.argv[2];
const rounds = Number(process.argv[3] ?? 3);
if (!file) {
  console.error('usage: node bench/retention.mjs FILE [ROUNDS]');
  process.exit(2);
}
const buf = readFileSync(file);
let gcMinor = 0;
let gcMajor = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const kind = e.detail?.kind;
    if (kind === constants.NODE_PERFORMANCE_GC_MINOR) gcMinor += e.duration;
    else gcMajor += e.duration;
  }
}).observe({ entryTypes: ['gc'] });

function run(mode) {
  const kept = [];
  let s = 0;
  let i = 0;
  for (;;) {
    const nl = buf.indexOf(10, s);
    if (nl < 0) break;
    const v = JSON.parse(buf.toString('utf8', s, nl));
    if (mode === 'keep') kept.push(v);
    else if (mode === 'keep+seq+loc') {
      v.seq = i;
      v.loc = { file: 0, line: i + 1, offset: s, length: nl - s };
      kept.push(v);
    }
    s = nl + 1;
    i++;
  }
  return kept.length;
}

const modes = ['parse only', 'keep', 'keep+seq+loc'];
const results = new Map(modes.map((m) => [m, []]));
// The observer delivers a run's entries some ticks later; waiting 100 ms settles them.
const settle = () => new Promise((r) => setTimeout(r, 100));
for (let r = 0; r < rounds; r++) {
  for (const m of modes) {
    globalThis.gc?.();
    await settle();
    gcMinor = 0;
    gcMajor = 0;
    const t0 = performance.now();
    run(m);
    const ms = performance.now() - t0;
    await settle();
    results.get(m).push({ ms, minor: gcMinor, major: gcMajor });
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const base = median(results.get('parse only').map((x) => x.ms));
console.log(`${file}: ${(buf.length / 1e6).toFixed(1)} MB, ${rounds} rounds, medians`);
for (const m of modes) {
  const xs = results.get(m);
  const ms = median(xs.map((x) => x.ms));
  console.log(`${m.padEnd(14)} ${ms.toFixed(0).padStart(6)} ms  ratio to parse only ${(base / ms).toFixed(2)}  scavenges ${median(xs.map((x) => x.minor)).toFixed(0).padStart(5)} ms  major GC ${median(xs.map((x) => x.major)).toFixed(0).padStart(4)} ms`);
}
