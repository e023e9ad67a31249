import type { Diagnostic } from '../../shared/model/diagnostic';
import type { EventBody } from '../../shared/model/event';
import type { JsonLine } from '../reader/types';

export type FormatId = 'palimpsest' | 'dsh' | 'claude-code' | 'codex' | 'rind' | 'cosh' | 'gemini-cli' | 'opencode';

/** What an importer hands to the event log for each event it makes. */
export interface ImportSink {
  /**
   * Append one canonical event made from `from` (the line it came from). Returns the seq the log
   * gave it, so importers can translate the harness's own references into canonical seqs.
   * `fileIndex` names the file `from` belongs to when it is not the file being read (a Rind tool
   * result whose text lives in tool_calls.jsonl): the event is re-read from there.
   * `lineAlone` true: the event is exactly what the importer's `lineEvent(from.value)` makes, but
   * for its seq — so the log may keep the line's bytes (`from.bytes`) instead of the event and
   * make it again when asked (a compact log, docs/performance.md). Only say so when the import
   * changed nothing the line alone does not give (no seq rewritten, no reference translated).
   * Such an event is made from the line's own parse and is the log's to change: the log may cut
   * its long texts where they stand, and sets its seq. An importer keeps no reference to it.
   *
   * Why it is a parameter of every sink and not a capability apart (a separate sink interface
   * that only the compact log implements): it is a hint any sink may ignore (the array log does),
   * an importer that never keeps lines just leaves it out, and `emit` runs once per event on the
   * load's hottest path, which a second method would split in two in the importer that keeps lines.
   */
  emit(event: EventBody, from: JsonLine, fileIndex?: number, lineAlone?: boolean): number;
  /** Report a finding about the input; loading goes on. */
  diagnostic(d: Omit<Diagnostic, 'file'> & { file?: string | null }): void;
  /** The number of events emitted so far (the next seq). */
  readonly nextSeq: number;
}

/** One file's import in progress. Importers keep their cross-line state here. */
export interface FileImport {
  /** Map one parsed line into zero or more canonical events. Never throws for bad content. */
  line(line: JsonLine): void;
  /** The file ended: flush pending state (an open request, an unfinished compaction). */
  end(): void;
  /**
   * Takes `events` events that another thread imported from the lines that follow, with nothing
   * to report (a parallel load of a Palimpsest file; `anchor` is the seq the first of those lines
   * would carry by the seqs the lines wrote, null when none wrote one). False when this import
   * cannot go on as if it had read them: the caller then reads those lines itself.
   * Optional, so only an import whose state after a range is known from the range alone (the
   * Palimpsest importer's) offers it; no other importer needs to know about parallel loads.
   */
  adopt?(events: number, anchor: number | null): boolean;
}

/** The import of a session that spans several files (Rind's folder, Claude Code's subagent files). */
export interface SessionImport {
  /** Start importing the next file of the session; files come in the order `sessionFiles` gave. */
  file(file: FileInfo): FileImport;
  /** Every file was read: resolve what needed all of them (links across files, a DAG). */
  end(): void;
}

export interface FileInfo {
  /** Path as the user gave it (after resolving). */
  readonly path: string;
  /** Index of this file among the session's files (SourceLoc.file). */
  readonly index: number;
}

/**
 * A session kept in something other than lines (a database, a tree of JSON files), copied as JSON
 * lines into a private temporary file the load then reads like any session file; `dispose`
 * removes the copy. Or why the path holds no session to read (several sessions and none chosen).
 */
export type Materialised =
  | {
      readonly path: string;
      /** What the session's files and findings are shown as (the copy is temporary): the source and the session. */
      readonly label: string;
      dispose(): Promise<void>;
    }
  | { readonly error: string };

export interface Importer {
  readonly id: FormatId;
  readonly label: string;
  /**
   * Confidence in [0, 1] that these first parsed lines (and the path) are this format. Sniffing
   * looks at a few lines only and never throws.
   */
  sniff(first: readonly Record<string, unknown>[], path: string): number;
  /** Start importing one file into `sink`. */
  open(file: FileInfo, sink: ImportSink): FileImport;
  /**
   * The files that make up the session at `path`, in read order, when this importer claims it: a
   * directory (a Rind session folder) or a file with companions (Claude Code's subagent files).
   * For a file it is asked only after sniffing chose this importer. null: not claimed.
   */
  sessionFiles?(path: string, isDirectory: boolean): Promise<string[] | null>;
  /** For sessions of several files: one import sharing state across them. Without it, `open` is used per file. */
  openSession?(sink: ImportSink): SessionImport;
  /**
   * For a harness that keeps sessions in a database or a tree of files: when `path` is one, the
   * session `session` (or the only one there) as a JSON-lines copy (Materialised); null when
   * `path` is not this harness's. Asked before anything is read, so it must be quick to say no.
   */
  materialise?(path: string, isDirectory: boolean, session: string | undefined): Promise<Materialised | null>;
  /**
   * Rebuild the full content of an event whose long texts were elided in memory, from its source
   * line. `event` is the in-memory (elided) event; the result has the same shape with full text.
   * Returns null when the line no longer yields that event (the file changed on disk).
   */
  rehydrate(event: EventBody, line: Record<string, unknown>): EventBody | null;
  /**
   * The event a parsed line makes by itself, as `emit` received it for the lines it flagged
   * `lineAlone` (a compact log rebuilds those events with it); null when the line makes none.
   * Importers that never flag a line leave it out.
   */
  lineEvent?(line: Record<string, unknown>): EventBody | null;
}
