// The mutations of the fuzz run. A mutant is one fixture session with one to three of these applied
// to one of its files (or to its set of files). Each returns a short recipe so that a failure says
// what was done, not only which seed did it. Values that JSON.stringify cannot write (1e999,
// nesting deeper than its recursion allows, keys named __proto__) are spliced in as raw text.
import { rawFrames, unzstd } from './zstd.mjs';

/** @typedef {ReturnType<typeof import('./rng.mjs').rng>} Rng */

const NL = 0x0a;
/** A string no fixture contains: the slot a raw JSON text is spliced into. */
const SLOT = '\u0001fuzz-slot\u0001';
const SLOT_JSON = JSON.stringify(SLOT);

/** @param {Buffer} b */
const splitLines = (b) => {
  const out = [];
  let start = 0;
  for (let i = b.indexOf(NL); i >= 0; i = b.indexOf(NL, start)) {
    out.push(b.subarray(start, i));
    start = i + 1;
  }
  out.push(b.subarray(start)); // after the last LF: empty when the file ends with one
  return out;
};
/** @param {Buffer[]} lines */
const joinLines = (lines) => Buffer.concat(lines.flatMap((l, i) => (i === 0 ? [l] : [Buffer.from([NL]), l])));
/** Indexes of the lines with content. @param {Buffer[]} lines */
const filled = (lines) => lines.flatMap((l, i) => (l.length > 0 ? [i] : []));

// ---- bytes ---------------------------------------------------------------------------------------

const INVALID_UTF8 = {
  ff: [0xff],
  fe: [0xfe],
  'truncated c3': [0xc3],
  'overlong c0 af': [0xc0, 0xaf],
  'surrogate ed a0 80': [0xed, 0xa0, 0x80],
  'above U+10FFFF f4 90 80 80': [0xf4, 0x90, 0x80, 0x80],
  'lone continuation 80': [0x80],
};

/** An offset inside a random line, just after a quote when the line has one (so usually inside a string). @param {Buffer} b @param {Rng} r */
function offsetInLine(b, r) {
  const lines = splitLines(b);
  const idx = filled(lines);
  if (idx.length === 0) return { at: r.int(b.length + 1), line: 1 };
  const i = r.pick(idx);
  let start = 0;
  for (let k = 0; k < i; k++) start += lines[k].length + 1;
  const line = lines[i];
  const quotes = [];
  for (let q = line.indexOf(0x22); q >= 0 && quotes.length < 200; q = line.indexOf(0x22, q + 1)) quotes.push(q);
  const at = quotes.length > 0 && r.chance(0.8) ? r.pick(quotes) + 1 : r.int(line.length + 1);
  return { at: start + at, line: i + 1 };
}

/** @type {Record<string, (b: Buffer, r: Rng) => { out: Buffer, recipe: string }>} */
export const BYTE_OPS = {
  flipBytes(b, r) {
    const out = Buffer.from(b);
    const n = r.pick([1, 1, 2, 8]);
    const at = [];
    for (let k = 0; k < n && out.length > 0; k++) {
      const p = r.int(out.length);
      out[p] ^= 1 + r.int(255);
      at.push(p);
    }
    return { out, recipe: `flip bytes at ${at.join(', ')}` };
  },
  truncate(b, r) {
    if (r.chance(0.3)) {
      const at = r.int(b.length + 1);
      return { out: b.subarray(0, at), recipe: `truncate at byte ${at} of ${b.length}` };
    }
    const { at, line } = offsetInLine(b, r);
    return { out: b.subarray(0, at), recipe: `truncate mid-line ${line} (byte ${at} of ${b.length})` };
  },
  invalidUtf8(b, r) {
    const name = r.pick(Object.keys(INVALID_UTF8));
    const { at, line } = offsetInLine(b, r);
    return {
      out: Buffer.concat([b.subarray(0, at), Buffer.from(INVALID_UTF8[name]), b.subarray(at)]),
      recipe: `insert invalid UTF-8 (${name}) in line ${line} at byte ${at}`,
    };
  },
  nulBytes(b, r) {
    const n = r.pick([1, 1, 16, 4096]);
    const { at, line } = offsetInLine(b, r);
    return {
      out: Buffer.concat([b.subarray(0, at), Buffer.alloc(n), b.subarray(at)]),
      recipe: `insert ${n} NUL byte(s) in line ${line} at byte ${at}`,
    };
  },
  crlf(b, r) {
    const how = r.pick(['every LF to CR LF', 'every LF to CR', 'one CR LF', 'a lone CR mid-line']);
    const lines = splitLines(b);
    if (how === 'every LF to CR LF') return { out: Buffer.from(b.toString('latin1').replaceAll('\n', '\r\n'), 'latin1'), recipe: how };
    if (how === 'every LF to CR') return { out: Buffer.from(b.toString('latin1').replaceAll('\n', '\r'), 'latin1'), recipe: how };
    if (how === 'one CR LF') {
      const i = r.int(Math.max(1, lines.length - 1));
      lines[i] = Buffer.concat([lines[i], Buffer.from('\r')]);
      return { out: joinLines(lines), recipe: `CR LF at the end of line ${i + 1}` };
    }
    const { at, line } = offsetInLine(b, r);
    return { out: Buffer.concat([b.subarray(0, at), Buffer.from('\r'), b.subarray(at)]), recipe: `lone CR in line ${line} at byte ${at}` };
  },
  bom(b) {
    return { out: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), b]), recipe: 'UTF-8 BOM in front' };
  },
};

