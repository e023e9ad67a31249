import { fileURLToPath } from 'node:url';
import type { Diagnostic } from '../../../src/shared/model/diagnostic';
import { isZstdPath, readJsonl } from '../../../src/main/reader';
import { JsonlPipeline } from '../../../src/main/reader/pipeline';
import { LineSource } from '../../../src/main/reader/source';
import type { JsonLine, ReaderOptions, ReadStats } from '../../../src/main/reader/types';

export const BAD_INPUT = fileURLToPath(new URL('../../../fixtures/bad-input/', import.meta.url));
export const SAMPLES = fileURLToPath(new URL('../../../fixtures/reader-samples/', import.meta.url));

export interface ReadResult {
  lines: JsonLine[];
  diags: Diagnostic[];
  stats: ReadStats;
}

/** A delivered line without its bytes: they are valid only during the callback (JsonLine.bytes). */
const kept = (l: JsonLine): JsonLine => ({ value: l.value, line: l.line, offset: l.offset, length: l.length });

export async function readAll(path: string, opts?: ReaderOptions): Promise<ReadResult> {
  const lines: JsonLine[] = [];
  const diags: Diagnostic[] = [];
  const stats = await readJsonl(
    path,
    (l) => lines.push(kept(l)),
    (d) => diags.push(d),
    opts,
  );
  return { lines, diags, stats };
}

export function readChunks(chunks: Iterable<Uint8Array>, file: string, opts?: ReaderOptions): ReadResult {
  const lines: JsonLine[] = [];
  const diags: Diagnostic[] = [];
  // The reader's own pipeline, fed the chunks as given: cuts fall wherever a test puts them.
  const pipeline = new JsonlPipeline(
    file,
    (l) => lines.push(kept(l)),
    (d) => diags.push(d),
    opts ?? {},
    isZstdPath(file),
  );
  for (const chunk of chunks) if (!pipeline.push(chunk)) break;
  return { lines, diags, stats: pipeline.end() };
}

/** One line re-read by the offsets the reader gave, as a session re-reads it (LineSource). */
export async function readLineAt(path: string, offset: number, length: number): Promise<Record<string, unknown> | null> {
  const source = new LineSource(path);
  try {
    return await source.read(offset, length);
  } finally {
    await source.dispose();
  }
}

/** `bytes` cut into consecutive pieces whose sizes cycle through `sizes` (each ≥ 1). */
export function* split(bytes: Uint8Array, sizes: readonly number[]): Generator<Uint8Array> {
  let at = 0;
  for (let i = 0; at < bytes.length; i++) {
    const n = Math.max(1, sizes[i % sizes.length] ?? 1);
    yield bytes.subarray(at, at + n);
    at += n;
  }
}

export type Brief = [rule: string, severity: Diagnostic['severity'], line: number | null];

export function brief(ds: readonly Diagnostic[]): Brief[] {
  return ds.map((d) => [d.rule, d.severity, d.line]);
}
