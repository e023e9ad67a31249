import { bodyDecoder, type BodyDecoder } from './decoder';
import { EventTimes } from './events-json';
import { BODY, Spool, type SpoolDir } from './spool';

/*
 * Everything the capture keeps of one body, taken from the chunks on their way through the
 * proxy: the bytes as sent (./spool.ts), the text after undoing a content-encoding, and for an
 * event stream when each piece of its text arrived (its events are parsed from that text when the
 * capture line is written, ./events-json.ts). The proxy hands each chunk over and forwards it;
 * nothing here can delay or change what is forwarded.
 */

/** Decoded text beyond this is not kept (a small compressed body can expand without bound). */
export const DECODED_MAX_BYTES = 256 * 1024 * 1024;

export interface TapOptions {
  readonly dir: SpoolDir;
  readonly contentEncoding: string | undefined;
  /** Parse server-sent events (a `text/event-stream` response). */
  readonly sse: boolean;
  /** performance.now() when the request arrived: event times are counted from it. */
  readonly t0: number;
}

/** No content-encoding (or identity): the bytes are the text. */
const plain = (encoding: string | undefined): boolean => !encoding || encoding.trim().toLowerCase() === 'identity';

export class BodyTap {
  readonly raw: Spool;
  /** The decoded bytes (null: no content-encoding, or one that cannot be undone). */
  private decoded: Spool | null = null;
  private readonly decoder: BodyDecoder | null;
  private decodedWhole = false;
  /** When each piece of the event stream's text arrived (null: not an event stream). */
  readonly eventTimes: EventTimes | null;
  /** Arrival times of the raw chunks not yet fully consumed by the decoder: [end offset, t]. */
  private readonly arrivals: [number, number][] = [];
  private ended: Promise<void> | null = null;

  constructor(private readonly opts: TapOptions) {
    this.decoder = bodyDecoder(opts.contentEncoding, (d, consumed) => this.onDecoded(d, consumed));
    // An event stream not compressed is captured as its events, parsed from these bytes: they are
    // kept, but neither hashed nor checked.
    this.raw = new Spool(opts.dir, this.keepsBody ? BODY : { keep: true, sha256: false, utf8: false });
    // The decoded text is written when it is valid UTF-8; the digest in the capture is of the bytes as sent.
    if (this.decoder) this.decoded = new Spool(opts.dir, { keep: true, sha256: false, utf8: true });
    this.eventTimes = opts.sse ? new EventTimes() : null;
  }

  /** Whether the capture holds this body's bytes (all but an event stream that was not compressed). */
  get keepsBody(): boolean {
    return !this.opts.sse || !plain(this.opts.contentEncoding);
  }

  write(chunk: Buffer): void {
    // Bytes after the exchange ended (a request body still arriving after the response) are not part of it.
    if (this.ended) return;
    const t = performance.now() - this.opts.t0;
    this.raw.write(chunk);
    if (this.decoder) {
      this.arrivals.push([this.raw.bytes, t]);
      this.decoder.write(chunk);
    } else if (this.eventTimes) {
      this.eventTimes.mark(this.raw.bytes, t);
    }
  }

  private onDecoded(d: Buffer, consumed: number): void {
    const spool = this.decoded;
    if (!spool) return;
    if (spool.bytes + d.length > DECODED_MAX_BYTES) {
      this.decoder?.abandon();
      spool.dispose();
      this.decoded = null;
      return;
    }
    spool.write(d);
    if (!this.eventTimes) return;
    // The piece could be read once the raw chunk holding its last compressed byte had arrived.
    while (this.arrivals.length > 1 && (this.arrivals[0] as [number, number])[0] < consumed) this.arrivals.shift();
    this.eventTimes.mark(spool.bytes, this.arrivals[0]?.[1] ?? performance.now() - this.opts.t0);
  }

  /**
   * The text the events are parsed from: the bytes as sent, or decoded when compressed. Null when
   * the encoding cannot be undone, or the decoded text grew past DECODED_MAX_BYTES (no events).
   */
  eventSource(): Spool | null {
    if (!this.eventTimes) return null;
    if (this.decoder) return this.decoded;
    return plain(this.opts.contentEncoding) ? this.raw : null;
  }

  /** Ends the body (complete or not): waits for the decoder, then closes the spools. */
  end(): Promise<void> {
    this.ended ??= (async () => {
      if (this.decoder) this.decodedWhole = await this.decoder.end();
      this.raw.end();
      this.decoded?.end();
    })();
    return this.ended;
  }

  /** The decoded text, when the body decoded whole into valid UTF-8; else null. */
  decodedText(): Spool | null {
    if (!this.decoded || !this.decodedWhole || !this.decoded.isUtf8()) return null;
    return this.decoded;
  }

  dispose(): void {
    this.decoder?.abandon();
    this.raw.dispose();
    this.decoded?.dispose();
  }
}
