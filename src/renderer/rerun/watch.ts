import type { PalimpsestApi, RerunJob } from '../../shared/api/contract';
import { followWatch, WAIT_MS, type WatchListener } from '../jobs/follow';

/** Follows one re-run job to its end over `watchRerun` (../jobs/follow.ts). */
export type JobListener = WatchListener<RerunJob>;

export function followJob(api: PalimpsestApi, jobId: string, listener: JobListener): Promise<void> {
  return followWatch((after) => api.watchRerun({ jobId, after, waitMs: WAIT_MS }), listener);
}
