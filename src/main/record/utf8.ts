import { isUtf8 } from 'node:buffer';

/*
 * UTF-8 validity of a body that arrives in pieces: a character may be split between two chunks,
 * so the last incomplete sequence of each chunk is held back (at most 3 bytes) and checked with
 * the next one. The bytes themselves are never held.
 */

/** How many bytes at the end of `b` start a character that is not complete yet (0–3). */
function incompleteTail(b: Uint8Array): number {
  const n = b.length;
  for (let i = n - 1; i >= Math.max(0, n - 4); i--) {
    const c = b[i] as number;
    if ((c & 0xc0) === 0x80) continue;
    if (c < 0xc0) return 0;
    const need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
    return n - i < need ? n - i : 0;
  }
  return 0;
}

export class Utf8Check {
  private ok = true;
  private carry: Buffer | null = null;

  push(chunk: Buffer): void {
    if (!this.ok || chunk.length === 0) return;
    let rest = chunk;
    if (this.carry) {
      // Complete the held-back character with the first bytes of this chunk (a few bytes copied).
      const lead = this.carry[0] as number;
      const need = (lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2) - this.carry.length;
      const joined = Buffer.concat([this.carry, rest.subarray(0, need)]);
      if (joined.length < this.carry.length + need) {
        this.carry = joined;
        return;
      }
      this.carry = null;
      if (!isUtf8(joined)) {
        this.ok = false;
        return;
      }
      rest = rest.subarray(need);
    }
    const tail = incompleteTail(rest);
    if (!isUtf8(rest.subarray(0, rest.length - tail))) {
      this.ok = false;
      return;
    }
    if (tail > 0) this.carry = Buffer.from(rest.subarray(rest.length - tail));
  }

  /** Whether every byte pushed was valid UTF-8 (a character cut at the end is not). */
  end(): boolean {
    if (this.carry) this.ok = false;
    return this.ok;
  }
}
