/**
 * Byte-pair encoding over js-tiktoken's rank files, with the ranks kept lean.
 *
 * js-tiktoken's `Tiktoken` constructor builds, for an encoding of 200,000 tokens, an object of all
 * of them, a map keyed by each token's bytes written as decimal numbers joined by commas, and a
 * `Uint8Array` per token for decoding: about 1 s and 140 MB for o200k_base, in every thread that
 * counts. Counting needs only the ranks. Here each token's bytes are one string of char codes
 * 0–255 (a "binary" string), decoded straight from the rank file's base64, and the map from those
 * strings to ranks is the only structure: a quarter of the time, under half the memory
 * (docs/performance.md).
 *
 * The merge is js-tiktoken's: split the text with the encoding's regex, look each piece up whole,
 * else merge the adjacent pair of lowest rank (the leftmost on a tie) until none has a rank. It
 * returns the same token ids (tested against js-tiktoken on the same texts). Special tokens are
 * text, as `encode(text, [], [])` treats them.
 */
export interface RankFile {
  readonly pat_str: string;
  readonly bpe_ranks: string;
}

const B64 = new Int8Array(128).fill(-1);
{
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  for (let i = 0; i < alphabet.length; i++) B64[alphabet.charCodeAt(i)] = i;
}

const SPACE = 32;
const PAD = 61;

/**
 * The ranks of a rank file: lines of `<prefix> <first rank> <base64 token> <base64 token> …`, each
 * line's tokens ranked one after the other from the first rank.
 */
export function parseRanks(bpeRanks: string): Map<string, number> {
  const ranks = new Map<string, number>();
  const end = bpeRanks.length;
  let pos = 0;
  while (pos < end) {
    let nl = bpeRanks.indexOf('\n', pos);
    if (nl < 0) nl = end;
    const a = bpeRanks.indexOf(' ', pos);
    if (a < 0 || a >= nl) {
      pos = nl + 1;
      continue;
    }
    let b = bpeRanks.indexOf(' ', a + 1);
    if (b < 0 || b > nl) b = nl;
    let rank = Number.parseInt(bpeRanks.slice(a + 1, b), 10);
    let i = b + 1;
    while (i < nl) {
      const bytes: number[] = [];
      let acc = 0;
      let bits = 0;
      for (; i < nl; i++) {
        const c = bpeRanks.charCodeAt(i);
        if (c === SPACE) break;
        if (c === PAD) continue;
        acc = ((acc << 6) | (B64[c] ?? 0)) & 0xffffff;
        bits += 6;
        if (bits >= 8) {
          bits -= 8;
          bytes.push((acc >> bits) & 0xff);
        }
      }
      i++;
      if (bytes.length > 0) ranks.set(String.fromCharCode(...bytes), rank);
      rank++;
    }
    pos = nl + 1;
  }
  return ranks;
}

/** The UTF-8 bytes of `text` as a binary string (one char code 0–255 per byte). */
export function utf8Binary(text: string): string {
  let ascii = true;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) >= 0x80) {
      ascii = false;
      break;
    }
  }
  // ASCII is its own UTF-8: most pieces of code and English need no conversion.
  return ascii ? text : Buffer.from(text, 'utf8').toString('latin1');
}

/** Implements the encoder's `BpeEncoder`. */
export class RankBpe {
  private readonly pattern: RegExp;

  constructor(
    private readonly ranks: ReadonlyMap<string, number>,
    readonly patStr: string,
  ) {
    this.pattern = new RegExp(patStr, 'gu');
  }

  static fromFile(file: RankFile): RankBpe {
    return new RankBpe(parseRanks(file.bpe_ranks), file.pat_str);
  }

  /** The token ids of `text`, special-token strings counted as text (the arguments are accepted for the interface and not used). */
  encode(text: string): number[] {
    const out: number[] = [];
    const re = this.pattern;
    re.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = re.exec(text)) !== null) this.encodePiece(utf8Binary(m[0]), out);
    return out;
  }

  private encodePiece(piece: string, out: number[]): void {
    const whole = this.ranks.get(piece);
    if (whole !== undefined) {
      out.push(whole);
      return;
    }
    const n = piece.length;
    // starts[k] is where part k begins; parts end where the next begins. pairRank[k]: the rank of part k joined with part k+1.
    const starts: number[] = [];
    for (let i = 0; i <= n; i++) starts.push(i);
    const pairRank: number[] = [];
    for (let k = 0; k + 1 < n; k++) pairRank.push(this.rankOf(piece, k, k + 2));
    while (starts.length > 2) {
      let best = Infinity;
      let at = -1;
      for (let k = 0; k < pairRank.length; k++) {
        const r = pairRank[k] as number;
        if (r < best) {
          best = r;
          at = k;
        }
      }
      if (at < 0) break;
      starts.splice(at + 1, 1);
      pairRank.splice(at, 1);
      // Part `at` grew: its pairs with the part before and the part after have new ranks.
      if (at > 0) pairRank[at - 1] = this.rankOf(piece, starts[at - 1] as number, starts[at + 1] as number);
      if (at < pairRank.length) pairRank[at] = this.rankOf(piece, starts[at] as number, starts[at + 2] as number);
    }
    for (let k = 0; k + 1 < starts.length; k++) {
      const r = this.ranks.get(piece.slice(starts[k] as number, starts[k + 1] as number));
      if (r !== undefined) out.push(r);
    }
  }

  private rankOf(piece: string, from: number, to: number): number {
    return this.ranks.get(piece.slice(from, to)) ?? Infinity;
  }
}
