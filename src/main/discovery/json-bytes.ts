/**
 * Reading a few fields of one JSON object line straight from its UTF-8 bytes, without decoding or
 * parsing the whole line. Discovery needs a handful of top-level fields per line (type, uuid,
 * parentUuid…) while most of the bytes are message content: these helpers walk an object's keys,
 * jump over strings with `Buffer.indexOf` (memchr) and over nested values with a depth count, and
 * decode values only for the keys asked for.
 *
 * Exact for valid JSON: a string ends at the first `"` preceded by an even number of backslashes,
 * and brackets inside strings are never counted. Bytes that are not the expected shape make a
 * walker report failure (`BAD`), and the caller falls back to JSON.parse of the line.
 */

export const QUOTE = 0x22;
const BACKSLASH = 0x5c;
export const LBRACE = 0x7b;
export const RBRACE = 0x7d;
export const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
export const COLON = 0x3a;
const COMMA = 0x2c;

/** Returned by the walkers on bytes that are not a JSON object of the expected shape. */
export const BAD = -2;

const isSpace = (c: number | undefined): boolean => c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;

/** Index just past the string whose opening quote is at `i`; -1 when it does not end before `end`. */
export function skipString(buf: Buffer, i: number, end: number): number {
  // Native searches only: byte loops in JS are fast once optimised, but a one-off listing runs
  // mostly before that (measured: the first files of a cold run dominate its time).
  let j = i + 1;
  for (;;) {
    const q = buf.indexOf(QUOTE, j);
    if (q < 0 || q >= end) return -1;
    let k = q - 1;
    while (k > i && buf[k] === BACKSLASH) k--;
    if (((q - 1 - k) & 1) === 0) return q + 1;
    j = q + 1;
  }
}

/** Index of the opening quote of the string whose closing quote is at `q`; -1 when none at or after `start`. */
function stringStartBackward(buf: Buffer, q: number, start: number): number {
  let j = q - 1;
  for (;;) {
    if (j < start) return -1;
    const o = buf.lastIndexOf(QUOTE, j);
    if (o < start) return -1;
    let k = o - 1;
    while (k >= start && buf[k] === BACKSLASH) k--;
    if (((o - 1 - k) & 1) === 0) return o;
    j = o - 1;
  }
}

/** Index just past the object or array opening at `i` (depth count, strings jumped); -1 when unterminated. */
export function skipNested(buf: Buffer, i: number, end: number): number {
  let depth = 0;
  let j = i;
  while (j < end) {
    const c = buf[j] as number;
    if (c === QUOTE) {
      j = skipString(buf, j, end);
      if (j < 0) return -1;
      continue;
    }
    if (c === LBRACE || c === LBRACKET) depth++;
    else if (c === RBRACE || c === RBRACKET) {
      depth--;
      if (depth === 0) return j + 1;
    }
    j++;
  }
  return -1;
}

/** Index just past the value starting at `i`; -1 when malformed. */
export function skipValue(buf: Buffer, i: number, end: number): number {
  if (i >= end) return -1;
  const c = buf[i];
  if (c === QUOTE) return skipString(buf, i, end);
  if (c === LBRACE || c === LBRACKET) return skipNested(buf, i, end);
  let j = i;
  while (j < end) {
    const x = buf[j];
    if (x === COMMA || x === RBRACE || x === RBRACKET || isSpace(x)) break;
    j++;
  }
  return j === i ? -1 : j;
}

export function skipSpace(buf: Buffer, i: number, end: number): number {
  let j = i;
  while (j < end && isSpace(buf[j])) j++;
  return j;
}

/** A key (or an ASCII value) as bytes, for comparing without decoding. */
export function ascii(s: string): Uint8Array {
  return Buffer.from(s, 'latin1');
}

/** Whether the bytes of `s` are at `buf[at…]`. */
export function bytesAt(buf: Buffer, at: number, s: Uint8Array): boolean {
  const n = s.length;
  for (let i = 0; i < n; i++) if (buf[at + i] !== s[i]) return false;
  return true;
}

/** The quote at `q` ends a string (it is preceded by an even number of backslashes). */
export function realQuote(buf: Buffer, q: number): boolean {
  let k = q - 1;
  while (k >= 0 && buf[k] === BACKSLASH) k--;
  return ((q - 1 - k) & 1) === 0;
}

