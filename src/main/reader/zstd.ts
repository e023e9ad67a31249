import { Decompress } from 'fzstd';
import { findFrameStart, parseBlockHeader, parseFrameHeader } from './zstd-frame';

/** DeepSeek Harness writes `session.jsonl.zstd`; `.zst` is the zstd CLI's own suffix. */
export function isZstdPath(path: string): boolean {
  return /\.zstd?$/i.test(path);
}

/** A stretch of compressed bytes that could not be decoded: the decompressed text has a hole here. */
export interface ZstdGap {
  /** Byte offset in the compressed file where the bad stretch starts (a bad frame's first byte). */
  offset: number;
  /** Byte offset of the next good frame, where decoding went on; null when none was found. */
  resumedAt: number | null;
  /** Why the frame at `offset` could not be decoded. */
  reason: string;
  /** Decompressed bytes the bad frame declared and did not deliver, when its header said. */
  lostBytes: number | null;
}

/** Decompressed bytes and gaps, in the order they occur in the decompressed text. */
export type ZstdPart = Uint8Array | ZstdGap;

export interface ZstdOutput {
  parts: ZstdPart[];
}

/**
 * Output of a frame found by scanning after a bad stretch is held back until the frame ends or this
 * much of it decoded: the magic number can occur by chance inside compressed data, and bytes that
 * only look like a frame must not reach the text.
 */
const PROBATION_BYTES = 1024 * 1024;
/**
 * Bytes re-read after false frame starts may reach this plus RETRY_PER_BYTE times the input so far;
 * then the search stops. A file planted with magic numbers cannot make the scan quadratic.
 */
const RETRY_SLACK = 16 * 1024 * 1024;
const RETRY_PER_BYTE = 4;

type State = 'frame' | 'block' | 'body' | 'checksum' | 'skip' | 'scan' | 'done';

interface Frame {
  start: number;
  window: number;
  contentSize: number | null;
  checksum: boolean;
  decoder: Decompress;
  decoded: number;
  last: boolean;
  /** Where the current block starts. */
  block: number;
  /** Bytes from here on are kept: a scan after a failure starts at the block before the failing one. */
  keep: number;
}

/**
 * Decompresses a zstd file given in chunks, frame by frame, with failures as values. DeepSeek
 * Harness appends one frame per batch, so one bad frame must not cost the frames after it: frame
 * and block headers are checked here (fzstd trusts their sizes), each frame gets a fresh fzstd
 * decompressor, and after a bad frame the bytes are scanned for the next zstd or skippable frame
 * magic number. A frame found that way is on probation (see PROBATION_BYTES); when it fails to
 * decode, the scan goes on after its first byte. Each bad stretch becomes one ZstdGap.
 *
 * fzstd does not verify frame checksums: corruption inside a block may decode to garbage, which the
 * line reader then reports as bad lines. A declared content size is checked against the output.
 *
 * Pushed chunks are copied: the caller may reuse its buffer.
 */
export class ZstdStream {
  private buf: Buffer = Buffer.alloc(0);
  /** File offset of buf[0]; buf[0, len) holds the bytes still needed. */
  private base = 0;
  private len = 0;
  /** File offset of the next byte to parse. */
  private pos = 0;
  private state: State = 'frame';
  /** Bytes left in the current block body, checksum or skippable frame. */
  private left = 0;
  /** Where the current frame or skippable frame starts. */
  private start = 0;
  private frame: Frame | null = null;
  private parts: ZstdPart[] = [];
  /** The bad stretch being passed over, until decoding goes on. */
  private gap: ZstdGap | null = null;
  private scanFrom = 0;
  /** Start of a frame found by scanning whose output is held back; -1 when none. */
  private candidate = -1;
  private held: Uint8Array[] = [];
  private heldBytes = 0;
  private retried = 0;
  private pushed = 0;

  /** Whether nothing after this point will be decoded (the search for a frame gave up). */
  get done(): boolean {
    return this.state === 'done';
  }

  push(chunk: Uint8Array): ZstdOutput {
    if (this.state === 'done') return { parts: [] };
    this.append(chunk);
    this.pushed += chunk.length;
    return this.run(false);
  }

