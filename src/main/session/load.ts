import { stat } from 'node:fs/promises';
import type { Diagnostic } from '../../shared/model/diagnostic';
import type { LogEvent } from '../../shared/model/event';
import { kindOf, NotRegularFile, whyUnreadable } from '../files/open-regular';
import { IMPORTERS, detectFormat, importerById } from '../importers/registry';
import type { FileImport, FileInfo, FormatId, ImportSink, Importer, SessionImport } from '../importers/types';
import { isZstdPath, LineSource, RangeReader, readJsonl } from '../reader';
import { palimpsestImporter } from '../importers/palimpsest';
import { isJsonDocument, readJsonDocument } from '../reader/document';
import { JsonlPipeline } from '../reader/pipeline';
import { keepShape } from '../reader/shapes';
import type { JsonLine, JsonLineReceiver, ReadStats } from '../reader/types';
import { LogBuilder } from './log-builder';
import { RangeProgress, readInRanges } from './parallel-load';
import { chooseStrategy, SNIFF_LINES, staysCompact, type LoadOptions } from './strategy';
import type { LoadedSession, SessionFile } from './types';
import { nothingToRead } from './unreadable';
import { UnforkableState } from './fork-state';
import { endsWithWholeLine, READ_ON_FORMATS, ReadOn } from './read-on';
import { prefixEnd } from './prefix';

export type { LoadOptions } from './strategy';

export class UnreadableSessionError extends Error {
  /** `path`: the file or directory that could not be read, when one is known. */
  constructor(
    message: string,
    readonly diagnostics: readonly Diagnostic[],
    readonly path?: string,
  ) {
    super(message);
  }
}

/** The session-level interface of an importer without `openSession`: each file on its own. */
class FilesApart implements SessionImport {
  constructor(
    private readonly importer: Importer,
    private readonly sink: ImportSink,
  ) {}

  file(f: FileInfo): FileImport {
    return this.importer.open(f, this.sink);
  }

  end(): void {}
}

/** Adapts importers without `openSession` to the session-level interface. */
function sessionImport(importer: Importer, sink: ImportSink): SessionImport {
  return importer.openSession ? importer.openSession(sink) : new FilesApart(importer, sink);
}

/** The line without the bytes it was parsed from (as lines read on are: read-on.ts). */
function bareLine(l: JsonLine): JsonLine {
  return { value: l.value, line: l.line, offset: l.offset, length: l.length };
}

/**
 * Reads one file of the session, choosing the importer from its first lines when none is chosen
 * yet, so every file is read exactly once.
 */
class FileReader implements JsonLineReceiver {
  private pending: JsonLine[] = [];
  private fileImport: FileImport | null = null;
  /** Whether lines go to the import without their bytes (see `start`). */
  private bare = false;

  constructor(
    private readonly path: string,
    private readonly index: number,
    private readonly choose: (first: readonly JsonLine[]) => SessionImport | null,
    /** Whether the import is kept open after the load (LoadOptions.resumable) into an array log; asked once the importer is chosen. */
    private readonly keptOpen: () => boolean = () => false,
  ) {}

  private start(): void {
    const session = this.choose(this.pending);
    if (!session) return;
    // An import kept open to read on (read-on.ts) keeps its last line as state (the line its end
    // writes from): with its bytes, that holds the reader's whole chunk for as long as the session
    // is followed. Only the compact log reads a line's bytes, and it never reads on.
    this.bare = this.keptOpen();
    this.fileImport = session.file({ path: this.path, index: this.index });
    for (const l of this.pending) this.fileImport.line(this.bare ? bareLine(l) : l);
    this.pending = [];
  }

  /** A method, not an arrow per instance: see JsonLineReceiver. */
  line(l: JsonLine): void {
    if (this.fileImport) {
      this.fileImport.line(this.bare ? bareLine(l) : l);
      return;
    }
    // A line's bytes are valid only during this call: the few lines held for sniffing keep a copy.
    this.pending.push(
      l.bytes ? { ...l, bytes: Buffer.from(l.bytes.subarray(l.start, l.end)), start: 0, end: (l.end ?? 0) - (l.start ?? 0) } : l,
    );
    if (this.pending.length >= SNIFF_LINES) this.start();
  }