/** Whether `buf[start, end)` holds exactly the bytes of `s`. */
export function bytesEqual(buf: Buffer, start: number, end: number, s: Uint8Array): boolean {
  const n = s.length;
  if (end - start !== n) return false;
  for (let i = 0; i < n; i++) if (buf[start + i] !== s[i]) return false;
  return true;
}

/**
 * A cursor over an object's keys, forwards. `open()` at the `{`, then `next()` until it returns
 * false; after each `next()`, `ks..ke` is the key (inside its quotes) and `vs` where its value
 * starts; the caller then calls `skip()` (or `skipTo(i)` after consuming the value itself).
 */
export class KeyCursor {
  buf: Buffer = Buffer.alloc(0);
  end = 0;
  ks = 0;
  ke = 0;
  vs = 0;
  /** Where the cursor is: after a value, before `,` or `}`. */
  pos = 0;
  /** Set when the bytes are not an object of keys and values. */
  bad = false;
  /** Set when the closing `}` was reached. */
  done = false;
  private first = true;

  open(buf: Buffer, brace: number, end: number): this {
    this.buf = buf;
    this.end = end;
    this.pos = brace + 1;
    this.bad = buf[brace] !== LBRACE;
    this.done = false;
    this.first = true;
    return this;
  }

  next(): boolean {
    if (this.bad || this.done) return false;
    const { buf, end } = this;
    let i = skipSpace(buf, this.pos, end);
    if (this.first) {
      this.first = false;
      if (buf[i] === RBRACE) {
        this.done = true;
        this.pos = i + 1;
        return false;
      }
    } else {
      if (buf[i] === RBRACE) {
        this.done = true;
        this.pos = i + 1;
        return false;
      }
      if (buf[i] !== COMMA) return this.fail();
      i = skipSpace(buf, i + 1, end);
    }
    if (buf[i] !== QUOTE) return this.fail();
    const q = skipString(buf, i, end);
    if (q < 0) return this.fail();
    let j = skipSpace(buf, q, end);
    if (buf[j] !== COLON) return this.fail();
    j = skipSpace(buf, j + 1, end);
    if (j >= end) return this.fail();
    this.ks = i + 1;
    this.ke = q - 1;
    this.vs = j;
    this.pos = j;
    return true;
  }

  /** The current value is an object or array. */
  get nested(): boolean {
    const c = this.buf[this.vs];
    return c === LBRACE || c === LBRACKET;
  }

  is(key: Uint8Array): boolean {
    return bytesEqual(this.buf, this.ks, this.ke, key);
  }

  /** Skips the current value; returns its end (or -1, and the cursor is bad). */
  skip(): number {
    const e = skipValue(this.buf, this.vs, this.end);
    if (e < 0) {
      this.fail();
      return -1;
    }
    this.pos = e;
    return e;
  }

  skipTo(i: number): void {
    this.pos = i;
  }

  /** Positions the cursor on a value starting at `vs` (found by other means) of the object it walks. */
  resumeAt(vs: number): void {
    this.vs = vs;
    this.pos = vs;
    this.first = false;
    this.done = false;
    this.bad = false;
  }

  private fail(): false {
    this.bad = true;
    return false;
  }
}

/**
 * Walks the keys of the object whose closing `}` is at `close`, backwards, while their values are
 * strings or scalars; `visit(ks, ke, vs, ve)` gets each. Stops at the first object or array value
 * and returns the index of its last byte; returns -1 when it reached the opening `{` (at `open`),
 * or BAD on bytes it does not understand. `visit` returning false stops the walk (returns `vs`).
 */
