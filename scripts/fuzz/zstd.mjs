// zstd for the fuzz run. Reading uses fzstd (the importer's own decompressor); writing makes frames of
// raw (stored) blocks, which the format allows and which need no compressor: a mutated DeepSeek
// Harness log is then a valid zstd stream, so the mutation reaches the importer, not only the
// decompressor. Several frames, as the harness writes one frame per append batch.
import { decompress } from 'fzstd';

const MAGIC = [0x28, 0xb5, 0x2f, 0xfd];
// Frame header descriptor 0 (no content size, no checksum, no dictionary), then a window descriptor
// of 2^17 bytes: the largest block a frame may hold is min(window, 128 KiB).
const HEADER = [0x00, 0x38];
const BLOCK = 128 * 1024;

/** @param {Uint8Array} data */
function frame(data) {
  const parts = [Buffer.from([...MAGIC, ...HEADER])];
  let o = 0;
  do {
    const n = Math.min(BLOCK, data.length - o);
    const last = o + n >= data.length ? 1 : 0;
    const h = (n << 3) | last; // block type 0: raw
    parts.push(Buffer.from([h & 0xff, (h >> 8) & 0xff, (h >> 16) & 0xff]), Buffer.from(data.subarray(o, o + n)));
    o += n;
  } while (o < data.length);
  return Buffer.concat(parts);
}

/**
 * `data` as `frames` zstd frames of raw blocks, cut at line ends where it can.
 * @param {Buffer} data @param {number} frames
 */
export function rawFrames(data, frames = 1) {
  const cuts = [0];
  for (let k = 1; k < frames; k++) {
    const nl = data.indexOf(0x0a, Math.floor((data.length * k) / frames));
    if (nl >= 0 && nl + 1 > cuts[cuts.length - 1]) cuts.push(nl + 1);
  }
  cuts.push(data.length);
  const out = [];
  for (let k = 0; k + 1 < cuts.length; k++) out.push(frame(data.subarray(cuts[k], cuts[k + 1])));
  return Buffer.concat(out);
}

/** The decompressed bytes, or null when `data` is not a readable zstd stream. @param {Buffer} data */
export function unzstd(data) {
  try {
    return Buffer.from(decompress(data));
  } catch {
    return null;
  }
}
