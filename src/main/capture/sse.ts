/*
 * Server-sent events, read by the WHATWG rules (HTML Living Standard, "Parsing an event stream"):
 * lines end in CRLF, LF or CR; a line starting with ':' is a comment; `event:` names the event,
 * each `data:` line adds a line of data; one leading space after the colon is dropped; a blank
 * line dispatches the event, and an event with no data is not dispatched. `id:` and `retry:` say
 * nothing about what the model wrote and are ignored.
 *
 * Written here rather than taken from `eventsource-parser`, which is not among the project's
 * dependencies: the rules fit in this file, and the captures need one thing a live client does
 * not — the text after the last complete event, which says a stream was cut mid-event.
 */

export interface SseEvent {
  /** The `event:` field; null when the event had none (a browser would call it "message"). */
  readonly event: string | null;
  readonly data: string;
}

export interface ParsedSse {
  readonly events: SseEvent[];
  /**
   * Text after the last blank line that held data or fields: an event cut before its end. The
   * standard discards it; a capture reader reports it (null: the stream ended between events).
   */
  readonly cut: string | null;
}

/** Parses a whole text/event-stream body. */
export function parseSse(text: string): ParsedSse {
  const events: SseEvent[] = [];
  let event: string | null = null;
  let data: string[] = [];
  // Whether any field line of the current event was seen (a cut event may hold only `event:`).
  let open = false;
  let openText = '';
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const lines = body.split(/\r\n|\r|\n/);
  // The last piece has no line end: the stream stopped inside a line (or ended cleanly: '').
  const unterminated = lines.pop() ?? '';
  for (const line of lines) {
    if (line === '') {
      if (data.length > 0) events.push({ event, data: data.join('\n') });
      event = null;
      data = [];
      open = false;
      openText = '';
      continue;
    }
    openText += `${line}\n`;
    // A trailing comment (a keep-alive) does not make the stream cut: only a field does.
    if (line.startsWith(':')) continue;
    open = true;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  const cut = open || (unterminated !== '' && !unterminated.startsWith(':')) ? openText + unterminated : null;
  return { events, cut };
}
