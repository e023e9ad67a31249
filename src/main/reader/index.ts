// The reader's public face: importers use these and nothing deeper.
export type { DiagnosticSink, JsonLine, JsonLineReceiver, OnJsonLine, ReaderOptions, ReadStats } from './types';
export { DEFAULT_CHUNK_BYTES, RangeReader, readJsonl, readJsonlChunks, readLineAt } from './jsonl';
export { DEFAULT_MAX_LINE_BYTES, LineSplitter } from './lines';
export type { LineCallback, LineReceiver, LineSplitterOptions, LongLineCallback } from './lines';
export { MAX_DIAGNOSTICS_PER_RULE } from './report';
export { isZstdPath } from './zstd';
export { LineSource } from './source';