// ---- lines ---------------------------------------------------------------------------------------

/** @type {Record<string, (b: Buffer, r: Rng) => { out: Buffer, recipe: string } | null>} */
export const LINE_OPS = {
  duplicateLine(b, r) {
    const lines = splitLines(b);
    const idx = filled(lines);
    if (idx.length === 0) return null;
    const i = r.pick(idx);
    // Many copies of one line: a record repeated is cheap to write and may be costly to replay.
    const times = Math.max(1, Math.min(r.pick([1, 1, 1, 50, 2000]), Math.floor((8 << 20) / (lines[i].length + 1))));
    const to = r.chance(0.5) ? i + 1 : r.int(lines.length);
    lines.splice(to, 0, ...Array(times).fill(lines[i]));
    return { out: joinLines(lines), recipe: `duplicate line ${i + 1} x${times} before line ${to + 1}` };
  },
  deleteLines(b, r) {
    const lines = splitLines(b);
    const idx = filled(lines);
    if (idx.length === 0) return null;
    const i = r.pick(idx);
    const n = r.pick([1, 1, 2, 3]);
    lines.splice(i, n);
    return { out: joinLines(lines), recipe: `delete ${n} line(s) from line ${i + 1}` };
  },
  swapLines(b, r) {
    const lines = splitLines(b);
    const idx = filled(lines);
    if (idx.length < 2) return null;
    const i = r.pick(idx);
    const j = r.pick(idx);
    [lines[i], lines[j]] = [lines[j], lines[i]];
    return { out: joinLines(lines), recipe: `swap lines ${i + 1} and ${j + 1}` };
  },
  reverseLines(b, r) {
    const lines = splitLines(b);
    const idx = filled(lines);
    if (idx.length < 2) return null;
    const i = r.int(idx.length - 1);
    const n = Math.min(idx.length - i, 2 + r.int(9));
    const span = idx.slice(i, i + n);
    const rev = span.map((k) => lines[k]).reverse();
    span.forEach((k, m) => (lines[k] = rev[m]));
    return { out: joinLines(lines), recipe: `reverse the order of lines ${span[0] + 1}..${span[span.length - 1] + 1}` };
  },
  moveLine(b, r) {
    const lines = splitLines(b);
    const idx = filled(lines);
    if (idx.length < 2) return null;
    const i = r.pick(idx);
    const [line] = lines.splice(i, 1);
    const to = r.int(lines.length + 1);
    lines.splice(to, 0, line);
    return { out: joinLines(lines), recipe: `move line ${i + 1} to line ${to + 1}` };
  },
};

// ---- JSON values ---------------------------------------------------------------------------------

