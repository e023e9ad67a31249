import { createBrotliDecompress, createGunzip, createInflate, type BrotliDecompress, type Gunzip, type Inflate } from 'node:zlib';
import { Decompress } from 'fzstd';

/*
 * Undoing a body's content-encoding as it streams (gzip, deflate, br, zstd), so a compressed body
 * can be captured both as sent and as text. `onData` gets each decoded piece with the number of
 * compressed bytes consumed to produce it (what tells when the piece could first be read).
 * Decoding never affects what is forwarded: a failure only means there is no decoded text.
 */

export interface BodyDecoder {
  write(chunk: Buffer): void;
  /** Resolves once everything written is decoded; true when the body decoded whole without error. */
  end(): Promise<boolean>;
  /** Stops decoding (the decoded text is not wanted any more). */
  abandon(): void;
}

type OnData = (decoded: Buffer, consumed: number) => void;

/** A decoder for one content-encoding; null for none, identity, a list of several, or one not known. */
export function bodyDecoder(encoding: string | undefined, onData: OnData): BodyDecoder | null {
  const e = encoding?.trim().toLowerCase();
  if (!e || e === 'identity') return null;
  if (e === 'gzip' || e === 'x-gzip') return zlibDecoder(createGunzip(), onData);
  if (e === 'deflate') return zlibDecoder(createInflate(), onData);
  if (e === 'br') return zlibDecoder(createBrotliDecompress(), onData);
  if (e === 'zstd') return zstdDecoder(onData);
  return null;
}

function zlibDecoder(z: Gunzip | Inflate | BrotliDecompress, onData: OnData): BodyDecoder {
  let failed = false;
  z.on('data', (d: Buffer) => {
    if (!failed) onData(d, z.bytesWritten);
  });
  const done = new Promise<boolean>((ok) => {
    z.once('end', () => ok(!failed));
    z.once('error', () => {
      failed = true;
      ok(false);
    });
    z.once('close', () => ok(!failed));
  });
  return {
    write(chunk) {
      if (!failed) z.write(chunk);
    },
    end() {
      if (!failed) z.end();
      return done;
    },
    abandon() {
      failed = true;
      z.destroy();
    },
  };
}

function zstdDecoder(onData: OnData): BodyDecoder {
  let failed = false;
  let consumed = 0;
  const d = new Decompress((chunk) => {
    if (!failed) onData(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength), consumed);
  });
  const push = (chunk: Uint8Array, final: boolean) => {
    if (failed) return;
    consumed += chunk.length;
    try {
      d.push(chunk, final);
    } catch {
      failed = true;
    }
  };
  return {
    write: (chunk) => push(chunk, false),
    end() {
      push(new Uint8Array(0), true);
      return Promise.resolve(!failed);
    },
    abandon() {
      failed = true;
    },
  };
}