export function walkBackward(
  buf: Buffer,
  open: number,
  close: number,
  visit: (ks: number, ke: number, vs: number, ve: number) => boolean,
): number {
  let j = close - 1;
  for (;;) {
    while (j > open && isSpace(buf[j])) j--;
    if (j <= open) return -1;
    const c = buf[j];
    if (c === RBRACE || c === RBRACKET) return j;
    const ve = j + 1;
    let vs: number;
    if (c === QUOTE) {
      vs = stringStartBackward(buf, j, open + 1);
      if (vs < 0) return BAD;
    } else {
      let k = j;
      while (k > open) {
        const x = buf[k];
        if (x === COLON || isSpace(x)) break;
        if (x === COMMA || x === QUOTE || x === RBRACE || x === RBRACKET || x === LBRACE || x === LBRACKET) return BAD;
        k--;
      }
      vs = k + 1;
    }
    let k = vs - 1;
    while (k > open && isSpace(buf[k])) k--;
    if (buf[k] !== COLON) return BAD;
    k--;
    while (k > open && isSpace(buf[k])) k--;
    if (buf[k] !== QUOTE) return BAD;
    const kq = stringStartBackward(buf, k, open + 1);
    if (kq < 0) return BAD;
    if (!visit(kq + 1, k, vs, ve)) return vs;
    j = kq - 1;
    while (j > open && isSpace(buf[j])) j--;
    if (j === open) return -1;
    if (buf[j] !== COMMA) return BAD;
    j--;
  }
}

