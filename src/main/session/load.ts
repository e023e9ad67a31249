import { stat } from 'node:fs/promises';
import type { Diagnostic } from '../../shared/model/diagnostic';
import type { EventBody, LogEvent } from '../../shared/model/event';
import { detectFormat, importerById } from '../importers/registry';
import type { FileImport, FormatId, ImportSink, Importer } from '../importers/types';
import { readJsonl, readLineAt } from '../reader';
import type { JsonLine, ReaderOptions, ReadStats } from '../reader/types';
import { elideEvent } from './elide';
import type { LoadedSession, SessionFile } from './types';

/** Lines looked at before choosing an importer. */
const SNIFF_LINES = 16;

export interface LoadOptions extends ReaderOptions {
  /** Use this importer instead of detecting the format. */
  readonly format?: FormatId;
}

export class UnreadableSessionError extends Error {
  constructor(message: string, readonly diagnostics: readonly Diagnostic[]) {
    super(message);
  }
}

/**
 * Streams one session file through the reader and its importer into an in-memory event log. The
 * format is chosen from the first lines, so the file is read exactly once.
 */
class FileLoader {
  readonly diagnostics: Diagnostic[] = [];
  readonly events: LogEvent[];
  private pending: JsonLine[] = [];
  private fileImport: FileImport | null = null;
  importer: Importer | null;

  constructor(private readonly path: string, private readonly index: number, events: LogEvent[], forced: Importer | null) {
    this.events = events;
    this.importer = forced;
  }

  private sink(): ImportSink {
    const events = this.events;
    const path = this.path;
    const index = this.index;
    const diagnostics = this.diagnostics;
    return {
      emit(event: EventBody, from: JsonLine): number {
        const seq = events.length;
        const body = elideEvent(event);
        events.push({ ...body, seq, loc: { file: index, line: from.line, offset: from.offset, length: from.length } } as LogEvent);
        return seq;
      },
      diagnostic(d) {
        diagnostics.push({ ...d, file: d.file === undefined ? path : d.file, seqs: d.seqs ?? [] });
      },
      get nextSeq() {
        return events.length;
      },
    };
  }

  private start(): void {
    if (!this.importer) {
      const detected = detectFormat(this.pending.map((l) => l.value), this.path);
      if (!detected) return;
      this.importer = detected.importer;
    }
    this.fileImport = this.importer.open({ path: this.path, index: this.index }, this.sink());
    for (const l of this.pending) this.fileImport.line(l);
    this.pending = [];
  }

  line = (l: JsonLine): void => {
    if (this.fileImport) {
      this.fileImport.line(l);
      return;
    }
    this.pending.push(l);
    if (this.pending.length >= SNIFF_LINES) this.start();
  };

  finish(): void {
    if (!this.fileImport && this.pending.length > 0) this.start();
    if (!this.fileImport && this.pending.length > 0) {
      this.diagnostics.push({
        rule: 'FORMAT_UNKNOWN', severity: 'error', file: this.path, line: this.pending[0]?.line ?? null, seqs: [],
        message: `${this.path} is not a session format Palimpsest knows (Palimpsest v1, DeepSeek Harness). Pass --format to force one.`,
      });
    }
    this.fileImport?.end();
  }
}

export async function loadSession(path: string, options: LoadOptions = {}): Promise<LoadedSession> {
  const events: LogEvent[] = [];
  const forced = options.format ? importerById(options.format) : null;
  const loader = new FileLoader(path, 0, events, forced);
  const readDiagnostics: Diagnostic[] = [];
  let bytes = 0;
  const info = await stat(path).catch((err: unknown) => err as Error);
  if (!(info instanceof Error)) bytes = info.size;
  const stats: ReadStats = await readJsonl(path, loader.line, (d) => readDiagnostics.push(d), options);
  loader.finish();
  const diagnostics = [...readDiagnostics, ...loader.diagnostics];
  const fatal = diagnostics.find((d) => d.rule === 'READ_IO' || d.rule === 'FORMAT_UNKNOWN');
  if (fatal || !loader.importer) {
    const reason = fatal?.message ?? `${path} is empty: no line to read.`;
    throw new UnreadableSessionError(reason, diagnostics);
  }
  const importer = loader.importer;
  const files: SessionFile[] = [{ index: 0, path, format: importer.id, bytes, stats }];
  return {
    format: importer.id,
    files,
    events,
    diagnostics,
    async hydrate(seq: number): Promise<LogEvent> {
      const e = events[seq];
      if (!e) throw new RangeError(`No event at seq ${seq}.`);
      const file = files[e.loc.file];
      if (!file) return e;
      const value = await readLineAt(file.path, e.loc.offset, e.loc.length);
      if (!value) return e;
      const full = importer.rehydrate(e, value);
      return full ? ({ ...full, seq: e.seq, loc: e.loc } as LogEvent) : e;
    },
  };
}

/** Fill in the file and line of diagnostics that only cite seqs (replay's findings). */
export function locateDiagnostics(session: LoadedSession, ds: readonly Diagnostic[]): Diagnostic[] {
  return ds.map((d) => {
    if (d.file !== null || d.seqs.length === 0) return d;
    const e = session.events[d.seqs[0] as number];
    const file = e ? session.files[e.loc.file] : undefined;
    return e && file ? { ...d, file: file.path, line: e.loc.line } : d;
  });
}
