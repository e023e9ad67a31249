import { fileURLToPath } from 'node:url';
import type { Diagnostic } from '../../../src/shared/model/diagnostic';
import { readJsonl, readJsonlChunks } from '../../../src/main/reader';
import type { JsonLine, ReaderOptions, ReadStats } from '../../../src/main/reader';

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
  const stats = await readJsonl(path, (l) => lines.push(kept(l)), (d) => diags.push(d), opts);
  return { lines, diags, stats };
}

export function readChunks(chunks: Iterable<Uint8Array>, file: string, opts?: ReaderOptions): ReadResult {
  const lines: JsonLine[] = [];
  const diags: Diagnostic[] = [];
  const stats = readJsonlChunks(chunks, file, (l) => lines.push(kept(l)), (d) => diags.push(d), opts);
  return { lines, diags, stats };
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
