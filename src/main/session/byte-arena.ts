/** An arena's contents as another thread hands them over: Buffers and typed arrays (transferable). */
export interface ArenaPart {
  readonly chunks: readonly Uint8Array[];
  /** Bytes used in the last chunk. */
  readonly used: number;
  readonly chunkOf: Uint32Array;
  readonly offsetOf: Uint32Array;
  readonly lengthOf: Uint32Array;
}

/** The largest chunk the arena allocates, unless one line is longer (it then gets a chunk of its own). */
export const MAX_CHUNK_BYTES = 16 * 1024 * 1024;
/** The first chunk: small, so that a small session does not hold 16 MiB it never fills. */
export const FIRST_CHUNK_BYTES = 64 * 1024;

/**
 * An append-only store of byte strings (source lines) outside the JS heap, for logs that keep a
 * line instead of the object graph parsed from it (docs/performance.md, "The compact log": every kept
 * object costs the garbage collector two copies before it settles).
 *
 * Bytes live in Buffers from `allocUnsafeSlow` (not the shared pool), each chunk twice the previous
 * up to MAX_CHUNK_BYTES; a chunk is never reallocated or copied, so `put` costs one copy of the
 * line and nothing later. Where each entry is — chunk, offset, length — sits in typed arrays, not
 * in an object per entry. A ref is the entry's number, in put order.
 */
export class ByteArena {
  private readonly chunks: Buffer[] = [];
  /** Bytes used in the last chunk. */
  private used = 0;
  private chunkOf = new Uint32Array(1024);
  private offsetOf = new Uint32Array(1024);
  private lengthOf = new Uint32Array(1024);
  private n = 0;
  private bytesHeld = 0;

  /** Number of entries. */
  get size(): number {
    return this.n;
  }

  /** Number of chunks allocated. */
  get chunkCount(): number {
    return this.chunks.length;
  }

  /** Bytes allocated for chunks (what the arena holds off the heap, slack included). */
  get allocatedBytes(): number {
    return this.bytesHeld;
  }

  /** Copies `buf[start, end)` in; returns its ref. */
  put(buf: Uint8Array, start: number, end: number): number {
    const length = end - start;
    if (!(length >= 0) || start < 0 || end > buf.length)
      throw new RangeError(`ByteArena.put: [${start}, ${end}) is not inside a buffer of ${buf.length} bytes.`);
    let chunk = this.chunks[this.chunks.length - 1];
    if (chunk === undefined || this.used + length > chunk.length) chunk = this.newChunk(length);
    chunk.set(buf.subarray(start, end), this.used);
    if (this.n === this.chunkOf.length) this.grow();
    const ref = this.n++;
    this.chunkOf[ref] = this.chunks.length - 1;
    this.offsetOf[ref] = this.used;
    this.lengthOf[ref] = length;
    this.used += length;
    return ref;
  }

  /** The bytes of `ref` decoded as UTF-8 (invalid sequences as U+FFFD, as the reader decoded them). */
  text(ref: number): string {
    if (!(ref >= 0 && ref < this.n) || !Number.isInteger(ref)) throw new RangeError(`ByteArena: no entry ${ref} (it has ${this.n}).`);
    const chunk = this.chunks[this.chunkOf[ref] as number] as Buffer;
    const offset = this.offsetOf[ref] as number;
    return chunk.toString('utf8', offset, offset + (this.lengthOf[ref] as number));
  }

  /**
   * Releases the slack of the entry tables and of the last chunk once nothing more will be put
   * (a `put` after it starts a new chunk).
   */
  trim(): void {
    // The last chunk is up to MAX_CHUNK_BYTES, most of it perhaps unused: keep a copy of what is used.
    const last = this.chunks.length - 1;
    const chunk = this.chunks[last];
    if (chunk !== undefined && this.used < chunk.length) {
      const exact = Buffer.allocUnsafeSlow(this.used);
      chunk.copy(exact, 0, 0, this.used);
      this.chunks[last] = exact;
      this.bytesHeld -= chunk.length - this.used;
    }
    this.chunkOf = this.chunkOf.slice(0, this.n);
    this.offsetOf = this.offsetOf.slice(0, this.n);
    this.lengthOf = this.lengthOf.slice(0, this.n);
  }

  private newChunk(atLeast: number): Buffer {
    const last = this.chunks[this.chunks.length - 1];
    const next = last === undefined ? FIRST_CHUNK_BYTES : Math.min(MAX_CHUNK_BYTES, last.length * 2);
    // A line longer than a chunk gets a chunk of exactly its size; the next chunk starts a fresh one.
    const chunk = Buffer.allocUnsafeSlow(Math.max(next, atLeast));
    this.chunks.push(chunk);
    this.used = 0;
    this.bytesHeld += chunk.length;
    return chunk;
  }

  private grow(): void {
    const size = Math.max(1024, this.chunkOf.length * 2);
    for (const key of ['chunkOf', 'offsetOf', 'lengthOf'] as const) {
      const next = new Uint32Array(size);
      next.set(this[key]);
      this[key] = next;
    }
  }

  /** The contents, to hand to another thread; the arena is not used after. */
  export(): ArenaPart {
    this.trim();
    return { chunks: this.chunks, used: this.used, chunkOf: this.chunkOf, offsetOf: this.offsetOf, lengthOf: this.lengthOf };
  }

  /**
   * Appends another arena's entries (its chunks, not copied): its ref r becomes the returned base
   * + r. The next `put` starts a chunk of its own unless it fits in the last one taken.
   */
  adopt(part: ArenaPart): number {
    const base = this.n;
    const m = part.lengthOf.length;
    if (m === 0) return base;
    while (this.n + m > this.chunkOf.length) this.grow();
    const chunkBase = this.chunks.length;
    for (const c of part.chunks) {
      // A Buffer comes back from another thread as a plain Uint8Array over the same memory.
      this.chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c.buffer, c.byteOffset, c.byteLength));
      this.bytesHeld += c.byteLength;
    }
    for (let i = 0; i < m; i++) this.chunkOf[base + i] = chunkBase + (part.chunkOf[i] as number);
    this.offsetOf.set(part.offsetOf, base);
    this.lengthOf.set(part.lengthOf, base);
    this.n += m;
    if (part.chunks.length > 0) this.used = part.used;
    return base;
  }
}
