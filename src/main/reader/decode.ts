import { isUtf8 } from 'node:buffer';
import type { FileReport } from './report';
import type { LineReceiver } from './lines';
import type { JsonLine, JsonLineReceiver, OnJsonLine, ReadStats } from './types';

const CR = 0x0d;
const OPEN_BRACE = 0x7b;
const REPLACEMENT = '\uFFFD';
/** Why a line with a NUL byte is not JSON (JSON text never holds one; binary data does). */
export const NUL_REASON = 'it holds NUL bytes, as binary data does';

function hasBom(buf: Buffer, start: number, end: number): boolean {
  return end - start >= 3 && buf[start] === 0xef && buf[start + 1] === 0xbb && buf[start + 2] === 0xbf;
}

function isBlank(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const b = buf[i];
    // JSON's whitespace plus VT and FF, which editors also show as nothing.
    if (b !== 0x20 && b !== 0x09 && b !== CR && b !== 0x0b && b !== 0x0c) return false;
  }
  return true;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'boolean') return 'a boolean';
  return typeof value;
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Decodes a line's bytes as the reader does, so a re-read yields the same value. */
export function parseLineBytes(buf: Buffer, start: number, end: number): Record<string, unknown> | null {
  let value: unknown;
  try {
    value = JSON.parse(buf.toString('utf8', start, end));
  } catch {
    // A line that no longer parses is an answer ("changed since it was read"), not a failure.
    return null;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** A JsonLineReceiver made of a callback. */
class JsonLineCallback implements JsonLineReceiver {
  constructor(readonly line: (l: JsonLine) => void) {}
}

/**
 * Turns raw lines into JsonLine records or diagnostics and keeps the file's counts. One instance
 * per file: the once-per-file notes (BOM, CRLF, blank lines) depend on what came before.
 */
export class JsonlDecoder implements LineReceiver {
  readonly stats: ReadStats = { bytes: 0, lines: 0, records: 0, skipped: 0 };
  private readonly receiver: JsonLineReceiver;
  private crlfLine = 0;
  private blankCount = 0;
  private blankFirst = 0;

  constructor(
    private readonly report: FileReport,
    onRecord: OnJsonLine,
    private readonly maxLineBytes: number,
  ) {
    this.receiver = typeof onRecord === 'function' ? new JsonLineCallback(onRecord) : onRecord;
  }

  /** A LineCallback, called by the splitter as a method of this decoder. */
  line(buf: Buffer, start: number, end: number, lineNo: number, offset: number, terminated: boolean): void {
    this.stats.lines++;
    // A BOM is a file's first bytes, not a range's (a parallel load reads ranges from line 1 on).
    if (lineNo === 1 && offset === 0 && hasBom(buf, start, end)) {
      start += 3;
      offset += 3;
      this.report.add('READ_BOM', 'info', 1, 'The file starts with a UTF-8 byte order mark (BOM); it was ignored.');
    }
    if (end > start && buf[end - 1] === CR) {
      end--;
      if (this.crlfLine === 0) {
        this.crlfLine = lineNo;
        this.report.add(
          'READ_CRLF',
          'info',
          lineNo,
          `Lines end with CR LF (Windows line endings), first at line ${lineNo}; the CR characters were ignored.`,
        );
      }
    }
    if (end === start || (buf[start] !== OPEN_BRACE && isBlank(buf, start, end))) {
      this.stats.skipped++;
      if (this.blankCount++ === 0) this.blankFirst = lineNo;
      return;
    }
    const text = buf.toString('utf8', start, end);
    // Invalid UTF-8 always decodes to U+FFFD, and V8 answers this search at once for one-byte
    // strings, so the full isUtf8 scan runs only on the rare lines that may be invalid.
    if (text.indexOf(REPLACEMENT) !== -1 && !isUtf8(buf.subarray(start, end))) {
      this.report.add(
        'READ_INVALID_UTF8',
        'warning',
        lineNo,
        `Line ${lineNo} is not valid UTF-8; the bad bytes were read as replacement characters (\uFFFD).`,
      );
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      // JSON text never holds a raw NUL: say the line is binary rather than quote the parser.
      this.badJson(lineNo, terminated, text.indexOf('\0') !== -1 ? NUL_REASON : errorText(e));
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.stats.skipped++;
      this.report.add('READ_NOT_OBJECT', 'error', lineNo, `Line ${lineNo} is ${kindOf(value)}, not a JSON object, and was skipped.`);
      return;
    }
    this.stats.records++;
    this.receiver.line({ value: value as Record<string, unknown>, line: lineNo, offset, length: end - start, bytes: buf, start, end });
  }

  /** Counts lines another reader read and delivered (a byte range read in parallel). */
  skip(lines: number, records: number): void {
    this.stats.lines += lines;
    this.stats.records += records;
  }

  /** Counts a line cut short by a gap in the data (the pipeline reports it). */
  cutLine(): void {
    this.stats.lines++;
    this.stats.skipped++;
  }

  /** A LongLineCallback. */
  longLine(lineNo: number, _offset: number, length: number): void {
    this.stats.lines++;
    this.stats.skipped++;
    this.report.add(
      'READ_LINE_TOO_LONG',
      'error',
      lineNo,
      `Line ${lineNo} is ${length} bytes long, over the limit of ${this.maxLineBytes} bytes, and was skipped without being read.`,
    );
  }

  /** Emits the per-file summaries; call once, after the last line. */
  finish(bytes: number): ReadStats {
    this.stats.bytes = bytes;
    if (this.blankCount > 0) {
      const n = this.blankCount;
      this.report.add(
        'READ_BLANK_LINES',
        'info',
        this.blankFirst,
        n === 1
          ? `Line ${this.blankFirst} is blank and was skipped.`
          : `${n} blank lines were skipped, the first at line ${this.blankFirst}.`,
      );
    }
    return this.stats;
  }

  private badJson(lineNo: number, terminated: boolean, why: string): void {
    this.stats.skipped++;
    if (terminated) {
      this.report.add('READ_INVALID_JSON', 'error', lineNo, `Line ${lineNo} is not valid JSON and was skipped: ${why}.`);
    } else {
      this.report.add(
        'READ_TRUNCATED_LINE',
        'warning',
        lineNo,
        `The last line (${lineNo}) is incomplete and has no line end, as when the writer stopped mid-write; it was skipped (${why}).`,
      );
    }
  }
}
