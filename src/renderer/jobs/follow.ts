import type { ApiError, ApiResult } from '../../shared/api/contract';

/**
 * Follows one host job (a re-run, an eval) to its end by long-polling its `watch*` method: each
 * call returns the events after the last one seen, or waits (bounded, in the host) for the next.
 * The same on both transports. A transport hiccup is retried a few times with a growing pause; a
 * job that is gone (session closed, host restarted) ends the loop.
 */

export interface WatchListener<J> {
  /** The job as it is now. */
  update(job: J): void;
  finished(job: J): void;
  failed(error: ApiError): void;
}

export const WAIT_MS = 15_000;
const RETRIES = 5;
const RETRY_MS = 1000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function followWatch<J extends { readonly state: string }>(
  watch: (after: number) => Promise<ApiResult<{ readonly next: number; readonly job: J }>>,
  listener: WatchListener<J>,
): Promise<void> {
  let after = 0;
  let failures = 0;
  for (;;) {
    const r = await watch(after);
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
