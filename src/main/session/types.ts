import type { Diagnostic } from '../../shared/model/diagnostic';
import type { LogEvent, SourceLoc } from '../../shared/model/event';
import type { EventLog } from '../../shared/model/event-log';
import type { FormatId } from '../importers/types';
import type { ReadStats } from '../reader/types';

export interface SessionFile {
  readonly index: number;
  readonly path: string;
  readonly format: FormatId;
  readonly bytes: number;
  readonly stats: ReadStats;
  /**
   * Present when the file was read in byte ranges on several threads (parallel load): the ranges,
   * how many of those after the first a worker read, and why each of the others was read on the
   * loading thread (a worker's refusal — "the reader reports READ_INVALID_JSON at line 3 of the
   * range" — or the loader's), in file order.
   */
  readonly ranges?: { readonly count: number; readonly byWorkers: number; readonly readHere: readonly string[] };
}

/**
 * A loaded session: the canonical event log (long texts elided in memory), the files it came
 * from, and every diagnostic the reader and importers reported. Content is re-read on demand.
 */
export interface LoadedSession {
  readonly format: FormatId;
  readonly files: readonly SessionFile[];
  /** The event log, read by seq (`events.at(seq)`); not an array. */
  readonly events: EventLog;
  readonly diagnostics: readonly Diagnostic[];
  /** Where the event `seq` came from (null: no such event). */
  loc(seq: number): SourceLoc | null;
  /** The event with its full text, re-read from the source line. */
  hydrate(seq: number): Promise<LogEvent>;
  /** `hydrate` of each seq, in the order given, with lines close together in a file read at once. */
  hydrateMany(seqs: readonly number[]): Promise<LogEvent[]>;
  /**
   * The parsed source line event `seq` came from (null: no such event, or the line cannot be read):
   * for facts of the line an event does not carry, such as the version of the client that wrote it.
   */
  sourceLine(seq: number): Promise<Record<string, unknown> | null>;
  /**
   * Present when the session was loaded to be followed (LoadOptions.resumable) and its format reads
   * on (read-on.ts): the session with the whole lines appended to its last file since, read from
   * where this one stopped, exactly as a fresh load would read it; null when it must be loaded
   * again instead (files other than the last changed, a line the reader reports, a session read on
   * since). This session stays as it is, and is disposed as usual.
   */
  readOn?(): Promise<LoadedSession | null>;
  /**
   * Present when the load read the file's first lines only (LoadOptions.prefixBytes): the bytes
   * read and the file's size. The session is those lines as if the file ended there.
   */
  readonly prefix?: { readonly read: number; readonly total: number };
  /** Close the files kept open for re-reading (and remove a decompressed temporary copy). */
  dispose(): Promise<void>;
}
