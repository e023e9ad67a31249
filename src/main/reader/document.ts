import { closeQuietly, IoFailure, openForReading, readInto } from './io';
import type { DiagnosticSink, OnJsonLine, ReadStats } from './types';

/**
 * One JSON document spread over many lines (a pretty-printed `.json`), read whole and handed on as
 * one record located at line 1, spanning the file: re-reading that range parses it again, so long
 * texts elided in memory come back as for any line. Gemini CLI wrote each session this way until it
 * moved to JSONL. A file too large to hold, or one that does not parse to an object, is reported
 * with its path and line 1 and yields nothing; nothing is ever written.
 */

/** Larger documents are refused rather than read whole into memory. */
export const MAX_DOCUMENT_BYTES = 512 * 1024 * 1024;

const PEEK_BYTES = 4096;

/**
 * Whether `path` is a multi-line JSON document rather than JSONL: its name ends in `.json` and its
 * first line alone is not a complete JSON object (a pretty-printed file opens with a lone `{`).
 */
export async function isJsonDocument(path: string): Promise<boolean> {
  if (!/\.json$/i.test(path)) return false;
  const fh = await openForReading(path);
  if (fh instanceof IoFailure) return false;
  try {
    const buf = Buffer.alloc(PEEK_BYTES);
    const n = await readInto(fh, path, buf, PEEK_BYTES, 0);
    if (n instanceof IoFailure || n === 0) return false;
    const text = buf.toString('utf8', 0, n).replace(/^\uFEFF/, '');
    const nl = text.indexOf('\n');
    const first = (nl < 0 ? text : text.slice(0, nl)).trim();
    if (!first.startsWith('{')) return false;
    if (nl < 0 && n < PEEK_BYTES) return false;
    try {
      JSON.parse(first);
      return false;
    } catch {
      return true;
    }
  } finally {
    await closeQuietly(fh);
  }
}

export async function readJsonDocument(path: string, onLine: OnJsonLine, onDiagnostic: DiagnosticSink): Promise<ReadStats> {
  const stats: ReadStats = { bytes: 0, lines: 0, records: 0, skipped: 0 };
  const fail = (rule: string, message: string): ReadStats => {
    onDiagnostic({ rule, severity: 'error', file: path, line: 1, seqs: [], message });
    stats.skipped = 1;
    return stats;
  };
  const fh = await openForReading(path);
  if (fh instanceof IoFailure) return fail('READ_IO', fh.message);
  let buf: Buffer;
  try {
    const size = (await fh.stat()).size;
    if (size > MAX_DOCUMENT_BYTES)
      return fail(
        'READ_LINE_TOO_LONG',
        `${path} is one JSON document of ${size} bytes, more than the ${MAX_DOCUMENT_BYTES} read whole; it is not read.`,
      );
    buf = Buffer.alloc(size);
    let got = 0;
    while (got < size) {
      const n = await readInto(fh, path, buf.subarray(got), size - got, got);
      if (n instanceof IoFailure) return fail('READ_IO', n.message);
      if (n === 0) break;
      got += n;
    }
    buf = buf.subarray(0, got);
  } finally {
    await closeQuietly(fh);
  }
  stats.bytes = buf.length;
  for (let i = 0; i < buf.length; i++) if (buf[i] === 0x0a) stats.lines++;
  if (buf.length > 0 && buf[buf.length - 1] !== 0x0a) stats.lines++;
  let value: unknown;
  try {
    value = JSON.parse(buf.toString('utf8'));
  } catch (e) {
    return fail('READ_INVALID_JSON', `${path} is not one valid JSON document (${e instanceof Error ? e.message : String(e)}).`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return fail('READ_NOT_OBJECT', `${path} is a JSON document but not an object.`);
  stats.records = 1;
  const line = { value: value as Record<string, unknown>, line: 1, offset: 0, length: buf.length };
  if (typeof onLine === 'function') onLine(line);
  else onLine.line(line);
  return stats;
}