/** Fields whose loss a reader is most likely to trip on. */
const REQUIRED_ISH = new Set([
  'type',
  'kind',
  'seq',
  'id',
  'role',
  'content',
  'message',
  'payload',
  'uuid',
  'parentUuid',
  'sessionId',
  'session_id',
  'timestamp',
  'name',
  'text',
  'tool_use_id',
  'call_id',
  'v',
  'version',
  'items',
  'blocks',
  'event',
  'data',
  'request',
  'response',
  'usage',
  'model',
  'session',
  'header',
  'item',
  'input',
  'output',
  'summary',
  'compaction',
  'ops',
  'op',
  'arguments',
  'messages',
  'source',
  'target',
  'keep',
  'replaces',
  'callId',
  'created_at',
  'index',
  'ordinal',
]);
const ID_KEY = /(^|_)id$|Id$|uuid|Uuid|^name$|^type$|^kind$|^role$|^branch$|^call_id$/;
const PROTO_NAMES = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];
const HUGE_NUMBERS = [
  '1e308',
  '-1e308',
  '1e999',
  '-1e999',
  '-1',
  '-0',
  '0',
  '9007199254740992',
  '9007199254740993',
  '-9007199254740992',
  '4294967296',
  '2147483648',
  '1e-320',
  '0.5',
  '123456789012345678901234567890',
  '"NaN"',
  '"Infinity"',
  '"-1"',
  '"1e308"',
];
/** Replacement texts by the type they replace: always another type. */
const SWAPS = {
  string: ['0', '1e308', '{}', 'null', '[]', 'true', '{"type":"text","text":"x"}', '[{"type":"text"}]'],
  number: ['"1"', '"abc"', '{}', 'null', '[]', 'false', '"NaN"'],
  boolean: ['"true"', '1', 'null', '{}'],
  null: ['"x"', '0', '{}', '[]', 'false'],
  object: ['"x"', '0', 'null', '[]', '[{}]', 'true'],
  array: ['{}', '"x"', '0', 'null', '[null]', '[[]]', '{"0":{}}'],
};
/** @param {unknown} v */
const typeOf = (v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/**
 * @typedef {{ path: string, parent: Record<string, unknown> | unknown[] | null, key: string | number | null, value: unknown }} Node
 * Every value in `root` (breadth first, at most `limit`), with its place.
 * @param {unknown} root @param {number} limit @returns {Node[]}
 */
function nodes(root, limit = 5000) {
  /** @type {Node[]} */
  const out = [{ path: '$', parent: null, key: null, value: root }];
  for (let k = 0; k < out.length && out.length < limit; k++) {
    const { path, value } = out[k];
    if (Array.isArray(value)) value.forEach((v, i) => out.push({ path: `${path}[${i}]`, parent: value, key: i, value: v }));
    else if (value && typeof value === 'object') {
      for (const [key, v] of Object.entries(value))
        out.push({ path: `${path}.${key}`, parent: /** @type {Record<string, unknown>} */ (value), key, value: v });
    }
  }
  return out.slice(0, limit);
}

/** `root` as JSON with `node`'s value replaced by the raw text `raw`. @param {unknown} root @param {Node} node @param {string} raw */
function splice(root, node, raw) {
  if (node.parent === null) return raw;
  const before = node.parent[/** @type {never} */ (node.key)];
  node.parent[/** @type {never} */ (node.key)] = /** @type {never} */ (SLOT);
  const text = JSON.stringify(root);
  node.parent[/** @type {never} */ (node.key)] = /** @type {never} */ (before);
  // A function replacement: the raw text may hold `$&` and the like.
  return text.replace(SLOT_JSON, () => raw);
}

/** A very long JSON string literal, built as text. @param {Rng} r */
function longString(r) {
  const n = r.pick([65_536, 1 << 20, 4 << 20]);
  const [label, unit] = r.pick([
    ['x', 'x'],
    ['escaped LF', '\\n'],
    ['emoji', '🚀'],
    ['escaped NUL', '\\u0000'],
    ['lone surrogate escape', '\\ud800'],
    ['mixed', 'ab "\\t\\u2028é'],
  ]);
  return { raw: `"${unit.repeat(Math.ceil(n / unit.length))}"`, what: `a ${n}-unit string of ${label}` };
}

/** A deeply nested JSON value, built as text (JSON.stringify would recurse). @param {Rng} r */
function deepValue(r) {
  const depth = r.pick([1_000, 10_000, 100_000]);
  const [label, open, mid, close] = r.pick([
    ['arrays', '[', '', ']'],
    ['objects', '{"a":', 'null', '}'],
    ['content blocks', '[{"type":"text","text":"x","content":', '"y"', '}]'],
  ]);
  return { raw: open.repeat(depth) + mid + close.repeat(depth), what: `${label} nested ${depth} deep` };
}

/** @type {Record<string, (root: unknown, r: Rng) => { text: string, recipe: string } | null>} */
export const JSON_OPS = {
  hugeNumber(root, r) {
    const all = nodes(root);
    const nums = all.filter((n) => typeof n.value === 'number');
    const n = nums.length > 0 && r.chance(0.85) ? r.pick(nums) : r.pick(all);
    const raw = r.pick(HUGE_NUMBERS);
    return { text: splice(root, n, raw), recipe: `${n.path} = ${raw}` };
  },
  typeSwap(root, r) {
    const n = r.pick(nodes(root));
    const raw = r.pick(SWAPS[typeOf(n.value)]);
    return { text: splice(root, n, raw), recipe: `${n.path}: ${typeOf(n.value)} -> ${raw}` };
  },
  removeField(root, r) {
    const objects = nodes(root).filter((n) => typeOf(n.value) === 'object' && Object.keys(/** @type {object} */ (n.value)).length > 0);
    if (objects.length === 0) return null;
    const required = objects.filter((n) => Object.keys(/** @type {object} */ (n.value)).some((k) => REQUIRED_ISH.has(k)));
    const n = required.length > 0 && r.chance(0.75) ? r.pick(required) : r.pick(objects);
    const obj = /** @type {Record<string, unknown>} */ (n.value);
    const keys = Object.keys(obj);
    const wanted = keys.filter((k) => REQUIRED_ISH.has(k));
    const key = wanted.length > 0 && r.chance(0.75) ? r.pick(wanted) : r.pick(keys);
    const { [key]: _gone, ...rest } = obj;
    return { text: splice(root, n, JSON.stringify(rest)), recipe: `remove ${n.path}.${key}` };
  },
  deepNest(root, r) {
    const n = r.pick(nodes(root));
    const { raw, what } = deepValue(r);
    return { text: splice(root, n, raw), recipe: `${n.path} = ${what}` };
  },
  longString(root, r) {
    const all = nodes(root);
    const strings = all.filter((n) => typeof n.value === 'string');
    const n = strings.length > 0 && r.chance(0.85) ? r.pick(strings) : r.pick(all);
    const { raw, what } = longString(r);
    return { text: splice(root, n, raw), recipe: `${n.path} = ${what}` };
  },
  protoKey(root, r) {
    const all = nodes(root);
    const name = r.pick(PROTO_NAMES);
    const ids = all.filter((n) => typeof n.value === 'string' && typeof n.key === 'string' && ID_KEY.test(n.key));
    if (ids.length > 0 && r.chance(0.6)) {
      const n = r.pick(ids);
      return { text: splice(root, n, JSON.stringify(name)), recipe: `${n.path} = "${name}"` };
    }
    const objects = all.filter((n) => typeOf(n.value) === 'object');
    if (objects.length === 0) return null;
    const n = r.pick(objects);
    const obj = /** @type {Record<string, unknown>} */ (n.value);
    const keys = Object.keys(obj);
    // As its own key (what JSON.parse gives back for "__proto__"), spliced in as text.
    if (keys.length > 0 && r.chance(0.5)) {
      const key = r.pick(keys);
      const inner = JSON.stringify(obj).replace(JSON.stringify(key) + ':', () => JSON.stringify(name) + ':');
      return { text: splice(root, n, inner), recipe: `rename ${n.path}.${key} to "${name}"` };
    }
    const inner = JSON.stringify(obj)
      .replace(/^\{/, () => `{${JSON.stringify(name)}:{"polluted":true,"length":1e9},`)
      .replace(',}', '}');
    return { text: splice(root, n, inner), recipe: `add ${n.path}."${name}" = {polluted, length: 1e9}` };
  },
};

/** @param {string} file */
const isJsonDocument = (file) => /\.json$/.test(file);

/**
 * One JSON operation on a random JSON line (or on the whole file, for a .json document).
 * @param {string} file @param {Buffer} b @param {string} op @param {Rng} r
 */
function jsonOp(file, b, op, r) {
  if (isJsonDocument(file)) {
    let root;
    try {
      root = JSON.parse(b.toString('utf8'));
    } catch {
      return null;
    }
    const res = JSON_OPS[op](root, r);
    return res && { out: Buffer.from(res.text), recipe: `${op} ${res.recipe}` };
  }
  const lines = splitLines(b);
  const candidates = [];
  for (const i of filled(lines)) {
    const c = lines[i][0];
    if (c === 0x7b || c === 0x5b) candidates.push(i);
  }
  // A few tries: a chosen line may not parse (the fixture is bad input on purpose).
  for (let t = 0; t < 8 && candidates.length > 0; t++) {
    const i = r.pick(candidates);
    let root;
    try {
      root = JSON.parse(lines[i].toString('utf8'));
    } catch {
      continue;
    }
    let res;
    try {
      res = JSON_OPS[op](root, r);
    } catch (err) {
      // A line nested too deep for JSON.stringify (a fixture of deep input on purpose): like a
      // line that does not parse, it is not one this mutation can rewrite.
      if (err instanceof RangeError) continue;
      throw err;
    }
    if (!res) return null;
    lines[i] = Buffer.from(res.text);
    return { out: joinLines(lines), recipe: `${op} line ${i + 1}: ${res.recipe}` };
  }
  return null;
}

// ---- mutants -------------------------------------------------------------------------------------

const WEIGHTS = {
  flipBytes: 2,
  truncate: 3,
  invalidUtf8: 2,
  nulBytes: 2,
  crlf: 2,
  bom: 0.5,
  duplicateLine: 3,
  deleteLines: 3,
  swapLines: 2,
  reverseLines: 1,
  moveLine: 1,
  hugeNumber: 4,
  typeSwap: 5,
  removeField: 5,
  deepNest: 2,
  longString: 2,
  protoKey: 3,
  deleteFile: 1,
  emptyFile: 1,
};

/** @param {string} file */
const isZstd = (file) => /\.zstd?$/.test(file);

/**
 * One operation on one file's bytes. A zstd file is mutated either as stored (its frames) or, more
 * often, decompressed, mutated and stored again as raw frames.
 * @param {string} file @param {Buffer} b @param {string} op @param {Rng} r
 * @returns {{ out: Buffer, recipe: string } | null}
 */
function fileOp(file, b, op, r) {
  if (isZstd(file)) {
    const plain = unzstd(b);
    if (plain === null || r.chance(0.25)) {
      if (!(op in BYTE_OPS)) return null;
      const res = BYTE_OPS[op](b, r);
      return { out: res.out, recipe: `${res.recipe} (of the zstd bytes)` };
    }
    const res = fileOp(file.replace(/\.zstd?$/, ''), plain, op, r);
    if (!res) return null;
    const frames = r.pick([1, 1, 2, 3]);
    return { out: rawFrames(res.out, frames), recipe: `${res.recipe} (decompressed, then stored as ${frames} raw zstd frame(s))` };
  }
  if (op in BYTE_OPS) return BYTE_OPS[op](b, r);
  if (op in LINE_OPS) return isJsonDocument(file) ? null : LINE_OPS[op](b, r);
  if (op in JSON_OPS) return jsonOp(file, b, op, r);
  return null;
}

/**
 * Mutates a copy of `files` (a unit's files by relative path; `main` is the one a command is
 * given, or the folder's name for a Rind session). Returns the new files and the recipe.
 * @param {Map<string, Buffer>} files @param {string} main @param {Rng} r
 */
export function mutate(files, main, r) {
  const out = new Map(files);
  const steps = [];
  const count = r.weighted({ 1: 70, 2: 25, 3: 5 });
  for (let tries = 0; steps.length < Number(count) && tries < 40; tries++) {
    const names = [...out.keys()];
    if (names.length === 0) break;
    const op = r.weighted(WEIGHTS);
    if (op === 'deleteFile' || op === 'emptyFile') {
      if (names.length < 2) continue;
      const f = r.pick(names);
      if (op === 'deleteFile') out.delete(f);
      else out.set(f, Buffer.alloc(0));
      steps.push(`${op} ${f}`);
      continue;
    }
    // The file a command is given most of the time; its companions otherwise.
    const file = out.has(main) && r.chance(0.6) ? main : r.pick(names);
    const res = fileOp(file, /** @type {Buffer} */ (out.get(file)), op, r);
    if (!res) continue;
    out.set(file, res.out);
    steps.push(`${file}: ${res.recipe}`);
  }
  return { files: out, recipe: steps.join('; ') };
}
