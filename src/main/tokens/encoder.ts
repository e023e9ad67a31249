import type { EncodingName } from '../../shared/tokens/encoding';

/**
 * Token counting with js-tiktoken, safe on untrusted text.
 *
 * js-tiktoken splits text with the encoding's regex into pieces and runs byte-pair merging on each
 * piece; its merge is quadratic (worse, with a string join per pair) in the piece's length, and a
 * run without whitespace or punctuation — a long word, base64 without '+' '/', a line of CJK text —
 * is a single piece: 64 KB of letters takes about 250 s (docs/tokens.md). This encoder does the
 * split itself (the same regex, so the same pieces), and:
 *
 * 1. bounds the pieces: a piece longer than `maxPieceBytes` UTF-8 bytes is cut into chunks of at
 *    most that many bytes (never inside a surrogate pair), each merged on its own. The count can
 *    only differ where a real token would have spanned a cut; the error measured on real sessions
 *    is in docs/tokens.md;
 * 2. caps the work on pathological runs: after `maxLongChunks` chunks of over-long pieces in one
 *    text, the remaining chunks are estimated at the tokens-per-byte of the chunks counted so far,
 *    and reported as `estimated`;
 * 3. memoises pieces (natural text repeats its pieces): each distinct piece is merged once, by
 *    js-tiktoken's own `encode`, and its count reused.
 *
 * Counts of normal text are identical to js-tiktoken's (tested against `encode` itself).
 */
export interface CountStats {
  /** Regex pieces seen. */
  pieces: number;
  /** Pieces longer than the bound, cut into chunks. */
  longPieces: number;
  /** Chunks those pieces were cut into. */
  chunks: number;
  /** Chunks estimated instead of merged (past the work cap). */
  estimatedChunks: number;
  /** Calls into js-tiktoken (memo misses). */
  merges: number;
  /** The longest text, in UTF-8 bytes, ever handed to the byte-pair merge. */
  maxMergeBytes: number;
  /** Tokens estimated instead of counted. */
  estimatedTokens: number;
}

export const newStats = (): CountStats => ({
  pieces: 0,
  longPieces: 0,
  chunks: 0,
  estimatedChunks: 0,
  merges: 0,
  maxMergeBytes: 0,
  estimatedTokens: 0,
});

export function addStats(into: CountStats, from: CountStats): void {
  into.pieces += from.pieces;
  into.longPieces += from.longPieces;
  into.chunks += from.chunks;
  into.estimatedChunks += from.estimatedChunks;
  into.merges += from.merges;
  into.maxMergeBytes = Math.max(into.maxMergeBytes, from.maxMergeBytes);
  into.estimatedTokens += from.estimatedTokens;
}

export interface Encoder {
  readonly encoding: EncodingName;
  /** What counts: the library and the bounds, shown with every figure. */
  readonly implementation: string;
  /** Tokens of `text`; `stats` (when given) accumulates the work done and what was estimated. */
  count(text: string, stats?: CountStats): number;
}

export interface EncoderOptions {
  /** Pieces longer than this (UTF-8 bytes) are cut. Default 128. */
  readonly maxPieceBytes?: number;
  /** Chunks of over-long pieces merged per text before the rest is estimated. Default 64. */
  readonly maxLongChunks?: number;
  /** Distinct pieces remembered (the memo is cleared when full). Default 131,072. */
  readonly memoEntries?: number;
}

export const DEFAULT_MAX_PIECE_BYTES = 128;
export const DEFAULT_MAX_LONG_CHUNKS = 64;
const DEFAULT_MEMO = 1 << 17;
/** Tokens per byte assumed for an over-long run when nothing of it could be counted (letters: ≈0.52/char measured). */
const FALLBACK_TOKENS_PER_BYTE = 0.4;

/** The subset of js-tiktoken's `Tiktoken` this encoder uses. */
export interface BpeEncoder {
  encode(text: string, allowedSpecial?: string[] | 'all', disallowedSpecial?: string[] | 'all'): number[];
}

import { utf8Length } from '../../shared/utf8';
import { RankBpe } from './rank-bpe';

export { utf8Length };

/** Cuts `piece` into chunks of at most `maxBytes` UTF-8 bytes, never inside a surrogate pair. */
export function cutPiece(piece: string, maxBytes: number): string[] {
  const out: string[] = [];
  let start = 0;
  let bytes = 0;
  for (let i = 0; i < piece.length; i++) {
    const c = piece.charCodeAt(i);
    let w: number;
    let units = 1;
    if (c < 0x80) w = 1;
    else if (c < 0x800) w = 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < piece.length && (piece.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      w = 4;
      units = 2;
    } else w = 3;
    if (bytes + w > maxBytes && i > start) {
      out.push(piece.slice(start, i));
      start = i;
      bytes = 0;
    }
    bytes += w;
    i += units - 1;
  }
  if (start < piece.length) out.push(piece.slice(start));
  return out;
}

export class BoundedEncoder implements Encoder {
  readonly implementation: string;
  private readonly memo = new Map<string, number>();
  private readonly pattern: RegExp;
  private readonly maxPieceBytes: number;
  private readonly maxLongChunks: number;
  private readonly memoEntries: number;

