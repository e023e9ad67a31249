import type { EvalJob, PalimpsestApi } from '../../shared/api/contract';
import { followWatch, WAIT_MS, type WatchListener } from '../jobs/follow';

/** Follows one eval job to its end over `watchEval` (../jobs/follow.ts). */
export type EvalJobListener = WatchListener<EvalJob>;

export function followEval(api: PalimpsestApi, jobId: string, listener: EvalJobListener): Promise<void> {
  return followWatch((after) => api.watchEval({ jobId, after, waitMs: WAIT_MS }), listener);
}
