// What holds a heap: a .heapsnapshot (node's v8.writeHeapSnapshot; the follow soak writes one with
// --snapshot FILE) summed by kind of object, the largest things by retained size (what freeing them
// would free, over the dominator tree), and the tree under the objects whose constructor a
// pattern names (default: the follower, the session it shows, the import kept open to read on).
//
//   node --max-old-space-size=4000 bench/heap-summary.mjs FILE.heapsnapshot [MIN_MB] [CONSTRUCTORS]
//
// docs/performance.md ("Following a session") uses its output.
import { readFileSync } from 'node:fs';

const file = process.argv[2];
if (!file) {
  console.error('usage: node bench/heap-summary.mjs FILE.heapsnapshot [MIN_MB] [CONSTRUCTORS]');
  process.exit(2);
}
const minBytes = Number(process.argv[3] ?? 2) * 1e6;
// esbuild names a class `_Name` when it renames it: both match.
const named = new RegExp(`^_?(?:${process.argv[4] ?? 'SessionFollower|ReadOn'})$`);

const snap = JSON.parse(readFileSync(file, 'utf8'));
const meta = snap.snapshot.meta;
const NF = meta.node_fields.length;
const EF = meta.edge_fields.length;
const [nType, nName, nSelf, nEdges] = ['type', 'name', 'self_size', 'edge_count'].map((f) => meta.node_fields.indexOf(f));
const [eType, eName, eTo] = ['type', 'name_or_index', 'to_node'].map((f) => meta.edge_fields.indexOf(f));
const nodeTypes = meta.node_types[0];
const edgeTypes = meta.edge_types[0];
const { nodes, edges, strings } = snap;
const N = nodes.length / NF;
const type = (i) => nodeTypes[nodes[i * NF + nType]];
const name = (i) => String(strings[nodes[i * NF + nName]]);
const self = (i) => nodes[i * NF + nSelf];
const firstEdge = new Uint32Array(N + 1);
for (let i = 0, e = 0; i < N; i++) {
  firstEdge[i] = e;
  e += nodes[i * NF + nEdges] * EF;
}
firstEdge[N] = edges.length;
const weak = edgeTypes.indexOf('weak');
const mb = (b) => (b / 1e6).toFixed(2).padStart(7);

// By kind: strings, code, and objects by constructor.
const byKind = new Map();
let total = 0;
for (let i = 0; i < N; i++) {
  total += self(i);
  const k = type(i) === 'object' || type(i) === 'native' ? `${type(i)} ${name(i)}` : type(i);
  byKind.set(k, (byKind.get(k) ?? 0) + self(i));
}
console.log(`${mb(total)} MB in ${N} nodes; by kind (MB):`);
for (const [k, v] of [...byKind].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`${mb(v)}  ${k.slice(0, 80)}`);

// Dominators (Cooper, Harvey and Kennedy's iteration) over the strong edges, from the root (node 0).
const postIndex = new Int32Array(N).fill(-1);
const post = [];
const reached = new Uint8Array(N);
const nextEdge = firstEdge.slice(0, N);
const stack = [0];
reached[0] = 1;
while (stack.length > 0) {
  const v = stack[stack.length - 1];
  if (nextEdge[v] < firstEdge[v + 1]) {
    const e = nextEdge[v];
    nextEdge[v] += EF;
    const w = edges[e + eTo] / NF;
    if (edges[e + eType] !== weak && !reached[w]) {
      reached[w] = 1;
      stack.push(w);
    }
  } else {
    stack.pop();
    postIndex[v] = post.length;
    post.push(v);
  }
}
const predStart = new Uint32Array(N + 1);
const strong = (v, f) => {
  for (let e = firstEdge[v]; e < firstEdge[v + 1]; e += EF) if (edges[e + eType] !== weak) f(edges[e + eTo] / NF, e);
};
for (let v = 0; v < N; v++) if (reached[v]) strong(v, (w) => predStart[w + 1]++);
for (let i = 0; i < N; i++) predStart[i + 1] += predStart[i];
const preds = new Uint32Array(predStart[N]);
const fill = predStart.slice(0, N);
for (let v = 0; v < N; v++) if (reached[v]) strong(v, (w) => (preds[fill[w]++] = v));
const dom = new Int32Array(N).fill(-1);
dom[0] = 0;
const meet = (a, b) => {
  while (a !== b) {
    while (postIndex[a] < postIndex[b]) a = dom[a];
    while (postIndex[b] < postIndex[a]) b = dom[b];
  }
  return a;
};
for (let changed = true; changed;) {
  changed = false;
  for (let k = post.length - 2; k >= 0; k--) {
    const v = post[k];
    let d = -1;
    for (let p = predStart[v]; p < predStart[v + 1]; p++) if (dom[preds[p]] !== -1) d = d === -1 ? preds[p] : meet(preds[p], d);
    if (d !== dom[v]) {
      dom[v] = d;
      changed = true;
    }
  }
}
const retained = new Float64Array(N);
for (const v of post) retained[v] += self(v);
for (const v of post) if (v !== 0) retained[dom[v]] += retained[v];
const children = new Map();
for (const v of post) if (v !== 0) (children.get(dom[v]) ?? children.set(dom[v], []).get(dom[v])).push(v);

// The name of the edge from `from` to `to`, when there is one.
const edgeName = (from, to) => {
  for (let e = firstEdge[from]; e < firstEdge[from + 1]; e += EF) {
    if (edges[e + eTo] / NF !== to) continue;
    const t = edgeTypes[edges[e + eType]];
    return t === 'element' || t === 'hidden' ? `[${edges[e + eName]}]` : String(strings[edges[e + eName]]);
  }
  return '…';
};
const label = (v) => `${type(v)} ${name(v).replace(/\s+/g, ' ').slice(0, 40)}`;
const chain = (v) => {
  const out = [];
  for (let x = v, d = 0; x !== 0 && d < 6; x = dom[x], d++) out.push(`${edgeName(dom[x], x)}`);
  return out.reverse().join(' › ');
};

console.log(`\nretaining ${mb(minBytes).trim()} MB or more (MB; under the dominator path):`);
const big = post.filter((v) => v !== 0 && retained[v] >= minBytes).sort((a, b) => retained[b] - retained[a]);
// Only the topmost of a chain of big nodes each retaining nearly the same.
for (const v of big)
  if (!(dom[v] !== 0 && retained[dom[v]] - retained[v] < minBytes / 4)) console.log(`${mb(retained[v])}  ${label(v)}  ‹ ${chain(v)}`);

const tree = (v, depth) => {
  const kids = (children.get(v) ?? []).sort((a, b) => retained[b] - retained[a]);
  for (const w of kids.filter((x) => retained[x] >= 20e3).slice(0, 6)) {
    console.log(`${mb(retained[w])}  ${'  '.repeat(depth)}${edgeName(v, w)}: ${label(w)}`);
    if (depth < 8) tree(w, depth + 1);
  }
  const rest = kids.filter((x) => retained[x] < 20e3);
  if (rest.length > 0)
    console.log(`${mb(rest.reduce((a, x) => a + retained[x], 0))}  ${'  '.repeat(depth)}(${rest.length} smaller, under 0.02 MB each)`);
};
for (let v = 0; v < N; v++) {
  if (!reached[v] || type(v) !== 'object' || !named.test(name(v))) continue;
  console.log(`\n${mb(retained[v])}  ${label(v)}  ‹ ${chain(v)}`);
  tree(v, 1);
}