  constructor(
    readonly encoding: EncodingName,
    private readonly bpe: BpeEncoder,
    patStr: string,
    options: EncoderOptions = {},
  ) {
    this.pattern = new RegExp(patStr, 'gu');
    this.maxPieceBytes = Math.max(8, options.maxPieceBytes ?? DEFAULT_MAX_PIECE_BYTES);
    this.maxLongChunks = Math.max(0, options.maxLongChunks ?? DEFAULT_MAX_LONG_CHUNKS);
    this.memoEntries = Math.max(1024, options.memoEntries ?? DEFAULT_MEMO);
    const cap = Number.isFinite(this.maxLongChunks) ? `, ${this.maxLongChunks} long chunks per text` : '';
    this.implementation = `js-tiktoken ${encoding}, pieces ≤ ${this.maxPieceBytes} bytes${cap}`;
  }

  /** Tokens of one bounded piece, through the memo. */
  private merge(piece: string, stats: CountStats | undefined): number {
    let n = this.memo.get(piece);
    if (n !== undefined) return n;
    // Special-token strings in session text are text: count them as the provider does, never throw.
    n = this.bpe.encode(piece, [], []).length;
    if (this.memo.size >= this.memoEntries) this.memo.clear();
    this.memo.set(piece, n);
    if (stats) {
      stats.merges++;
      const b = utf8Length(piece);
      if (b > stats.maxMergeBytes) stats.maxMergeBytes = b;
    }
    return n;
  }

  count(text: string, stats?: CountStats): number {
    const re = this.pattern;
    re.lastIndex = 0;
    let tokens = 0;
    let longChunks = 0;
    let longTokens = 0;
    let longBytes = 0;
    let m: RegExpExecArray | null;
    while ((m = re.exec(text)) !== null) {
      const piece = m[0];
      if (stats) stats.pieces++;
      // A piece of n UTF-16 units has at most 3n UTF-8 bytes: only long pieces need measuring.
      if (piece.length * 3 <= this.maxPieceBytes || utf8Length(piece) <= this.maxPieceBytes) {
        tokens += this.merge(piece, stats);
        continue;
      }
      const chunks = cutPiece(piece, this.maxPieceBytes);
      if (stats) {
        stats.longPieces++;
        stats.chunks += chunks.length;
      }
      for (const chunk of chunks) {
        const known = this.memo.get(chunk);
        if (known !== undefined) {
          tokens += known;
          continue;
        }
        if (longChunks < this.maxLongChunks) {
          const n = this.merge(chunk, stats);
          longChunks++;
          longTokens += n;
          longBytes += utf8Length(chunk);
          tokens += n;
        } else {
          const perByte = longBytes > 0 ? longTokens / longBytes : FALLBACK_TOKENS_PER_BYTE;
          const est = Math.max(1, Math.round(utf8Length(chunk) * perByte));
          tokens += est;
          if (stats) {
            stats.estimatedChunks++;
            stats.estimatedTokens += est;
          }
        }
      }
    }
    return tokens;
  }
}

interface RanksModule {
  readonly default: { readonly pat_str: string; readonly special_tokens: Record<string, number>; readonly bpe_ranks: string };
}

/** Rank files are large (1–2 MB of text each): loaded on first use, once per thread. */
const RANKS: Record<EncodingName, () => Promise<RanksModule>> = {
  o200k_base: () => import('js-tiktoken/ranks/o200k_base'),
  cl100k_base: () => import('js-tiktoken/ranks/cl100k_base'),
};

const loaded = new Map<string, Promise<{ bpe: BpeEncoder; patStr: string }>>();

/** js-tiktoken's own encoder for an encoding: the reference the lean one is tested and benched against, never counted with. @public */
export function loadTiktoken(encoding: EncodingName): Promise<{ bpe: BpeEncoder; patStr: string }> {
  let p = loaded.get(encoding);
  if (!p) {
    p = (async () => {
      const [{ Tiktoken }, ranks] = await Promise.all([import('js-tiktoken/lite'), RANKS[encoding]()]);
      return { bpe: new Tiktoken(ranks.default), patStr: ranks.default.pat_str };
    })();
    loaded.set(encoding, p);
  }
  return p;
}

const lean = new Map<EncodingName, Promise<RankBpe>>();

/** The ranks of `encoding` in the lean form counting uses (rank-bpe.ts), built once per thread. */
function loadRankBpe(encoding: EncodingName): Promise<RankBpe> {
  let p = lean.get(encoding);
  if (!p) {
    p = RANKS[encoding]().then((ranks) => RankBpe.fromFile(ranks.default));
    lean.set(encoding, p);
  }
  return p;
}

/** A bounded, memoising encoder for `encoding`, on the lean ranks (the same token ids as js-tiktoken's encoder). */
export async function loadEncoder(encoding: EncodingName, options: EncoderOptions = {}): Promise<BoundedEncoder> {
  const bpe = await loadRankBpe(encoding);
  return new BoundedEncoder(encoding, bpe, bpe.patStr, options);
}
