/**
 * The parts of the zstd frame format the reader checks itself before fzstd sees a
 * frame: where frames start, how long their headers and blocks are, and how much memory they ask
 * for. fzstd allocates a frame's whole window up front and trusts every size it reads, so a hostile
 * header must be refused here.
 */

const ZSTD_MAGIC = 0xfd2fb528;
/** Skippable frames have the magic numbers 0x184D2A50 to 0x184D2A5F. */
const SKIPPABLE_MAGIC = 0x184d2a50;

/**
 * The largest window a frame may ask for: the reference decoder's default limit (window log 27),
 * so every frame the zstd CLI decodes without extra flags is read, and no header makes the reader
 * allocate more than this for one frame.
 */
export const MAX_WINDOW_BYTES = 128 * 1024 * 1024;

/** No block holds more than this, compressed or not (the zstd format caps blocks there). */
export const MAX_BLOCK_BYTES = 128 * 1024;

export interface ZstdFrameHeader {
  kind: 'zstd';
  /** Header bytes, magic included. */
  length: number;
  window: number;
  /** The decompressed size the header declares, or null when it does not say. */
  contentSize: number | null;
  /** Whether 4 checksum bytes follow the last block. */
  checksum: boolean;
}

export interface SkippableFrameHeader {
  kind: 'skippable';
  length: 8;
  /** Bytes of data after the 8-byte header. */
  size: number;
}

/** A parsed header, the bytes needed before it can be parsed, or why these bytes are no frame. */
export type HeaderParse = ZstdFrameHeader | SkippableFrameHeader | { need: number } | { error: string };

export interface BlockHeader {
  last: boolean;
  /** 0 raw, 1 RLE, 2 compressed (3 is reserved and refused). */
  type: number;
  /** Decompressed size for raw and RLE blocks, compressed size for compressed ones. */
  size: number;
  /** Bytes of the block after its 3-byte header. */
  body: number;
}

const DICT_ID_BYTES = [0, 1, 2, 4] as const;

/** Reads a frame header at `buf[at]`, with `avail` bytes there. */
export function parseFrameHeader(buf: Uint8Array, at: number, avail: number): HeaderParse {
  if (avail < 4) return { need: 4 };
  const magic = readU32(buf, at);
  if ((magic & 0xfffffff0) >>> 0 === SKIPPABLE_MAGIC) {
    if (avail < 8) return { need: 8 };
    return { kind: 'skippable', length: 8, size: readU32(buf, at + 4) };
  }
  if (magic !== ZSTD_MAGIC) return { error: 'no zstd frame starts there' };
  if (avail < 5) return { need: 5 };
  const fhd = buf[at + 4] as number;
  const fcsFlag = fhd >> 6;
  const singleSegment = (fhd >> 5) & 1;
  const dictBytes = DICT_ID_BYTES[fhd & 3] as number;
  const fcsBytes = fcsFlag === 0 ? singleSegment : 1 << fcsFlag;
  const length = 5 + (singleSegment ? 0 : 1) + dictBytes + fcsBytes;
  if (avail < length) return { need: length };
  if (fhd & 8) return { error: 'its header sets a reserved bit' };
  let p = at + 5 + (singleSegment ? 0 : 1);
  const dictId = readLE(buf, p, dictBytes);
  // fzstd has no dictionaries: such a frame would decode to garbage.
  if (dictId !== 0) return { error: `it needs zstd dictionary ${dictId}, which this reader does not have` };
  p += dictBytes;
  let contentSize: number | null = null;
  if (fcsBytes === 2) contentSize = readLE(buf, p, 2) + 256;
  else if (fcsBytes > 0) contentSize = readLE(buf, p, fcsBytes);
  let window: number;
  if (singleSegment) {
    window = contentSize ?? 0;
  } else {
    const wd = buf[at + 5] as number;
    const base = 2 ** (10 + (wd >> 3));
    window = base + (base / 8) * (wd & 7);
  }
  if (window > MAX_WINDOW_BYTES) {
    return { error: `its header asks for a ${mib(window)} MiB window, over the reader's limit of ${mib(MAX_WINDOW_BYTES)} MiB` };
  }
  return { kind: 'zstd', length, window, contentSize, checksum: ((fhd >> 2) & 1) === 1 };
}

/** Reads a block header at `buf[at]` (3 bytes); an error when the block cannot be in a frame with `window`. */
export function parseBlockHeader(buf: Uint8Array, at: number, window: number): BlockHeader | { error: string } {
  const v = (buf[at] as number) | ((buf[at + 1] as number) << 8) | ((buf[at + 2] as number) << 16);
  const type = (v >> 1) & 3;
  const size = v >>> 3;
  if (type === 3) return { error: 'a block has the reserved block type' };
  const max = Math.min(window, MAX_BLOCK_BYTES);
  if (size > max) return { error: `a block declares ${size} bytes, over the ${max} its frame allows` };
  return { last: (v & 1) === 1, type, size, body: type === 1 ? 1 : size };
}

/**
 * The index of the first place at or after `from` in `buf[from, end)` where a zstd or skippable
 * frame's magic number is, or -1. Chance bytes inside compressed data can match: a caller must
 * decode from there before trusting it.
 */
export function findFrameStart(buf: Buffer, from: number, end: number): number {
  const view = buf.subarray(0, end);
  const z = view.indexOf(ZSTD_MAGIC_BYTES, from);
  for (let t = view.indexOf(SKIPPABLE_TAIL, from + 1); t !== -1 && (z === -1 || t - 1 < z); t = view.indexOf(SKIPPABLE_TAIL, t + 1)) {
    if (((view[t - 1] as number) & 0xf0) === 0x50) return t - 1;
  }
  return z;
}

const ZSTD_MAGIC_BYTES = Buffer.from([0x28, 0xb5, 0x2f, 0xfd]);
/** Bytes 2–4 of a skippable magic number, little-endian; the first byte is 0x50 to 0x5F. */
const SKIPPABLE_TAIL = Buffer.from([0x2a, 0x4d, 0x18]);

function readU32(buf: Uint8Array, at: number): number {
  return ((buf[at] as number) | ((buf[at + 1] as number) << 8) | ((buf[at + 2] as number) << 16) | ((buf[at + 3] as number) << 24)) >>> 0;
}

/** A little-endian unsigned number of up to 8 bytes (beyond 2^53 it is only approximate, and far over any limit). */
function readLE(buf: Uint8Array, at: number, n: number): number {
  let v = 0;
  for (let i = n - 1; i >= 0; i--) v = v * 256 + (buf[at + i] as number);
  return v;
}

function mib(n: number): string {
  const v = n / (1024 * 1024);
  return v >= 10 ? String(Math.round(v)) : v.toFixed(1);
}
