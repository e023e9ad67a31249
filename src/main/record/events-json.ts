import { isUtf8 } from 'node:buffer';
import { SseParser, type SseEvent } from '../wire/sse';
import type { Spool } from './spool';

/*
 * An event stream's events as the JSON items of the capture line's `events` array, made when the
 * line is written, not while the stream passes through: on the way, the proxy only keeps the
 * stream's bytes (./spool.ts) and when each piece of them arrived (EventTimes). Parsing and
 * escaping 50 MB of events on the forwarding path cost more CPU than forwarding them.
 *
 * The JSON is made on bytes: valid UTF-8 read as latin1 is one character per byte, which
 * JSON.stringify escapes exactly as it escapes the text those bytes spell (it escapes only `"`,
 * `\` and controls below 0x20, all single bytes), and latin1 writes back as the same bytes. Bytes
 * that are not valid UTF-8 are decoded (each bad sequence becomes U+FFFD), as a client decodes them.
 */

/** When the pieces of a stream arrived: the stream's size after each piece, and its time (ms since the request). */
export class EventTimes {
  readonly ends: number[] = [];
  readonly times: number[] = [];

  mark(end: number, t: number): void {
    this.ends.push(end);
    this.times.push(t);
  }
}

const ms = (t: number): number => Math.round(t * 1000) / 1000;

/** Keeps a byte order mark inside an event's data: only one at the start of the stream is dropped. */
const lenient = new TextDecoder('utf-8', { ignoreBOM: true });

/** `b` as a JSON string, in latin1 (one character per output byte). */
function jsonLatin1(b: Buffer): string {
  if (isUtf8(b)) return JSON.stringify(b.toString('latin1'));
  return Buffer.from(JSON.stringify(lenient.decode(b)), 'utf8').toString('latin1');
}

/** Output is gathered to about this many characters before each piece is handed on. */
const PIECE_CHARS = 256 * 1024;

/**
 * The events of the stream held in `source`, as the inside of a JSON array (items joined by
 * commas), in pieces. Each event's time is that of the piece holding the line end that dispatched it.
 */
export async function* eventsJson(source: Spool | null, times: EventTimes): AsyncGenerator<Buffer> {
  if (!source) return;
  let out = '';
  let first = true;
  let k = 0;
  const { ends, times: ts } = times;
  const parser = new SseParser((e: SseEvent) => {
    while (k < ends.length - 1 && (ends[k] as number) <= e.at) k++;
    const t = ms(ts[k] ?? 0);
    out += `${first ? '' : ','}{"t":${t},"event":${e.event ? jsonLatin1(e.event) : 'null'},"data":${jsonLatin1(e.data)}}`;
    first = false;
  });
  for await (const c of source.chunks()) {
    // A chunk from the spool is at most 1 MiB: its events are handed on in pieces of PIECE_CHARS.
    for (let at = 0; at < c.length; at += PIECE_CHARS) {
      parser.push(c.subarray(at, at + PIECE_CHARS));
      if (out.length > 0) {
        yield Buffer.from(out, 'latin1');
        out = '';
      }
    }
  }
}
