import type { PartialLoad } from '../../shared/api/contract';
import { megabytes } from '../library/opening';
import { grouped } from '../../shared/grouped';

/*
 * What the view says of a first view (SessionSummary.partial): a large session shown from its
 * first lines while the host reads the rest. Never presented as the whole: the banner says how much
 * is shown and how far the load has got, and the panels whose figures would change say so.
 */

/** The banner's first sentence: how far the load of the whole session has got. */
export function loadingText(p: PartialLoad): string {
  switch (p.phase) {
    case 'reading':
      return `Loading — ${megabytes(p.done ?? 0)} of ${megabytes(p.total)} read.`;
    case 'replaying':
      return p.done !== null && p.of !== null && p.of > 0
        ? `Loading — read; replaying ${Math.floor((100 * p.done) / p.of)} % of ${grouped(p.of)} events.`
        : 'Loading — read; replaying.';
    case 'checking':
      return 'Loading — read and replayed; checking.';
    case 'failed':
      return `The rest of the session could not be read (${p.error ?? 'unknown error'}).`;
  }
}

/** The banner's second sentence: what is shown, and what it does not cover. */
export function shownText(p: PartialLoad, requests: number): string {
  const part = `the first ${megabytes(p.read)} of ${megabytes(p.total)} (${grouped(requests)} requests)`;
  return p.phase === 'failed'
    ? `Shown: ${part} only; counts and token totals cover that part, and findings were not worked out.`
    : `Shown so far: ${part}; counts and token totals cover that part, and findings are withheld until the whole session is in.`;
}