  /** The file's import, once its importer is chosen. */
  get opened(): FileImport | null {
    return this.fileImport;
  }

  /** Takes events another thread imported from the lines that follow (parallel load); false when the import cannot. */
  adopt(events: number, anchor: number | null): boolean {
    return this.fileImport?.adopt?.(events, anchor) ?? false;
  }

  /** The file was read: chooses the importer from the lines held, when fewer than SNIFF_LINES came. */
  settle(): void {
    if (!this.fileImport && this.pending.length > 0) this.start();
  }

  /** Returns the first line number that no importer understood, or null. */
  finish(): number | null {
    this.settle();
    if (!this.fileImport) return this.pending[0]?.line ?? null;
    this.fileImport.end();
    return null;
  }
}

let warmed = false;

/**
 * Keeps one idle object of each class a load makes afresh per file (see keepShape for why), once
 * per program, before the first load: the file reader, the reader's pipeline (its decoder,
 * splitter and report), the Palimpsest file import (on a stand-in sink: it never reads a line) and
 * both forms of the log builder (with their locations, compact log builder, arena and heads).
 */
function warmShapes(): void {
  if (warmed) return;
  warmed = true;
  keepShape(new FileReader('', 0, () => null));
  keepShape(new JsonlPipeline('', { line: () => undefined }, () => undefined, {}, false));
  keepShape(palimpsestImporter.open({ path: '', index: 0 }, { emit: () => 0, diagnostic: () => undefined, nextSeq: 0 }));
  keepShape(new LogBuilder(false));
  keepShape(new LogBuilder(true));
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
  const copy = await materialised(path, options);
  if (!copy) return loadFile(path, options);
  try {
    // A copy is made once: it does not read on, and it is read whole (a first view is for the
    // files a user opens as they are).
    const { readOn: _, ...session } = await loadFile(copy.path, { ...options, prefixBytes: undefined, format: copy.format });
    // The copy goes with the session: its files and findings are shown as the source they came from.
    const shown = (file: string | null): string | null => (file === copy.path ? copy.label : file);
    return {
      ...session,
      files: session.files.map((f) => ({ ...f, path: shown(f.path) ?? f.path })),
      diagnostics: session.diagnostics.map((d) => ({ ...d, file: shown(d.file) })),
      async dispose(): Promise<void> {
        await session.dispose();
        await copy.dispose();
      },
    };
  } catch (err) {
    await copy.dispose();
    throw err;
  }
}

/**
 * A session kept in a database or a tree of files (Importer.materialise), as its private JSON-lines
 * copy; null when `path` is a session file or folder read as it is.
 */
async function materialised(
  path: string,
  options: LoadOptions,
): Promise<{ path: string; label: string; format: FormatId; dispose(): Promise<void> } | null> {
  const info = await stat(path).catch(() => null);
  if (!info || (!info.isFile() && !info.isDirectory())) return null;
  const forced = options.format ? importerById(options.format) : null;
  for (const importer of forced ? [forced] : IMPORTERS) {
    const made = await importer.materialise?.(path, info.isDirectory(), options.session);
    if (!made) continue;
    if ('error' in made) throw new UnreadableSessionError(made.error, [], path);
    return { path: made.path, label: made.label, format: importer.id, dispose: () => made.dispose() };
  }
  if (options.session !== undefined)
    throw new UnreadableSessionError(`--session picks a session of a database or a storage folder; ${path} is neither`, [], path);
  return null;
}

