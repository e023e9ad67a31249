/*
 * Server-sent events as the WHATWG HTML standard ("Server-sent events", event stream
 * interpretation) parses them, fed the stream's bytes as they arrive: lines end at CRLF, LF or CR
 * (a CR at the end of one piece and an LF at the start of the next are one line end); a line
 * starting with a colon is a comment; `data` lines accumulate with a line feed between them; a
 * blank line dispatches the event, unless it has no data. `id` and `retry` do not change what a
 * client is given as the event, so they are not kept. An event not closed by a blank line when
 * the stream ends is dropped, as a client drops it — but a reader of captures asks for it (`finish`):
 * it says the stream was cut mid-event.
 *
 * It works on bytes, not decoded text: every byte the format gives a meaning to (CR, LF, colon,
 * space, the field names) is ASCII, which never occurs inside a multi-byte UTF-8 character, so
 * splitting the bytes is splitting the text — and each event's bytes are decoded once, by whoever
 * turns them into JSON (src/main/record/events-json.ts), instead of the whole stream being decoded
 * and sliced. The recorder feeds it as bytes arrive; the capture readers give it a whole body
 * (`parseSse`). Written here rather than taken from `eventsource-parser` (4.x), which parses decoded
 * text, gives no offsets, and drops a cut event: its `reset({ consume: true })` parses the last line
 * and discards the event, and its `onError` reports only a buffer overflow. The recorder needs
 * bytes, arrival offsets and the cut.
 */

/** Its bytes may be views on the chunk being pushed: read them in the callback, or copy them. */
export interface SseEvent {
  /** The event name's bytes (null: none, or empty). */
  readonly event: Buffer | null;
  /** The data lines joined by line feeds. */
  readonly data: Buffer;
  /** Offset in the stream of the line end that dispatched the event (tells when it arrived). */
  readonly at: number;
}

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;
const NEWLINE = Buffer.from([LF]);
const EMPTY = Buffer.alloc(0);
/** The UTF-8 byte order mark: decoding drops one at the start, and the event stream format one more. */
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

const isData = (f: Buffer): boolean => f.length === 4 && f[0] === 0x64 && f[1] === 0x61 && f[2] === 0x74 && f[3] === 0x61;
const isEvent = (f: Buffer): boolean => f.length === 5 && f[0] === 0x65 && f[1] === 0x76 && f[2] === 0x65 && f[3] === 0x6e && f[4] === 0x74;

export interface SseOptions {
  /** Keep the lines of the event under way, so that `finish` can return a cut one (readers do; the recorder need not). */
  readonly keepCut?: boolean;
}

export class SseParser {
  /** Stream offset of the next byte pushed. */
  private offset = 0;
  /** The start of a line not ended yet (copies: a pushed chunk may be reused by its stream). */
  private line: Buffer[] = [];
  private afterCr = false;
  /** Byte order marks that may still be dropped at the start, and the first bytes held to tell. */
  private boms = 2;
  private head: Buffer | null = null;
  private event: Buffer | null = null;
  private data: Buffer[] = [];
  /** data[viewsFrom..] are views on the chunk being pushed; copied before push returns. */
  private viewsFrom = 0;

  /** With keepCut: the lines since the last blank line (line ends made LF), and whether one was a field. */
  private pending: Buffer[] | null;
  private open = false;

  constructor(
    private readonly emit: (e: SseEvent) => void,
    options: SseOptions = {},
  ) {
    this.pending = options.keepCut === true ? [] : null;
  }

  /**
   * Ends the stream. Returns the text after the last event that a blank line closed, when it holds
   * a field or a line that is not a comment: an event cut before its end (null: it ended between
   * events, or keepCut was not asked for). A trailing keep-alive comment is no cut.
   */
  finish(): Buffer | null {
    const rest = Buffer.concat([...(this.head ? [this.head] : []), ...this.line]);
    this.head = null;
    this.line = [];
    if (this.pending === null) return null;
    const cut = this.open || (rest.length > 0 && rest[0] !== COLON) ? Buffer.concat([...this.pending, rest]) : null;
    this.pending = [];
    this.open = false;
    return cut;
  }

