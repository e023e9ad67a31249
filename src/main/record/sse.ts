/*
 * Server-sent events as the WHATWG HTML standard ("Server-sent events", event stream
 * interpretation) parses them, fed text as it arrives: lines end at CRLF, LF or CR (a CR at the
 * end of one piece and an LF at the start of the next are one line end); a line starting with a
 * colon is a comment; `data` lines accumulate with a line feed between them; a blank line
 * dispatches the event, unless it has no data. `id` and `retry` do not change what a client is
 * given as the event, so they are not kept. An event not closed by a blank line when the stream
 * ends is dropped, as a client drops it.
 */

export interface SseEvent {
  readonly event: string | null;
  readonly data: string;
}

export class SseParser {
  private line = '';
  private afterCr = false;
  private first = true;
  private event: string | null = null;
  private data: string[] = [];
  private hasData = false;

  constructor(private readonly emit: (e: SseEvent) => void) {}

  push(text: string): void {
    if (this.first && text.length > 0) {
      this.first = false;
      // A byte order mark at the start of the stream is not part of the first line.
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    let start = 0;
    if (this.afterCr && text.charCodeAt(0) === 0x0a) start = 1;
    this.afterCr = false;
    // Line ends found with indexOf (fast on long texts), each search kept until passed.
    let lf = text.indexOf('\n', start);
    let cr = text.indexOf('\r', start);
    while (lf >= 0 || cr >= 0) {
      const i = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
      this.onLine(this.line.length > 0 ? this.line + text.slice(start, i) : text.slice(start, i));
      this.line = '';
      let next = i + 1;
      if (i === cr) {
        if (next === text.length) this.afterCr = true;
        else if (text.charCodeAt(next) === 0x0a) next++;
      }
      start = next;
      if (lf >= 0 && lf < start) lf = text.indexOf('\n', start);
      if (cr >= 0 && cr < start) cr = text.indexOf('\r', start);
    }
    if (start < text.length) this.line += text.slice(start);
  }

  private onLine(line: string): void {
    if (line === '') {
      if (this.hasData) this.emit({ event: this.event, data: this.data.join('\n') });
      this.event = null;
      this.data = [];
      this.hasData = false;
      return;
    }
    if (line.charCodeAt(0) === 0x3a) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 0x20) value = value.slice(1);
    if (field === 'event') this.event = value === '' ? null : value;
    else if (field === 'data') {
      this.data.push(value);
      this.hasData = true;
    }
  }
}
