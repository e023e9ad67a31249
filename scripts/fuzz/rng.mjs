// A seeded random stream for the fuzz run. Each mutant draws from its own stream, keyed by the run's
// seed and the mutant's number, so that one mutant can be made again (`--only`) without making the
// others first. SHA-256 in counter mode: Node's own hash, no hand-tuned generator to trust.
import { createHash } from 'node:crypto';

/** @param {...(string|number)} key */
export function rng(...key) {
  const prefix = key.join(':');
  let block = 0;
  let buf = Buffer.alloc(0);
  let pos = 0;
  const next32 = () => {
    if (pos + 4 > buf.length) {
      buf = createHash('sha256').update(`${prefix}:${block++}`).digest();
      pos = 0;
    }
    const v = buf.readUInt32LE(pos);
    pos += 4;
    return v;
  };
  const float = () => next32() / 2 ** 32;
  /** @param {number} n */
  const int = (n) => Math.floor(float() * n);
  return {
    float,
    int,
    /** @template T @param {readonly T[]} xs @returns {T} */
    pick: (xs) => xs[int(xs.length)],
    /** @param {number} p */
    chance: (p) => float() < p,
    /** Picks a key of `weights` with probability proportional to its value. @param {Record<string, number>} weights */
    weighted: (weights) => {
      const entries = Object.entries(weights);
      let r = float() * entries.reduce((s, [, w]) => s + w, 0);
      for (const [k, w] of entries) if ((r -= w) < 0) return k;
      return entries[entries.length - 1][0];
    },
  };
}
