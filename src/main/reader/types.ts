import type { Diagnostic } from '../../shared/model/diagnostic';

/** One line of a JSONL source, parsed. `value` is always a JSON object (other values are diagnostics). */
export interface JsonLine {
  readonly value: Record<string, unknown>;
  /** 1-based line number in the (decompressed) file. */
  readonly line: number;
  /** Byte offset of the line's first byte in the (decompressed) file; with `length`, enough to re-read it. */
  readonly offset: number;
  /** Length of the line in bytes, without its line terminator. */
  readonly length: number;
  /**
   * The bytes `JSON.parse` read: `bytes[start, end)` (after a BOM and a CR were stripped). Set by
   * the reader, so that a log may keep a line's bytes instead of its parsed value without a copy
   * per line; the buffer is reused afterwards, so they are valid ONLY during the callback that
   * receives the line — copy them to keep them. Absent on lines made by other code (tests).
   */
  readonly bytes?: Buffer;
  readonly start?: number;
  readonly end?: number;
}

/**
 * Receives each object line as a method of an object: the reader's optimised code then calls a
 * method of a class, which lives as long as the program, not a closure made for one read (see
 * LineReceiver). A load passes one; other readers may pass a plain callback.
 */
export interface JsonLineReceiver {
  line(l: JsonLine): void;
}

/** What a reader hands each object line to. */
export type OnJsonLine = ((l: JsonLine) => void) | JsonLineReceiver;

export interface ReadStats {
  bytes: number;
  lines: number;
  /** Lines that became events' input (objects). */
  records: number;
  /** Lines skipped: blank, invalid JSON, not an object, too long. */
  skipped: number;
}

export interface ReaderOptions {
  /** Lines longer than this many bytes are reported and skipped, never buffered whole. */
  maxLineBytes?: number;
  /** Chunk size of reads; tests vary it to prove the result does not depend on it. */
  chunkBytes?: number;
  /** Called after each read with the bytes read from the file so far (compressed bytes for zstd). */
  onBytes?: (read: number) => void;
  /**
   * Read the next chunk while this one is split and parsed (the default). False: read, then parse,
   * one after the other, so that the bench can show what reading ahead is worth in the same run.
   */
  readAhead?: boolean;
}

export type DiagnosticSink = (d: Diagnostic) => void;
