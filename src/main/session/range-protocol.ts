import type { RangeResult } from './range-load';

/** The key of a range worker's `workerData`, holding its task: without it the module does nothing. */
export const RANGE_WORKER_MARK = 'palimpsestRangeWorker';

/** What a range worker posts: progress (bytes of its range read so far), then its one result. */
export type RangeWorkerMessage =
  { readonly type: 'progress'; readonly read: number } | { readonly type: 'result'; readonly result: RangeResult };
