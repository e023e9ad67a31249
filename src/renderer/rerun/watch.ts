import type { ApiError, PalimpsestApi, RerunJob } from '../../shared/api/contract';

/**
 * Follows one re-run job to its end over `watchRerun`: each call returns the events after the last
 * one seen, or waits (bounded, in the host) for the next. The same on both transports, so progress
 * streams in the browser and in Electron alike. A transport hiccup is retried a few times; a job
 * that is gone (session closed, host restarted) ends the loop.
 */

export interface JobListener {
  /** The job as it is now (stage, runs so far, state). */
  update(job: RerunJob): void;
  finished(job: RerunJob): void;
  failed(error: ApiError): void;
}

const WAIT_MS = 15_000;
const RETRIES = 5;
const RETRY_MS = 1000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function followJob(api: PalimpsestApi, jobId: string, listener: JobListener): Promise<void> {
  let after = 0;
  let failures = 0;
  for (;;) {
    const r = await api.watchRerun({ jobId, after, waitMs: WAIT_MS });
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
