import { bodyDecoder, type BodyDecoder } from './decoder';
import { SseParser, type SseEvent } from './sse';
import { BODY, Spool, type SpoolDir } from './spool';

/*
 * Everything the capture keeps of one body, taken from the chunks on their way through the
 * proxy: the bytes as sent (./spool.ts), the text after undoing a content-encoding, and for an
 * event stream its events with their arrival times. The proxy hands each chunk over and forwards
 * it; nothing here can delay or change what is forwarded.
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

const ms = (t: number): number => Math.round(t * 1000) / 1000;

export class BodyTap {
  readonly raw: Spool;
  /** The decoded bytes (null: no content-encoding, or one that cannot be undone). */
  private decoded: Spool | null = null;
  private readonly decoder: BodyDecoder | null;
  private decodedWhole = false;
  /** The events, as JSON texts joined by commas (null: not an event stream). */
  readonly events: Spool | null;
  eventCount = 0;
  private readonly parser: SseParser | null;
  private readonly text = new TextDecoder('utf-8');
  /** Arrival times of the raw chunks not yet fully consumed by the decoder: [end offset, t]. */
  private readonly arrivals: [number, number][] = [];
  /** Time of the piece being parsed. */
  private now = 0;
  private ended: Promise<void> | null = null;

  constructor(private readonly opts: TapOptions) {
    this.decoder = bodyDecoder(opts.contentEncoding, (d, consumed) => this.onDecoded(d, consumed));
    // An event stream not compressed is captured as its events: its bytes are only counted.
    this.raw = new Spool(opts.dir, this.keepsBody ? BODY : { keep: false, sha256: false, utf8: false });
    // The decoded text is written when it is valid UTF-8; the digest in the capture is of the bytes as sent.
    if (this.decoder) this.decoded = new Spool(opts.dir, { keep: true, sha256: false, utf8: true });
    // The events are JSON written here: only their bytes are wanted.
    this.events = opts.sse ? new Spool(opts.dir, { keep: true, sha256: false, utf8: false }) : null;
    // Events are parsed from the decoded text when there is a content-encoding; a stream in an
    // encoding that cannot be undone has no events.
    this.parser = opts.sse && (this.decoder !== null || plain(opts.contentEncoding))
      ? new SseParser((e) => this.onEvent(e))
      : null;
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
    } else if (this.parser) {
      this.now = t;
      this.parser.push(this.text.decode(chunk, { stream: true }));
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
    if (!this.parser) return;
    // The piece could be read once the raw chunk holding its last compressed byte had arrived.
    while (this.arrivals.length > 1 && (this.arrivals[0] as [number, number])[0] < consumed) this.arrivals.shift();
    this.now = this.arrivals[0]?.[1] ?? performance.now() - this.opts.t0;
    this.parser.push(this.text.decode(d, { stream: true }));
  }

  private onEvent(e: SseEvent): void {
    const events = this.events as Spool;
    events.writeText(`${this.eventCount > 0 ? ',' : ''}${JSON.stringify({ t: ms(this.now), event: e.event, data: e.data })}`);
    this.eventCount++;
  }

  /** Ends the body (complete or not): waits for the decoder, then closes the spools. */
  end(): Promise<void> {
    this.ended ??= (async () => {
      if (this.decoder) this.decodedWhole = await this.decoder.end();
      this.parser?.push(this.text.decode());
      this.raw.end();
      this.decoded?.end();
      this.events?.end();
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
    this.events?.dispose();
  }
}