/** The string value at `vs..ve` (quotes included), decoded; undefined when it is not a string. */
export function readString(buf: Buffer, vs: number, ve: number): string | undefined {
  if (buf[vs] !== QUOTE || ve - vs < 2 || buf[ve - 1] !== QUOTE) return undefined;
  const esc = buf.indexOf(BACKSLASH, vs + 1);
  if (esc < 0 || esc >= ve - 1) return buf.toString('utf8', vs + 1, ve - 1);
  try {
    const s: unknown = JSON.parse(buf.toString('utf8', vs, ve));
    return typeof s === 'string' ? s : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An id (uuid, message id, time) as a map key: the string's bytes as latin1, without decoding
 * UTF-8. Two ids are equal exactly when their bytes are, which is all a key needs; an id with an
 * escape is decoded (so `\u0041` and `A` stay the same key).
 */
export function readId(buf: Buffer, vs: number, ve: number): string | undefined {
  if (buf[vs] !== QUOTE || ve - vs < 2) return undefined;
  const esc = buf.indexOf(BACKSLASH, vs + 1);
  if (esc >= 0 && esc < ve - 1) return readString(buf, vs, ve);
  return buf.toString('latin1', vs + 1, ve - 1);
}

/** The scalar value at `vs..ve` is exactly `true`. */
export function isTrue(buf: Buffer, vs: number, ve: number): boolean {
  return ve - vs === 4 && buf[vs] === 0x74 && buf[vs + 1] === 0x72 && buf[vs + 2] === 0x75 && buf[vs + 3] === 0x65;
}

/** The string value at `vs..ve` is exactly the ASCII `s` (no escapes). */
export function stringIs(buf: Buffer, vs: number, ve: number, s: Uint8Array): boolean {
  return buf[vs] === QUOTE && bytesEqual(buf, vs + 1, ve - 1, s);
}

/** Bounds `[first, last]` of the object on `buf[start, end)` (a BOM and spaces trimmed); null when it is not `{…}`. */
export function objectBounds(buf: Buffer, start: number, end: number): [number, number] | null {
  let s = start;
  let e = end - 1;
  if (buf[s] === 0xef && buf[s + 1] === 0xbb && buf[s + 2] === 0xbf) s += 3;
  while (s < end && isSpace(buf[s])) s++;
  while (e > s && isSpace(buf[e])) e--;
  if (buf[s] !== LBRACE || buf[e] !== RBRACE) return null;
  return [s, e];
}

/** JSON.parse of one line's bytes; null when it is not a JSON object. */
export function parseObject(buf: Buffer, start: number, end: number): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(buf.toString('utf8', start, end));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * A set of ids (uuids) given as bytes, numbered in insertion order: an open-addressing hash table
 * over a byte arena, so that a record's uuid costs no string and no Map entry. `find` and `add`
 * take the id's bytes `buf[s, e)`. `reset()` empties it for reuse (one table per thread).
 */
export class IdTable {
  // Sized for a session of a few thousand records, and grown as needed: a small table stays in
  // the L2 cache while a scan streams megabytes past it.
  private arena = new Uint8Array(1 << 16);
  private used = 0;
  private offsets = new Int32Array(1 << 11);
  private lengths = new Int32Array(1 << 11);
  private hashes = new Int32Array(1 << 11);
  private slots = new Int32Array(1 << 12);
  private mask = (1 << 12) - 1;
  count = 0;
  /** Who reset it last: a table is reused by one scan at a time (see ClaudeScanner). */
  owner: unknown = null;

  /**
   * FNV-1a over the first and last 8 bytes and the length (uuids are random there; ids are
   * compared whole anyway). One path for every length: a branch that only short ids take would
   * be compiled without type feedback, and undo the optimised code the first time one came.
   */
  private static hash(buf: Uint8Array, s: number, e: number): number {
    let h = 0x811c9dc5;
    const n = e - s;
    const k = n < 8 ? n : 8;
    for (let i = s; i < s + k; i++) h = Math.imul(h ^ (buf[i] as number), 0x01000193);
    for (let i = e - k; i < e; i++) h = Math.imul(h ^ (buf[i] as number), 0x01000193);
    return Math.imul(h ^ n, 0x01000193);
  }

  reset(): void {
    if (this.count > 0) this.slots.fill(0);
    this.count = 0;
    this.used = 0;
  }

  private same(n: number, buf: Uint8Array, s: number, e: number): boolean {
    const len = this.lengths[n] as number;
    if (len !== e - s) return false;
    const o = this.offsets[n] as number;
    const a = this.arena;
    for (let i = len - 1; i >= 0; i--) if (a[o + i] !== buf[s + i]) return false;
    return true;
  }

  /** The number of the id, or -1. */
  find(buf: Buffer, s: number, e: number): number {
    const h = IdTable.hash(buf, s, e);
    // Linear probing from the hash's slot (the step comes first, so that it runs on every call).
    let i = (h - 1) & this.mask;
    for (;;) {
      i = (i + 1) & this.mask;
      const v = this.slots[i] as number;
      if (v === 0) return -1;
      if (this.hashes[v - 1] === h && this.same(v - 1, buf, s, e)) return v - 1;
    }
  }

  /**
   * find(), trying the id added last first: in a Claude Code transcript nine parents in ten are
   * the record just before.
   */
  findRecent(buf: Buffer, s: number, e: number): number {
    const n = this.count - 1;
    if (n >= 0 && this.same(n, buf, s, e)) return n;
    return this.find(buf, s, e);
  }

  /** Adds the id unless it is there: returns its new number, or -1 when it was there already. */
  addNew(buf: Buffer, s: number, e: number): number {
    const h = IdTable.hash(buf, s, e);
    let i = (h - 1) & this.mask;
    for (;;) {
      i = (i + 1) & this.mask;
      const v = this.slots[i] as number;
      if (v === 0) break;
      if (this.hashes[v - 1] === h && this.same(v - 1, buf, s, e)) return -1;
    }
    const n = this.count;
    if ((n + 1) * 2 > this.slots.length) {
      this.grow();
      i = h & this.mask;
      while (this.slots[i] !== 0) i = (i + 1) & this.mask;
    }
    if (n >= this.offsets.length) {
      this.offsets = widen(this.offsets);
      this.lengths = widen(this.lengths);
      this.hashes = widen(this.hashes);
    }
    const len = e - s;
    if (this.used + len > this.arena.length) {
      const a = new Uint8Array(Math.max(this.arena.length * 2, this.used + len));
      a.set(this.arena.subarray(0, this.used));
      this.arena = a;
    }
    const a = this.arena;
    const o = this.used;
    for (let k = 0; k < len; k++) a[o + k] = buf[s + k] as number;
    this.offsets[n] = o;
    this.lengths[n] = len;
    this.hashes[n] = h;
    this.used += len;
    this.count = n + 1;
    this.slots[i] = n + 1;
    return n;
  }

  /** The number of the id, added when it is new. */
  intern(buf: Buffer, s: number, e: number): number {
    const n = this.addNew(buf, s, e);
    return n >= 0 ? n : this.find(buf, s, e);
  }

  /** The id numbered `n`, as latin1 (its bytes, undecoded). */
  text(n: number): string {
    const o = this.offsets[n] as number;
    return Buffer.from(this.arena.buffer, this.arena.byteOffset + o, this.lengths[n] as number).toString('latin1');
  }

  private grow(): void {
    this.slots = new Int32Array(this.slots.length * 2);
    this.mask = this.slots.length - 1;
    for (let n = 0; n < this.count; n++) {
      let i = (this.hashes[n] as number) & this.mask;
      while (this.slots[i] !== 0) i = (i + 1) & this.mask;
      this.slots[i] = n + 1;
    }
  }
}

function widen(a: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}