async function loadFile(path: string, options: LoadOptions): Promise<LoadedSession> {
  warmShapes();
  let importer: Importer | null = options.format ? importerById(options.format) : null;
  let session: SessionImport | null = null;
  const files: SessionFile[] = [];

  const info = await stat(path).catch((err: unknown) => {
    throw new UnreadableSessionError(whyUnreadable(path, err), [], path);
  });
  // A FIFO or a device is never opened: reading one would wait, or never end.
  const kind = info.isDirectory() ? null : kindOf(info);
  if (kind !== null) throw new UnreadableSessionError(new NotRegularFile(path, kind).message, [], path);
  // A first view reads the file's first lines only (prefix.ts), on this thread: its read ends at `cut`.
  const cut = options.prefixBytes !== undefined && !info.isDirectory() ? await prefixEnd(path, info.size, options.prefixBytes) : null;
  // How this load reads (which log; byte ranges on other threads, already started): strategy.ts.
  const progress = new RangeProgress(options.onBytes);
  const strategy = await chooseStrategy(
    { path, isDirectory: info.isDirectory(), size: cut ?? info.size },
    cut === null ? options : { ...options, threads: 1 },
    (k, n) => progress.report(k, n),
  );
  // An aborted load stops after the chunk it is reading: the throw closes the file and stops the
  // workers (their own progress, heard on another path, never throws).
  const signal = options.signal;
  const stopIfAborted = (): void => signal?.throwIfAborted();
  const b = new LogBuilder(strategy.kind !== 'array');
  const sink: ImportSink = b;
  let paths = [path];
  if (info.isDirectory()) {
    const claimed = await claimDirectory(path, importer);
    if (!claimed)
      throw new UnreadableSessionError(
        `${path} is a directory that no importer recognises as one session; inspect it to list the sessions inside`,
        [],
        path,
      );
    importer = claimed.importer;
    paths = claimed.files;
  }

  const choose = (first: readonly JsonLine[]): SessionImport | null => {
    if (!session) {
      if (!importer)
        importer =
          detectFormat(
            first.map((l) => l.value),
            path,
          )?.importer ?? null;
      if (!importer) return null;
      b.lineEvent = importer.lineEvent?.bind(importer) ?? null;
      if (b.compactLog && !staysCompact(strategy, b.lineEvent !== null)) b.useArrayLog();
      session = sessionImport(importer, sink);
    }
    return session;
  };

  let readSoFar = 0;
  for (let i = 0; i < paths.length; i++) {
    const p = paths[i] as string;
    b.currentPath = p;
    b.currentIndex = i;
    const reader = new FileReader(p, i, choose, () => options.resumable === true && !b.compactLog);
    const before = readSoFar;
    const onBytes = options.onBytes;
    // The reader's findings of this file: a file with any is not read on (read-on.ts).
    let readerFound = 0;
    const onDiagnostic = (d: Diagnostic): void => {
      readerFound++;
      b.diagnostics.push(d);
    };
    let plainLines = false;
    let stats: ReadStats;
    let ranges: SessionFile['ranges'];
    stopIfAborted();
    if (i === 0 && cut !== null) {
      const prefix = await RangeReader.open(p, reader, onDiagnostic, options);
      try {
        await prefix.read(0, cut, (n) => {
          stopIfAborted();
          onBytes?.(n);
        });
      } catch (err) {
        await prefix.end();
        throw err;
      }
      stats = await prefix.end();
    } else if (i === 0 && strategy.kind === 'ranges') {
      const isPalimpsest = (): boolean => (importer as Importer | null)?.id === 'palimpsest' && b.lineEvent !== null;
      const read = await readInRanges(
        p,
        strategy.ranges,
        strategy.jobs,
        reader,
        onDiagnostic,
        options,
        isPalimpsest,
        (r, lineBase) => {
          if (!reader.adopt(r.events, r.anchor)) return false;
          b.adopt(r.part, lineBase);
          return true;
        },
        signal
          ? {
              report: (k: number, n: number) => {
                stopIfAborted();
                progress.report(k, n);
              },
            }
          : progress,
      );
      stats = read.stats;
      ranges = { count: strategy.ranges.length, byWorkers: strategy.ranges.length - 1 - read.readHere.length, readHere: read.readHere };
      readSoFar = stats.bytes;
    } else if (await isJsonDocument(p)) {
      stats = await readJsonDocument(p, reader, onDiagnostic);
    } else {
      plainLines = !isZstdPath(p);
      stats = await readJsonl(p, reader, onDiagnostic, {
        ...options,
        onBytes:
          onBytes || signal
            ? (n) => {
                stopIfAborted();
                onBytes?.((readSoFar = before + n));
              }
            : undefined,
      });
    }
    // A file's own importer may name companion files (Claude Code subagents) once it is known.
    const companions = async (): Promise<string[]> => {
      const more = await (importer as Importer).sessionFiles?.(path, false);
      return more ? [path, ...more.filter((m) => m !== path)] : [path];
    };
    reader.settle();
    // A prefix is the first file alone: its companions are read with the whole session.
    if (i === 0 && !info.isDirectory() && importer && cut === null) paths = await companions();
    const open = reader.opened;
    if (
      options.resumable === true &&
      cut === null &&
      i === paths.length - 1 &&
      !info.isDirectory() &&
      importer &&
      READ_ON_FORMATS.has(importer.id) &&
      session &&
      open &&
      !b.compactLog &&
      plainLines &&
      readerFound === 0 &&
      (await endsWithWholeLine(p, stats.bytes))
    ) {
      const chosen: Importer = importer;
      const read = new ReadOn({
        importer: chosen,
        builder: b,
        session,
        file: open,
        files: [...files, { index: i, path: p, format: chosen.id, bytes: stats.bytes, stats }],
        listFiles: companions,
        finish: (log, all) => made(path, log, all, chosen),
      });
      try {
        return read.session();
      } catch (err) {
        // An import that cannot be copied is ended as usual, and the session does not read on.
        if (!(err instanceof UnforkableState)) throw err;
      }
    }
    const unknownAt = reader.finish();
    if (unknownAt !== null) {
      b.diagnostics.push({
        rule: 'FORMAT_UNKNOWN',
        severity: 'error',
        file: p,
        line: unknownAt,
        seqs: [],
        message: `${p} is not a session format Palimpsest knows (${IMPORTERS.map((x) => x.label).join(', ')}): its first records, from line ${unknownAt}, are JSON objects none of them reads. Pass --format to force one.`,
      });
    }
    files.push({
      index: i,
      path: p,
      format: (importer as Importer | null)?.id ?? 'palimpsest',
      // A prefix's bytes are those read: the file is longer.
      bytes: stats.bytes > 0 ? (i === 0 && cut !== null ? stats.bytes : await sizeOf(p)) : 0,
      stats,
      ...(ranges ? { ranges } : {}),
    });
  }
  stopIfAborted();
  (session as SessionImport | null)?.end();
  const loaded = made(path, b, files, importer);
  return cut === null ? loaded : { ...loaded, prefix: { read: cut, total: info.size } };
}

/** The loaded session, from the log of a finished import (or an import that found nothing to read: thrown). */
function made(path: string, b: LogBuilder, files: readonly SessionFile[], importer: Importer | null): LoadedSession {
  const fatal = b.diagnostics.find((d) => (d.rule === 'READ_IO' || d.rule === 'FORMAT_UNKNOWN') && d.file === path);
  if (fatal || !importer) {
    throw new UnreadableSessionError(fatal?.message ?? nothingToRead(path, files[0]?.stats, b.diagnostics), b.diagnostics, path);
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
      // A log may hold the line itself (the compact log: the bytes the file had when it was read).
      const kept = events.lineValue?.(seq) ?? null;
      out.push(kept ? whole(e, kept) : e);
      if (kept || !sources[loc.file]) continue;
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
    async sourceLine(seq: number): Promise<Record<string, unknown> | null> {
      const kept = events.lineValue?.(seq) ?? null;
      if (kept) return kept;
      const loc = locations.of(seq);
      const source = loc ? sources[loc.file] : undefined;
      return loc && source ? source.read(loc.offset, loc.length) : null;
    },
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