  /** Tells the stream the input is over, which is how a cut-short last frame is detected. */
  end(): ZstdOutput {
    return this.run(true);
  }

  private run(final: boolean): ZstdOutput {
    while (this.state !== 'done' && this.step(final));
    const parts = this.parts;
    this.parts = [];
    return { parts };
  }

  /** One move of the parser; false when it needs more input (or is done). */
  private step(final: boolean): boolean {
    const avail = this.base + this.len - this.pos;
    switch (this.state) {
      case 'frame':
        return this.frameStart(avail, final);
      case 'block': {
        const f = this.frame as Frame;
        if (avail < 3) return this.short(final);
        const b = parseBlockHeader(this.buf, this.pos - this.base, f.window);
        if ('error' in b) return this.fail(b.error);
        f.keep = f.block;
        f.block = this.pos;
        f.last = b.last;
        if (!this.feed(3)) return true;
        this.left = b.body;
        this.state = 'body';
        return true;
      }
      case 'body':
      case 'checksum': {
        const n = Math.min(this.left, avail);
        if (n > 0 && !this.feed(n)) return true;
        this.left -= n;
        if (this.left > 0) return this.short(final);
        const f = this.frame as Frame;
        if (this.state === 'body' && !f.last) {
          this.state = 'block';
          this.probationOver();
        } else if (this.state === 'body' && f.checksum) {
          this.left = 4;
          this.state = 'checksum';
        } else {
          this.frameEnd();
        }
        return true;
      }
      case 'skip': {
        const n = Math.min(this.left, avail);
        this.pos += n;
        this.left -= n;
        if (this.left > 0) return this.short(final);
        this.state = 'frame';
        this.probationOver();
        return true;
      }
      case 'scan': {
        const at = findFrameStart(this.buf, this.scanFrom - this.base, this.len);
        if (at === -1) {
          if (final) return this.closeGap(null);
          // A magic number may begin in the last 3 bytes and end in the next chunk.
          this.scanFrom = Math.max(this.scanFrom, this.base + this.len - 3);
          return false;
        }
        this.candidate = this.base + at;
        this.pos = this.candidate;
        this.state = 'frame';
        return true;
      }
      case 'done':
        return false;
    }
  }

  private frameStart(avail: number, final: boolean): boolean {
    this.start = this.pos;
    if (avail === 0) {
      if (!final) return false;
      // Only skippable frames followed the one found by scanning: nothing to doubt.
      if (this.candidate >= 0) this.accept();
      this.state = 'done';
      return false;
    }
    const h = parseFrameHeader(this.buf, this.pos - this.base, avail);
    if ('need' in h) return final ? this.fail('the file ends inside a frame header') : false;
    if ('error' in h) return this.fail(h.error);
    if (h.kind === 'skippable') {
      // A false start could otherwise swallow up to 4 GiB; real skippable frames are small.
      if (this.candidate >= 0 && h.size > PROBATION_BYTES) return this.fail('a skippable frame is too long');
      this.pos += 8;
      this.left = h.size;
      this.state = 'skip';
      return true;
    }
    this.frame = {
      start: this.pos,
      window: h.window,
      contentSize: h.contentSize,
      checksum: h.checksum,
      decoder: new Decompress((data) => this.output(data)),
      decoded: 0,
      last: false,
      block: this.pos,
      keep: this.pos,
    };
    if (!this.feed(h.length)) return true;
    this.state = 'block';
    return true;
  }

  /** Hands the next `n` bytes of the current frame to its decompressor; false when it failed. */
  private feed(n: number): boolean {
    const f = this.frame as Frame;
    const at = this.pos - this.base;
    try {
      // A copy: fzstd keeps references to input it has not used yet, and buf is reused.
      f.decoder.push(new Uint8Array(this.buf.subarray(at, at + n)), false);
    } catch (e) {
      // Corrupt input can also surface as a RangeError or TypeError from inside fzstd.
      this.fail(e instanceof Error ? e.message : String(e));
      return false;
    }
    this.pos += n;
    return true;
  }

  private output(data: Uint8Array): void {
    if (data.length === 0) return;
    (this.frame as Frame).decoded += data.length;
    if (this.candidate < 0) {
      this.parts.push(data);
      return;
    }
    this.held.push(data);
    this.heldBytes += data.length;
  }

