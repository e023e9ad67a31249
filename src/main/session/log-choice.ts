import { isZstdPath } from '../reader';
import { closeQuietly, IoFailure, openForReading, readInto } from '../reader/io';
import { PARALLEL_LOAD_MIN_BYTES } from './parallel-load';

/*
 * Which event log a load builds when its options do not say (docs/performance.md, "Which log a
 * load builds", has the figures). The array log keeps an object graph per event; on a session of many
 * small events the garbage collector's copying of those objects is most of a load, and one thread
 * does not reach 0.6x of the bare parse loop. The compact log keeps lines as bytes, which worker
 * threads can hand over, so such a file is read in byte ranges on several threads into it. When
 * lines are long, the array log already meets the target on one thread and the compact log only
 * costs: long texts stay objects that a worker must copy across, the arena holds what the strings
 * would, replay over it is slower, and on the 1 GB bench session its peak RSS passed the file's size.
 */

/** Files from this size on, plain, of short lines and with more than one thread to read them, are read in parallel into the compact log. */
export const COMPACT_LOG_MIN_BYTES = PARALLEL_LOAD_MIN_BYTES;
/** Lines longer than this on average are long: their file keeps the array log. */
export const LONG_LINE_BYTES = 1024;

const SAMPLES = 4;
const SAMPLE_BYTES = 256 * 1024;
const LF = 0x0a;

/**
 * The mean length of a line, in bytes, from SAMPLES reads spread over the file; null when it has
 * no line end in them or cannot be read.
 */
export async function meanLineBytes(path: string, size: number): Promise<number | null> {
  const fh = await openForReading(path);
  if (fh instanceof IoFailure) return null;
  try {
    const buf = Buffer.allocUnsafe(SAMPLE_BYTES);
    let bytes = 0;
    let lines = 0;
    for (let k = 0; k < SAMPLES; k++) {
      const n = await readInto(fh, path, buf, SAMPLE_BYTES, Math.floor((size * k) / SAMPLES));
      if (n instanceof IoFailure) return null;
      // From the first line end to the last, in what this read filled: whole lines only.
      const sample = buf.subarray(0, n);
      const first = sample.indexOf(LF);
      const last = sample.lastIndexOf(LF);
      if (first < 0 || last <= first) continue;
      bytes += last - first;
      for (let i = sample.indexOf(LF, first + 1); i !== -1; i = sample.indexOf(LF, i + 1)) lines++;
    }
    return lines === 0 ? null : bytes / lines;
  } finally {
    await closeQuietly(fh);
  }
}

/** How a session at `path` is read when the options leave it to the loader. */
export interface LogPlan {
  /** Build the compact log (else the array log). */
  readonly compact: boolean;
  /** Why, in a few words (what the tests check the choice by). */
  readonly reason: string;
}

/** The log a load builds by default for a path of this kind and size, read with `threads` threads. */
export async function defaultLogPlan(path: string, isDirectory: boolean, size: number, threads: number): Promise<LogPlan> {
  if (isDirectory || isZstdPath(path)) return { compact: false, reason: 'not one plain file' };
  if (size < COMPACT_LOG_MIN_BYTES) return { compact: false, reason: 'small' };
  if (threads < 2) return { compact: false, reason: 'one thread' };
  const mean = await meanLineBytes(path, size);
  if (mean === null) return { compact: false, reason: 'no line measured' };
  if (mean > LONG_LINE_BYTES) return { compact: false, reason: 'long lines' };
  return { compact: true, reason: 'large, short lines' };
}
