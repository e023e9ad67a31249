import { stat } from 'node:fs/promises';
import type { Diagnostic } from '../../shared/model/diagnostic';
import type { EventBody, LogEvent } from '../../shared/model/event';
import type { EventLog } from '../../shared/model/event-log';
import { IMPORTERS, detectFormat, importerById } from '../importers/registry';
import type { FileImport, FormatId, ImportSink, Importer, SessionImport } from '../importers/types';
import { LineSource, readJsonl } from '../reader';
import type { JsonLine, ReaderOptions } from '../reader/types';
import { CompactLogBuilder, type LineConversion } from './compact-log';
import { elideEvent } from './elide';
import { EventLocations } from './locations';
import type { LoadedSession, SessionFile } from './types';

/** Lines looked at before choosing an importer. */
const SNIFF_LINES = 16;

export interface LoadOptions extends Omit<ReaderOptions, 'onBytes'> {
  /** Use this importer instead of detecting the format. */
  readonly format?: FormatId;
  /** Called as the session's files are read, with the bytes read so far over all of them. */
  readonly onBytes?: (read: number) => void;
  /**
   * Keep the events a line gives by itself as the line's bytes, off the heap, and build them again
   * when read (CompactLog; docs/performance.md, "The compact log, stage 2b"). Off by default: it
   * holds a third of the heap but opens a long session no faster, and later questions that read
   * content parse their lines again. Unset, the environment variable PALIMPSEST_COMPACT_LOG=1 turns
   * it on, so that any command, or the whole test suite, runs over it.
   */
  readonly compactLog?: boolean;
}

export class UnreadableSessionError extends Error {
  constructor(message: string, readonly diagnostics: readonly Diagnostic[]) {
    super(message);
  }
}

/** The event log being built; importers write into it as their sink. */
class LogBuilder implements ImportSink {
  /** The array log, or null when the events go to `compact`. */
  private readonly events: LogEvent[] | null;
  private readonly compact: CompactLogBuilder | null;
  readonly locations = new EventLocations();
  readonly diagnostics: Diagnostic[] = [];
  /** The file being read, for events' locations and for diagnostics that do not name a file. */
  currentPath = '';
  currentIndex = 0;
  /** The chosen importer's `lineEvent`, once it is chosen: without it no line is kept as bytes. */
  lineEvent: LineConversion | null = null;

  constructor(compact: boolean) {
    this.events = compact ? null : [];
    this.compact = compact ? new CompactLogBuilder() : null;
  }

  emit(event: EventBody, from: JsonLine, fileIndex?: number, lineAlone?: boolean): number {
    // The importer hands the event over: it is completed in place rather than copied (hot path).
    const e = elideEvent(event);
    let seq: number;
    if (this.compact) {
      // An elided event is not what its line gives (the line holds the long text): it stays an object.
      const bytes = lineAlone === true && e === event && this.lineEvent !== null ? from.bytes : undefined;
      seq = bytes !== undefined ? this.compact.push(e, bytes, from.start, from.end) : this.compact.push(e, null);
    } else {
      const events = this.events as LogEvent[];
      seq = events.length;
      (e as EventBody & { seq: number }).seq = seq;
      events.push(e as LogEvent);
    }
    const file = fileIndex !== undefined && fileIndex >= 0 && fileIndex <= this.currentIndex ? fileIndex : this.currentIndex;
    this.locations.push(file, from.line, from.offset, from.length);
    return seq;
  }

  /** The finished log. */
  log(): EventLog {
    if (this.events) return this.events;
    // Without a lineEvent no line was kept as bytes, so the stand-in is never called.
    return (this.compact as CompactLogBuilder).finish(this.lineEvent ?? (() => null));
  }

  diagnostic(d: Parameters<ImportSink['diagnostic']>[0]): void {
    this.diagnostics.push({ ...d, file: d.file === undefined ? this.currentPath : d.file, seqs: d.seqs ?? [] });
  }

