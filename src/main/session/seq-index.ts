/**
 * A number per seq for the few seqs that have one (-1 for the others), in an Int32Array grown by
 * doubling: the compact log's heads say where a seq's head is without an object or a map entry.
 */
export class SeqIndex {
  private values = new Int32Array(1024).fill(-1);

  set(seq: number, value: number): void {
    if (seq >= this.values.length) {
      let n = this.values.length * 2;
      while (n <= seq) n *= 2;
      const next = new Int32Array(n).fill(-1);
      next.set(this.values);
      this.values = next;
    }
    this.values[seq] = value;
  }

  /** The value of seq, or -1 when it has none (or is outside what was set). */
  get(seq: number): number {
    return seq >= 0 && seq < this.values.length ? (this.values[seq] as number) : -1;
  }

  /** Drops the spare room once no seq at or past `length` will be set. */
  trim(length: number): void {
    if (this.values.length > length) this.values = this.values.slice(0, length);
  }

  /** The values of seqs [0, length), to hand to another thread (a copy of its own buffer). */
  export(length: number): Int32Array {
    const out = new Int32Array(length).fill(-1);
    out.set(this.values.subarray(0, Math.min(length, this.values.length)));
    return out;
  }

  /** Takes another log's values: its seq s becomes `seqBase + s`, its value v becomes `valueBase + v`. */
  adopt(part: Int32Array, seqBase: number, valueBase: number): void {
    for (let s = part.length - 1; s >= 0; s--) {
      const v = part[s] as number;
      if (v >= 0) this.set(seqBase + s, valueBase + v);
    }
  }
}
