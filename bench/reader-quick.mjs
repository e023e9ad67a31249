// Quick throughput check of the JSONL reader against the bare loop it must stay close to
// (read 1 MiB chunks, split on 0x0A with indexOf, toString per line, JSON.parse).
//   npx tsx bench/reader-quick.mjs [path] [MB] [share of small lines, default 0.7]
// Without a path it writes bench/data/reader-<MB>m-<share>.jsonl (git-ignored) once and reuses it.
import { existsSync, mkdirSync, openSync, writeSync, closeSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { readJsonl } from '../src/main/reader/index.ts';

const mb = Number(process.argv[3] ?? 200);
const small = Number(process.argv[4] ?? 0.7);
const path = process.argv[2] || `bench/data/reader-${mb}m-${small}.jsonl`;

/** Agent-log-like lines: mostly ASCII, a few with accents or emoji, sizes from ~250 B to ~25 KB, 70 % small events. */
function generate(file, bytes) {
  mkdirSync(dirname(file), { recursive: true });
  const fd = openSync(file, 'w');
  let seed = 42;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const words = ['the', 'session', 'tool', 'result', 'assistant', 'model', 'token', 'file', 'read', 'line', 'compaction', 'summary'];
  let written = 0;
  let seq = 0;
  const batch = [];
  while (written < bytes) {
    let line;
    if (rnd() < small) {
      // Small structured events: many keys, short values (per-line overhead dominates).
      line = JSON.stringify({
        type: 'tool/call', seq: seq++, time: 1760000000000 + seq, turn: `t${seq >> 4}`,
        data: { id: `call_${seq}`, name: words[seq % words.length], args: { path: `/src/${words[seq % 7]}.ts`, limit: 200, offset: seq % 1000 } },
        usage: { input: seq % 5000, output: seq % 700, cached: 0 }, ignorable: rnd() < 0.1,
      }) + '\n';
    } else {
      const n = Math.floor(rnd() ** 4 * 4000) + 5;
      const text = Array.from({ length: n }, () => words[Math.floor(rnd() * words.length)]).join(' ');
      const extra = rnd() < 0.05 ? ' café — ünïcödé 🚀' : '';
      line = JSON.stringify({
        type: rnd() < 0.5 ? 'assistant/message' : 'tool/result',
        seq: seq++,
        time: 1760000000000 + seq,
        data: { role: 'assistant', content: [{ type: 'text', text: text + extra }], usage: { input: n * 3, output: n } },
      }) + '\n';
    }
    batch.push(line);
    written += Buffer.byteLength(line);
    if (batch.length >= 1000) writeSync(fd, batch.splice(0).join(''));
  }
  writeSync(fd, batch.join(''));
  closeSync(fd);
}

async function bare(file) {
  const fh = await open(file, 'r');
  const buf = Buffer.allocUnsafe(1 << 20);
  let carry = null;
  let lines = 0;
  for (;;) {
    const { bytesRead } = await fh.read(buf, 0, buf.length, null);
    if (bytesRead === 0) break;
    const chunk = buf.subarray(0, bytesRead);
    let pos = 0;
    for (;;) {
      const nl = chunk.indexOf(10, pos);
      if (nl === -1) {
        if (pos === chunk.length) break;
        const rest = Buffer.from(chunk.subarray(pos));
        carry = carry ? Buffer.concat([carry, rest]) : rest;
        break;
      }
      let s;
      if (carry) {
        s = Buffer.concat([carry, chunk.subarray(pos, nl)]).toString();
        carry = null;
      } else s = chunk.toString('utf8', pos, nl);
      JSON.parse(s);
      lines++;
      pos = nl + 1;
    }
  }
  if (carry) {
    JSON.parse(carry.toString());
    lines++;
  }
  await fh.close();
  return lines;
}

async function reader(file) {
  let lines = 0;
  let diags = 0;
  await readJsonl(file, () => void lines++, () => void diags++);
  if (diags) throw new Error(`${diags} diagnostics on generated data`);
  return lines;
}

if (!existsSync(path)) {
  console.log(`writing ${path} (${mb} MB)…`);
  generate(path, mb * 1e6);
}
const size = statSync(path).size;
const runs = { bare: [], reader: [] };
for (let i = 0; i < 7; i++) {
  for (const [name, fn] of [['bare', bare], ['reader', reader]]) {
    const t = performance.now();
    const n = await fn(path);
    const s = (performance.now() - t) / 1000;
    if (i > 0) runs[name].push(size / 1e6 / s); // first round warms the page cache and the JIT
    if (i === 0) console.log(`${name}: ${n} lines`);
  }
}
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const b = median(runs.bare);
const r = median(runs.reader);
console.log(`file ${(size / 1e6).toFixed(1)} MB`);
console.log(`bare loop : ${b.toFixed(0)} MB/s  (runs ${runs.bare.map((x) => x.toFixed(0)).join(', ')})`);
console.log(`readJsonl : ${r.toFixed(0)} MB/s  (runs ${runs.reader.map((x) => x.toFixed(0)).join(', ')})`);
console.log(`ratio     : ${(r / b).toFixed(2)}×  (target ≥ 0.80)`);
console.log(`rss       : ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB`);
