// The reader's public face: importers use these and nothing deeper.
export { RangeReader, readJsonl } from './jsonl';
export { DEFAULT_MAX_LINE_BYTES, LineSplitter } from './lines';
export { isZstdPath } from './zstd';
export { LineSource } from './source';