  push(chunk: Buffer): void {
    let base = this.offset;
    this.offset += chunk.length;
    if (this.boms > 0) {
      if (this.head) {
        base -= this.head.length;
        chunk = Buffer.concat([this.head, chunk]);
        this.head = null;
      }
      while (this.boms > 0) {
        const n = Math.min(3, chunk.length);
        if (BOM.compare(chunk, 0, n, 0, n) !== 0) {
          this.boms = 0;
          break;
        }
        if (n < 3) {
          this.head = Buffer.from(chunk);
          return;
        }
        chunk = chunk.subarray(3);
        base += 3;
        this.boms--;
      }
    }
    if (chunk.length === 0) return;
    let start = 0;
    if (this.afterCr && chunk[0] === LF) start = 1;
    this.afterCr = false;
    this.viewsFrom = this.data.length;
    // Line ends found with indexOf (a native scan), each search kept until passed.
    let lf = chunk.indexOf(LF, start);
    let cr = chunk.indexOf(CR, start);
    while (lf >= 0 || cr >= 0) {
      const i = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
      const piece = chunk.subarray(start, i);
      let line = piece;
      if (this.line.length > 0) {
        this.line.push(piece);
        line = Buffer.concat(this.line);
        this.line = [];
      }
      this.onLine(line, base + i);
      let next = i + 1;
      if (i === cr) {
        if (next === chunk.length) this.afterCr = true;
        else if (chunk[next] === LF) next++;
      }
      start = next;
      if (lf >= 0 && lf < start) lf = chunk.indexOf(LF, start);
      if (cr >= 0 && cr < start) cr = chunk.indexOf(CR, start);
    }
    if (start < chunk.length) this.line.push(Buffer.from(chunk.subarray(start)));
    for (let k = this.viewsFrom; k < this.data.length; k++) this.data[k] = Buffer.from(this.data[k] as Buffer);
  }

  private onLine(line: Buffer, at: number): void {
    if (line.length === 0) {
      if (this.data.length > 0) this.emit({ event: this.event, data: this.joined(), at });
      this.event = null;
      this.data = [];
      this.viewsFrom = 0;
      if (this.pending !== null) {
        this.pending = [];
        this.open = false;
      }
      return;
    }
    if (this.pending !== null) this.pending.push(Buffer.from(line), NEWLINE);
    if (line[0] === COLON) return;
    this.open = true;
    const colon = line.indexOf(COLON);
    const field = colon < 0 ? line : line.subarray(0, colon);
    let value = colon < 0 ? EMPTY : line.subarray(colon + 1);
    if (value[0] === SPACE) value = value.subarray(1);
    if (isData(field)) this.data.push(value);
    else if (isEvent(field)) this.event = value.length === 0 ? null : Buffer.from(value);
  }

  private joined(): Buffer {
    if (this.data.length === 1) return this.data[0] as Buffer;
    const parts: Buffer[] = [];
    for (const d of this.data) {
      if (parts.length > 0) parts.push(NEWLINE);
      parts.push(d);
    }
    return Buffer.concat(parts);
  }
}

/** An event of a whole body, decoded. */
export interface TextSseEvent {
  /** The `event:` field; null when the event had none (a browser would call it "message"). */
  readonly event: string | null;
  readonly data: string;
}

export interface ParsedSse {
  readonly events: TextSseEvent[];
  /** Text of an event cut before its end (SseParser.finish); null: the stream ended between events. */
  readonly cut: string | null;
}

/** Parses a whole text/event-stream body (a capture's, read back). */
export function parseSse(text: string): ParsedSse {
  const events: TextSseEvent[] = [];
  const parser = new SseParser((e) => events.push({ event: e.event?.toString('utf8') ?? null, data: e.data.toString('utf8') }), {
    keepCut: true,
  });
  parser.push(Buffer.from(text, 'utf8'));
  const cut = parser.finish();
  return { events, cut: cut === null ? null : cut.toString('utf8') };
}
