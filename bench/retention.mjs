// What keeping a parsed log costs, without any of Palimpsest's code: the bare loop (split + parse,
// keep nothing) against the same loop keeping every parsed object, against keeping them with a
// `seq` and a `loc` object added, as the event log did before src/main/session/locations.ts. Garbage-collection time is read from
// PerformanceObserver 'gc' entries (minor = scavenges). One process, modes alternated per round.
//
//   node --expose-gc bench/retention.mjs bench/data/e1m.jsonl [ROUNDS] [--more]
//
// docs/performance.md ("The compact log", "Tried and not kept") uses its output.
import { readFileSync } from 'node:fs';
import { PerformanceObserver, constants } from 'node:perf_hooks';

const file = process.argv[2];
const rounds = Number(process.argv[3] && !process.argv[3].startsWith('--') ? process.argv[3] : 3);
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

// --more: ways of keeping less or differently that were tried on the way to the structure-only log
// (docs/performance.md, "Tried and not kept"). None of them reaches 0.6 on e1m.
const more = process.argv.includes('--more');

/** Values of the canonical enums, shared instead of one string per event. */
const ENUMS = new Map(
  [
    'item',
    'request',
    'response',
    'record',
    'user',
    'assistant',
    'tool',
    'system',
    'text',
    'tool_call',
    'tool_result',
    'reasoning',
    'agent',
    'stop',
    'tool_use',
    'tool_calls',
    'end_turn',
  ].map((x) => [x, x]),
);
const enumOf = (x) => ENUMS.get(x) ?? x;
const FINISHES = new Map();
function intern(v) {
  v.kind = enumOf(v.kind);
  if (v.kind === 'item') {
    v.item.role = enumOf(v.item.role);
    for (const b of v.item.blocks) {
      b.type = enumOf(b.type);
      if (b.content) for (const c of b.content) c.type = enumOf(c.type);
    }
  } else if (v.kind === 'response' && v.finish) {
    const k = `${v.finish.raw}\u0000${v.finish.reason}`;
    if (!FINISHES.has(k)) FINISHES.set(k, Object.freeze({ raw: v.finish.raw, reason: v.finish.reason }));
    v.finish = FINISHES.get(k);
  } else if (v.kind === 'request' && v.purpose) v.purpose = enumOf(v.purpose);
  else if (v.kind === 'record') v.type = enumOf(v.type);
}

/** A copy built from object literals at fixed sites (V8 may pretenure a site whose objects survive). */
function literalCopy(v, seq) {
  const block = (b) =>
    b.type === 'text'
      ? { type: 'text', text: b.text }
      : b.type === 'tool_call'
        ? { type: 'tool_call', id: b.id, name: b.name, input: b.input }
        : b.type === 'tool_result'
          ? {
              type: 'tool_result',
              callId: b.callId,
              content: b.content.map((c) => (c.type === 'text' ? { type: 'text', text: c.text } : c)),
            }
          : b;
  switch (v.kind) {
    case 'item':
      return { kind: 'item', item: { id: v.item.id, role: v.item.role, blocks: v.item.blocks.map(block) }, op: null, at: v.at, seq };
    case 'request':
      return { kind: 'request', id: v.id, purpose: v.purpose ?? 'agent', at: v.at, seq };
    case 'response':
      return { kind: 'response', request: v.request, finish: v.finish, usage: v.usage ? { ...v.usage } : undefined, at: v.at, seq };
    case 'record':
      return { kind: 'record', type: v.type, summary: v.summary, at: v.at, seq };
    default:
      v.seq = seq;
      return v;
  }
}

/** Item events kept without their blocks (the line's bytes copied off the heap instead), the rest as parsed. */
class Arena {
  constructor() {
    this.b = Buffer.allocUnsafeSlow(1 << 24);
    this.n = 0;
  }
  put(from, start, end) {
    const len = end - start;
    if (this.n + len > this.b.length) {
      const b = Buffer.allocUnsafeSlow(Math.max(this.b.length * 2, this.n + len));
      this.b.copy(b, 0, 0, this.n);
      this.b = b;
    }
    from.copy(this.b, this.n, start, end);
    this.n += len;
    return this.n - len;
  }
}

function run(mode) {
  const kept = [];
  const arena = mode === 'items without blocks' ? new Arena() : null;
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
    } else if (mode === 'interned') {
      intern(v);
      kept.push(v);
    } else if (mode === 'literal copies') kept.push(literalCopy(v, i));
    else if (mode === 'items only') kept.push(v.kind === 'item' ? v : null);
    else if (mode === 'all but items') kept.push(v.kind === 'item' ? null : v);
    else if (mode === 'items without blocks') {
      kept.push(
        v.kind === 'item'
          ? { kind: 'item', item: { id: v.item.id, role: v.item.role, at: arena.put(buf, s, nl) }, op: null, seq: i, at: v.at }
          : v,
      );
    }
    s = nl + 1;
    i++;
  }
  return kept.length;
}

const modes = [
  'parse only',
  'keep',
  'keep+seq+loc',
  ...(more ? ['interned', 'literal copies', 'items only', 'all but items', 'items without blocks'] : []),
];
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
  console.log(
    `${m.padEnd(22)} ${ms.toFixed(0).padStart(6)} ms  ratio to parse only ${(base / ms).toFixed(2)}  scavenges ${median(
      xs.map((x) => x.minor),
    )
      .toFixed(0)
      .padStart(5)} ms  major GC ${median(xs.map((x) => x.major))
      .toFixed(0)
      .padStart(4)} ms`,
  );
}
