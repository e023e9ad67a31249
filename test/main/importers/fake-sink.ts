import type { ImportSink } from '../../../src/main/importers/types';
import type { JsonLine } from '../../../src/main/reader/types';
import type { Diagnostic } from '../../../src/shared/model/diagnostic';
import type { EventBody } from '../../../src/shared/model/event';

/** The importers' tests: an event as the sink received it, with its seq and where it is located. */
export type Emitted = EventBody & { readonly seq: number; readonly line: number; readonly file: number };

/**
 * An ImportSink that collects events (seqs from 0, as the log assigns them) with the file they are
 * located in, and diagnostics. Like the loader, it refuses to locate an event in a file not read yet.
 */
export class FakeSink implements ImportSink {
  readonly events: Emitted[] = [];
  readonly diagnostics: Diagnostic[] = [];
  /** The file being read. */
  file = 0;

  emit(event: EventBody, from: JsonLine, fileIndex?: number): number {
    const seq = this.events.length;
    if (fileIndex !== undefined && (fileIndex < 0 || fileIndex > this.file))
      throw new Error(`emit: file ${fileIndex} is not a file read so far`);
    this.events.push({ ...event, seq, line: from.line, file: fileIndex ?? this.file } as Emitted);
    return seq;
  }

  diagnostic(d: Omit<Diagnostic, 'file'> & { file?: string | null }): void {
    this.diagnostics.push({ ...d, file: d.file ?? null, seqs: d.seqs ?? [] });
  }

  get nextSeq(): number {
    return this.events.length;
  }
}

/** A parsed line as the reader would hand it over; offset and length default to a lone line. */
export function jsonLine(
  value: Record<string, unknown>,
  line: number,
  offset = 0,
  length = Buffer.byteLength(JSON.stringify(value)),
): JsonLine {
  return { value, line, offset, length };
}
