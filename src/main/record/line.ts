import { randomBytes } from 'node:crypto';
import type { CapturedBody } from '../capture/format';
import type { BodyTap } from './body-tap';
import type { Spool } from './spool';

/*
 * One capture line, written without holding a large body as one string: the exchange is turned
 * into JSON with a placeholder where each body's text goes, and the line is then produced in
 * pieces — the JSON around the placeholders as is, each body streamed from its spool: UTF-8 text
 * escaped piece by piece (a character split between two reads is decoded whole), base64 in pieces
 * of a multiple of 3 bytes (so the pieces join into one base64 text), events as the JSON array
 * they already are.
 */

type Slot = { readonly kind: 'text' | 'base64' | 'json-array'; readonly spool: Spool };

export type Piece = string | Slot;

/** Placeholders for one line: strings no captured text can produce once through JSON.stringify. */
export class Slots {
  private readonly nonce = randomBytes(8).toString('hex');
  private readonly list: Slot[] = [];

  add(slot: Slot): string {
    this.list.push(slot);
    // A NUL cannot occur in a header or a path, and the random nonce rules out the rest.
    return `\u0000${this.nonce}:${this.list.length - 1}\u0000`;
  }

  /** `value` as JSON, split at the placeholders. */
  pieces(value: unknown): Piece[] {
    const json = JSON.stringify(value);
    const re = new RegExp(`"\\\\u0000${this.nonce}:(\\d+)\\\\u0000"`, 'g');
    const out: Piece[] = [];
    let last = 0;
    for (const m of json.matchAll(re)) {
      out.push(json.slice(last, m.index));
      out.push(this.list[Number(m[1])] as Slot);
      last = m.index + m[0].length;
    }
    out.push(json.slice(last));
    return out;
  }
}

/** A body as the capture schema has it, its texts as placeholders. */
export function bodyJson(tap: BodyTap, slots: Slots): CapturedBody {
  const { sha256, utf8 } = tap.raw.end();
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
  return tap.events ? slots.add({ kind: 'json-array', spool: tap.events }) : undefined;
}

/** The text of a line, in pieces (each at most about 1 MiB), ending with a line feed. */
export async function* lineText(pieces: readonly Piece[]): AsyncGenerator<string> {
  for (const p of pieces) {
    if (typeof p === 'string') {
      yield p;
      continue;
    }
    if (p.kind === 'json-array') {
      yield '[';
      const dec = new TextDecoder('utf-8');
      for await (const c of p.spool.chunks()) yield dec.decode(c, { stream: true });
      yield `${dec.decode()}]`;
    } else if (p.kind === 'text') {
      const dec = new TextDecoder('utf-8');
      yield '"';
      for await (const c of p.spool.chunks()) yield escape(dec.decode(c, { stream: true }));
      yield `${escape(dec.decode())}"`;
    } else {
      yield '"';
      let carry: Buffer = Buffer.alloc(0);
      for await (const c of p.spool.chunks()) {
        const all = carry.length > 0 ? Buffer.concat([carry, c]) : c;
        const cut = all.length - (all.length % 3);
        yield all.subarray(0, cut).toString('base64');
        carry = Buffer.from(all.subarray(cut));
      }
      yield `${carry.toString('base64')}"`;
    }
  }
  yield '\n';
}

/** A text's JSON string body, without the quotes. */
const escape = (s: string): string => (s.length === 0 ? '' : JSON.stringify(s).slice(1, -1));
