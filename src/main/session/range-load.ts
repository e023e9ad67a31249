import { palimpsestImporter } from '../importers/palimpsest';
import { PalimpsestRangeImport } from '../importers/palimpsest-range';
import { RangeReader } from '../reader';
import type { ReaderOptions } from '../reader/types';
import { LogBuilder, type LogPart } from './log-builder';

/** One byte range of a Palimpsest file to read off the main thread: [start, end), starting at a line start past the first line. */
export interface RangeTask {
  readonly path: string;
  readonly start: number;
  readonly end: number;
  readonly maxLineBytes?: number;
  readonly chunkBytes?: number;
}

/** A range read: its part of the log, or why the main thread must read it itself. */
export type RangeResult =
  | {
      readonly ok: true;
      readonly part: LogPart;
      /** Events, lines and bytes read (each line an event: any other line refuses the range). */
      readonly events: number;
      readonly lines: number;
      readonly bytes: number;
      /** The seq the range's first line would carry by the seqs its lines wrote; null when none wrote one. */
      readonly anchor: number | null;
    }
  | { readonly ok: false; readonly why: string };

/**
 * Reads one byte range of a Palimpsest session file into a compact log part, as the main thread's
 * load would have read those lines, or refuses it at the first thing a sequential load would
 * report or treat in a way that depends on the lines before (PalimpsestRangeImport). Lines are
 * numbered from 1 in the range; offsets are the file's.
 */
export async function loadRange(task: RangeTask, onBytes?: (read: number) => void): Promise<RangeResult> {
  const log = new LogBuilder(true);
  log.lineEvent = (value) => palimpsestImporter.lineEvent?.(value) ?? null;
  log.currentPath = task.path;
  const range = new PalimpsestRangeImport(log);
  const opts: ReaderOptions = { maxLineBytes: task.maxLineBytes, chunkBytes: task.chunkBytes };
  const reader = await RangeReader.open(
    task.path,
    range,
    (d) => range.refuse(`the reader reports ${d.rule} at line ${d.line ?? '?'} of the range`),
    opts,
    {
      line: 1,
      offset: task.start,
    },
  );
  await reader.read(task.start, task.end, onBytes, () => !range.open);
  const stats = await reader.end();
  if (log.diagnostics.length > 0) range.refuse(`the import reports ${log.diagnostics[0]?.rule ?? 'a finding'}`);
  if (stats.bytes !== task.end - task.start)
    range.refuse(`the range has ${stats.bytes} bytes, not ${task.end - task.start}: the file changed`);
  const s = range.summary();
  if (s.refusal !== null) return { ok: false, why: s.refusal };
  return { ok: true, part: log.export(), events: s.events, lines: stats.lines, bytes: stats.bytes, anchor: s.anchor };
}

/** The buffers a result hands over without a copy. */
export function transferables(r: RangeResult): ArrayBuffer[] {
  if (!r.ok) return [];
  const { log, locations } = r.part;
  const views: ArrayBufferView[] = [
    log.kinds,
    log.refs,
    log.arena.chunkOf,
    log.arena.offsetOf,
    log.arena.lengthOf,
    log.items.index,
    log.calls.index,
    log.calls.usage,
    locations.files,
    locations.lines,
    locations.offsets,
    locations.lengths,
    ...log.arena.chunks,
  ];
  if (log.branches) views.push(log.branches);
  const out = new Set<ArrayBuffer>();
  for (const v of views) if (v.buffer instanceof ArrayBuffer && v.buffer.byteLength > 0) out.add(v.buffer);
  return [...out];
}