  get nextSeq(): number {
    return this.events ? this.events.length : (this.compact as CompactLogBuilder).length;
  }
}

/** Adapts importers without `openSession` to the session-level interface. */
function sessionImport(importer: Importer, sink: ImportSink): SessionImport {
  if (importer.openSession) return importer.openSession(sink);
  return { file: (f) => importer.open(f, sink), end: () => undefined };
}

/**
 * Reads one file of the session, choosing the importer from its first lines when none is chosen
 * yet, so every file is read exactly once.
 */
class FileReader {
  private pending: JsonLine[] = [];
  private fileImport: FileImport | null = null;

  constructor(
    private readonly path: string,
    private readonly index: number,
    private readonly choose: (first: readonly JsonLine[]) => SessionImport | null,
  ) {}

  private start(): void {
    const session = this.choose(this.pending);
    if (!session) return;
    this.fileImport = session.file({ path: this.path, index: this.index });
    for (const l of this.pending) this.fileImport.line(l);
    this.pending = [];
  }

  line = (l: JsonLine): void => {
    if (this.fileImport) {
      this.fileImport.line(l);
      return;
    }
    // A line's bytes are valid only during this call: the few lines held for sniffing keep a copy.
    this.pending.push(l.bytes ? { ...l, bytes: Buffer.from(l.bytes.subarray(l.start, l.end)), start: 0, end: (l.end ?? 0) - (l.start ?? 0) } : l);
    if (this.pending.length >= SNIFF_LINES) this.start();
  };

  /** Returns the first line number that no importer understood, or null. */
  finish(): number | null {
    if (!this.fileImport && this.pending.length > 0) this.start();
    if (!this.fileImport) return this.pending[0]?.line ?? null;
    this.fileImport.end();
    return null;
  }
}

async function sizeOf(path: string): Promise<number> {
  const info = await stat(path).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
  return info instanceof Error ? 0 : info.size;
}

/** Files of a directory session, from the first importer that claims the directory. */
async function claimDirectory(path: string, forced: Importer | null): Promise<{ importer: Importer; files: string[] } | null> {
  for (const importer of forced ? [forced] : IMPORTERS) {
    const files = await importer.sessionFiles?.(path, true);
    if (files && files.length > 0) return { importer, files };
  }
  return null;
}

/**
 * Streams a session — one file, a file with companion files, or a session directory — through the
 * reader and its importer into an in-memory event log (long texts elided, re-read on demand).
 */
