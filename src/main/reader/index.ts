// The reader's public face: importers use these and nothing deeper.
export type { JsonLine, ReaderOptions, ReadStats } from './types';
export { RangeReader, readJsonl, readJsonlChunks, readLineAt } from './jsonl';
export { DEFAULT_MAX_LINE_BYTES, LineSplitter } from './lines';
export { isZstdPath } from './zstd';
export { LineSource } from './source';
