import { describeIoError } from '../reader/io';
import { openRegular } from '../files/open-regular';
import { DEFAULT_MAX_LINE_BYTES, LineSplitter } from '../reader';

/*
 * Streams the JSON lines of a capture (claude-trace and Palimpsest captures are both JSON lines),
 * so a capture of gigabytes is never held whole: each line is parsed and handed over as it is
 * read. A line that is not JSON, or longer than the line limit, is handed over as a reason
 * instead. Blank lines carry nothing and are passed over.
 */

const CHUNK_BYTES = 1024 * 1024;

export type JsonLineResult = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly reason: string };

/** Bytes a reader saw, and why it stopped early (an I/O error), or null when it read to the end. */
export interface JsonLinesEnd {
  readonly bytes: number;
  readonly lines: number;
  /** Set when the file could not be opened or a read failed; the lines before it were delivered. */
  readonly ioError: string | null;
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export async function forEachJsonLine(
  path: string,
  onLine: (line: number, result: JsonLineResult) => void,
  maxLineBytes = DEFAULT_MAX_LINE_BYTES,
): Promise<JsonLinesEnd> {
  const splitter = new LineSplitter(
    (buf, start, end, lineNo, offset, terminated) => {
      let s = start;
      let e = end;
      // A BOM before the first line and a CR before each LF are not part of the JSON.
      if (offset === 0 && e - s >= 3 && buf[s] === 0xef && buf[s + 1] === 0xbb && buf[s + 2] === 0xbf) s += 3;
      if (e > s && buf[e - 1] === 0x0d) e--;
      const text = buf.toString('utf8', s, e);
      if (text.trim() === '') return;
      let value: unknown;
      try {
        value = JSON.parse(text) as unknown;
      } catch (err) {
        const reason = terminated ? `not JSON: ${errorText(err)}` : 'the file ends inside this line (truncated): not JSON';
        onLine(lineNo, { ok: false, reason });
        return;
      }
      onLine(lineNo, { ok: true, value });
    },
    {
      maxLineBytes,
      onLongLine: (lineNo, _offset, length) =>
        onLine(lineNo, { ok: false, reason: `the line is ${length} bytes long, over the limit of ${maxLineBytes}` }),
    },
  );
  let fh;
  try {
    fh = await openRegular(path);
  } catch (e) {
    return { bytes: 0, lines: 0, ioError: describeIoError(path, e) };
  }
  let ioError: string | null = null;
  try {
    const buf = Buffer.allocUnsafe(CHUNK_BYTES);
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) break;
      splitter.push(buf.subarray(0, bytesRead));
    }
  } catch (e) {
    ioError = describeIoError(path, e);
  } finally {
    await fh.close().catch(() => undefined);
  }
  splitter.end();
  return { bytes: splitter.bytes, lines: splitter.currentLine - 1, ioError };
}
