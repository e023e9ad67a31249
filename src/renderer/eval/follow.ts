import type { ApiError, EvalJob, PalimpsestApi } from '../../shared/api/contract';

/**
 * Follows one eval job to its end over `watchEval` (as ../rerun/watch.ts follows a re-run): each
 * call returns the events after the last one seen, or waits (bounded, in the host) for the next.
 * A transport hiccup is retried a few times; a job that is gone (the host restarted) ends the loop.
 */

export interface EvalJobListener {
  update(job: EvalJob): void;
  finished(job: EvalJob): void;
  failed(error: ApiError): void;
}

const WAIT_MS = 15_000;
const RETRIES = 5;
const RETRY_MS = 1000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function followEval(api: PalimpsestApi, jobId: string, listener: EvalJobListener): Promise<void> {
  let after = 0;
  let failures = 0;
  for (;;) {
    const r = await api.watchEval({ jobId, after, waitMs: WAIT_MS });
    if (!r.ok) {
      if (r.error.code === 'TRANSPORT' && failures < RETRIES) {
        failures++;
        await sleep(RETRY_MS * failures);
        continue;
      }
      listener.failed(r.error);
      return;
    }
    failures = 0;
    after = r.value.next;
    listener.update(r.value.job);
    if (r.value.job.state !== 'running') {
      listener.finished(r.value.job);
      return;
    }
  }
}