export async function loadSession(path: string, options: LoadOptions = {}): Promise<LoadedSession> {
  const b = new LogBuilder(options.compactLog ?? process.env.PALIMPSEST_COMPACT_LOG === '1');
  const sink: ImportSink = b;
  let importer: Importer | null = options.format ? importerById(options.format) : null;
  let session: SessionImport | null = null;
  const files: SessionFile[] = [];

  const info = await stat(path).catch(() => null);
  if (!info) throw new UnreadableSessionError(`${path}: no such file or directory`, []);
  let paths = [path];
  if (info.isDirectory()) {
    const claimed = await claimDirectory(path, importer);
    if (!claimed) throw new UnreadableSessionError(`${path} is a directory that no importer recognises as one session; inspect it to list the sessions inside`, []);
    importer = claimed.importer;
    paths = claimed.files;
  }

  const choose = (first: readonly JsonLine[]): SessionImport | null => {
    if (!session) {
      if (!importer) importer = detectFormat(first.map((l) => l.value), path)?.importer ?? null;
      if (!importer) return null;
      b.lineEvent = importer.lineEvent?.bind(importer) ?? null;
      session = sessionImport(importer, sink);
    }
    return session;
  };

  let readSoFar = 0;
  for (let i = 0; i < paths.length; i++) {
    const p = paths[i] as string;
    b.currentPath = p;
    b.currentIndex = i;
    const reader = new FileReader(p, i, choose);
    const before = readSoFar;
    const onBytes = options.onBytes;
    const stats = await readJsonl(p, reader.line, (d) => b.diagnostics.push(d), {
      ...options,
      onBytes: onBytes ? (n) => onBytes((readSoFar = before + n)) : undefined,
    });
    const unknownAt = reader.finish();
    if (unknownAt !== null) {
      b.diagnostics.push({
        rule: 'FORMAT_UNKNOWN', severity: 'error', file: p, line: unknownAt, seqs: [],
        message: `${p} is not a session format Palimpsest knows (Palimpsest v1, DeepSeek Harness). Pass --format to force one.`,
      });
    }
    files.push({ index: i, path: p, format: (importer as Importer | null)?.id ?? 'palimpsest', bytes: stats.bytes > 0 ? await sizeOf(p) : 0, stats });
    // A file's own importer may name companion files (Claude Code subagents) once it is known.
    if (i === 0 && !info.isDirectory() && importer) {
      const more = await (importer as Importer).sessionFiles?.(path, false);
      if (more) paths = [path, ...more.filter((m) => m !== path)];
    }
  }
  (session as SessionImport | null)?.end();

  const fatal = b.diagnostics.find((d) => (d.rule === 'READ_IO' || d.rule === 'FORMAT_UNKNOWN') && d.file === path);
  if (fatal || !importer) {
    throw new UnreadableSessionError(fatal?.message ?? `${path} is empty: no line to read.`, b.diagnostics);
  }
  const chosen: Importer = importer;
  const events = b.log();
  const locations = b.locations;
  locations.trim();
  const sources = files.map((f) => new LineSource(f.path));
  // The event as its importer reads the re-read line (long texts whole), or as kept when the line is gone.
  const whole = (e: LogEvent, value: Record<string, unknown> | null): LogEvent => {
    if (!value) return e;
    const full = chosen.rehydrate(e, value);
    return full ? ({ ...full, seq: e.seq } as LogEvent) : e;
  };
  // `hydrate` of each seq, in order; lines close together in a file are read at once.
  const hydrateMany = async (seqs: readonly number[]): Promise<LogEvent[]> => {
    const out: LogEvent[] = [];
    const byFile = new Map<number, { at: number; offset: number; length: number }[]>();
    for (const seq of seqs) {
      const e = seq >= 0 ? events.at(seq) : undefined;
      const loc = locations.of(seq);
      if (!e || !loc) throw new RangeError(`No event at seq ${seq}.`);
      out.push(e);
      if (!sources[loc.file]) continue;
      let wanted = byFile.get(loc.file);
      if (!wanted) byFile.set(loc.file, (wanted = []));
      wanted.push({ at: out.length - 1, offset: loc.offset, length: loc.length });
    }
    for (const [file, wanted] of byFile) {
      const values = await (sources[file] as LineSource).readMany(wanted);
      wanted.forEach((w, i) => {
        out[w.at] = whole(out[w.at] as LogEvent, values[i] ?? null);
      });
    }
    return out;
  };
  return {
    format: chosen.id,
    files,
    events,
    diagnostics: b.diagnostics,
    loc: (seq) => locations.of(seq),
    hydrate: async (seq) => (await hydrateMany([seq]))[0] as LogEvent,
    hydrateMany,
    async dispose(): Promise<void> {
      await Promise.all(sources.map((s) => s.dispose()));
    },
  };
}

/** Fill in the file and line of diagnostics that only cite seqs (replay's findings). */
export function locateDiagnostics(session: LoadedSession, ds: readonly Diagnostic[]): Diagnostic[] {
  return ds.map((d) => {
    if (d.file !== null || d.seqs.length === 0) return d;
    const loc = session.loc(d.seqs[0] as number);
    const file = loc ? session.files[loc.file] : undefined;
    return loc && file ? { ...d, file: file.path, line: loc.line } : d;
  });
}
