import { randomBytes } from 'node:crypto';
import type { CapturedBody } from '../capture/format';
import type { BodyTap } from './body-tap';
import { eventsJson as eventItems, type EventTimes } from './events-json';
import type { Spool } from './spool';

/*
 * One capture line, written without holding a large body as one string: the exchange is turned
 * into JSON with a placeholder where each body's text goes, and the line is then produced in
 * pieces — the JSON around the placeholders as is, each body streamed from its spool: UTF-8 text
 * escaped piece by piece (a character split between two reads is decoded whole), base64 in pieces
 * of a multiple of 3 bytes (so the pieces join into one base64 text), events parsed from the
 * stream's text into a JSON array (./events-json.ts).
 */

type Slot =
  | { readonly kind: 'text' | 'base64'; readonly spool: Spool }
  | { readonly kind: 'events'; readonly spool: Spool | null; readonly times: EventTimes };

export type Piece = string | Slot;

/** Unknown to anything the proxy captures, so no captured text can spell a placeholder. */
const NONCE = randomBytes(8).toString('hex');

/** Placeholders for one line: strings no captured text can produce once through JSON.stringify. */
export class Slots {
  private readonly list: Slot[] = [];

  add(slot: Slot): string {
    this.list.push(slot);
    // A NUL cannot occur in a header or a path, and the random nonce rules out the rest.
    return `\u0000${NONCE}:${this.list.length - 1}\u0000`;
  }

  /** `value` as JSON, split at the placeholders. */
  pieces(value: unknown): Piece[] {
    const json = JSON.stringify(value);
    // Each placeholder comes out of JSON.stringify as "\u0000<nonce>:<n>\u0000", quotes included.
    const open = `"\\u0000${NONCE}:`;
    const out: Piece[] = [];
    let last = 0;
    for (let at = json.indexOf(open); at >= 0; at = json.indexOf(open, last)) {
      const n = Number.parseInt(json.slice(at + open.length), 10);
      out.push(json.slice(last, at), this.list[n] as Slot);
      last = json.indexOf('"', at + open.length) + 1;
    }
    out.push(json.slice(last));
    return out;
  }
}

/** A body as the capture schema has it, its texts as placeholders. */
export function bodyJson(tap: BodyTap, slots: Slots): CapturedBody {
  const sha256 = tap.raw.sha256();
  const utf8 = tap.raw.isUtf8();
  const decoded = tap.decodedText();
  return {
    encoding: utf8 ? 'utf8' : 'base64',
    data: slots.add({ kind: utf8 ? 'text' : 'base64', spool: tap.raw }),
    bytes: tap.raw.bytes,
    sha256,
    ...(decoded ? { decoded: slots.add({ kind: 'text', spool: decoded }) } : {}),
  };
}

/** The event list of a stream, as a placeholder for its JSON array. */
export function eventsJson(tap: BodyTap, slots: Slots): string | undefined {
  return tap.eventTimes ? slots.add({ kind: 'events', spool: tap.eventSource(), times: tap.eventTimes }) : undefined;
}

/** The bytes of a line, in pieces (each at most about 1 MiB), ending with a line feed. */
export async function* lineBytes(pieces: readonly Piece[]): AsyncGenerator<Buffer> {
  for (const p of pieces) {
    if (typeof p === 'string') {
      yield Buffer.from(p, 'utf8');
      continue;
    }
    if (p.kind === 'events') {
      yield Buffer.from('[');
      yield* eventItems(p.spool, p.times);
      yield Buffer.from(']');
    } else if (p.kind === 'text') {
      yield Buffer.from('"');
      for await (const c of p.spool.chunks()) yield escapeUtf8(c);
      yield Buffer.from('"');
    } else {
      yield Buffer.from('"');
      let carry: Buffer = Buffer.alloc(0);
      for await (const c of p.spool.chunks()) {
        const all = carry.length > 0 ? Buffer.concat([carry, c]) : c;
        const cut = all.length - (all.length % 3);
        yield Buffer.from(all.subarray(0, cut).toString('base64'), 'latin1');
        carry = Buffer.from(all.subarray(cut));
      }
      yield Buffer.from(`${carry.toString('base64')}"`, 'latin1');
    }
  }
  yield Buffer.from('\n');
}

/**
 * Valid UTF-8 bytes as the inside of a JSON string, exactly as JSON.stringify escapes the text
 * they spell, without decoding them: JSON escapes only `"`, `\` and controls below 0x20, all
 * single bytes that never occur inside a multi-byte character. Read as latin1, each byte is one
 * character of the same value, which JSON.stringify escapes the same way and latin1 writes back
 * as the same byte — so a character split between two reads needs no care.
 */
function escapeUtf8(b: Buffer): Buffer {
  const s = b.toString('latin1');
  const j = JSON.stringify(s);
  return j.length === s.length + 2 ? b : Buffer.from(j.slice(1, -1), 'latin1');
}