  private frameEnd(): void {
    const f = this.frame as Frame;
    try {
      // Makes fzstd decode what it still holds (it waits for more input below 18 bytes).
      f.decoder.push(new Uint8Array(0), true);
    } catch (e) {
      this.fail(e instanceof Error ? e.message : String(e));
      return;
    }
    if (f.contentSize !== null && f.decoded !== f.contentSize) {
      const why = `it decoded to ${f.decoded} bytes, not the ${f.contentSize} its header declares`;
      if (this.candidate >= 0) {
        this.fail(why);
        return;
      }
      // The frame's extent is known, so decoding goes on right after it.
      this.parts.push({
        offset: f.start,
        resumedAt: this.pos,
        reason: why,
        lostBytes: f.contentSize > f.decoded ? f.contentSize - f.decoded : null,
      });
    }
    this.frame = null;
    this.state = 'frame';
    if (this.candidate >= 0) this.accept();
  }

  /** Input ran out inside a frame: wait for more, or at the end of the file it was cut short. */
  private short(final: boolean): boolean {
    return final ? this.fail('the file ends inside this frame') : false;
  }

  /** The frame or bytes at `start` cannot be decoded: record why and scan for the next frame. */
  private fail(reason: string): boolean {
    const f = this.frame;
    this.frame = null;
    if (this.candidate >= 0) {
      // The frame found by scanning was chance bytes: drop its output and scan on after its first byte.
      this.retried += this.pos - this.candidate + 1;
      this.scanFrom = this.candidate + 1;
      this.candidate = -1;
      this.held = [];
      this.heldBytes = 0;
      if (this.retried > RETRY_SLACK + RETRY_PER_BYTE * this.pushed) {
        if (this.gap) this.gap.reason += '; the search for the next frame met too many false starts and stopped';
        return this.closeGap(null);
      }
      this.state = 'scan';
      return true;
    }
    const start = f?.start ?? this.start;
    const lost = f?.contentSize != null ? Math.max(0, f.contentSize - f.decoded) : null;
    this.gap = { offset: start, resumedAt: null, reason, lostBytes: lost };
    // The blocks before the previous one decoded well; a corrupt size field of the previous block
    // may have carried the walk past the real end of the frame, so the scan starts there.
    this.scanFrom = Math.max(start + 1, f?.keep ?? 0);
    this.state = 'scan';
    return true;
  }

  /** Ends the gap under way with decoding going on at `resumedAt` (null: nowhere, the reading is done). */
  private closeGap(resumedAt: number | null): boolean {
    if (this.gap) this.parts.push({ ...this.gap, resumedAt });
    this.gap = null;
    if (resumedAt === null) this.state = 'done';
    return resumedAt !== null;
  }

  /** The frame found by scanning is real: its held output follows the gap. */
  private accept(): void {
    const at = this.candidate;
    this.candidate = -1;
    this.closeGap(at);
    for (const b of this.held) this.parts.push(b);
    this.held = [];
    this.heldBytes = 0;
  }

  /** A frame found by scanning that has decoded this much is no accident. */
  private probationOver(): void {
    if (this.candidate >= 0 && (this.heldBytes >= PROBATION_BYTES || this.pos - this.candidate >= PROBATION_BYTES)) this.accept();
  }

  /** Adds a chunk after the bytes still needed, dropping those before them. */
  private append(chunk: Uint8Array): void {
    let keep = this.state === 'scan' ? this.scanFrom : this.pos;
    if (this.frame) keep = Math.min(keep, this.frame.keep);
    if (this.candidate >= 0) keep = Math.min(keep, this.candidate);
    const drop = Math.max(0, Math.min(keep - this.base, this.len));
    const kept = this.len - drop;
    const need = kept + chunk.length;
    if (need > this.buf.length) {
      const next = Buffer.allocUnsafe(Math.max(need, this.buf.length * 2, 64 * 1024));
      this.buf.copy(next, 0, drop, this.len);
      this.buf = next;
    } else if (drop > 0) {
      this.buf.copyWithin(0, drop, this.len);
    }
    this.buf.set(chunk, kept);
    this.base += drop;
    this.len = need;
  }
}
