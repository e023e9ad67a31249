import type { PendingUsage } from './calls';

/**
 * The one usage report that waits for a call to claim it (a report with no open call, or one
 * written before its call's output items), owned here so that it is given out once: whoever takes
 * it (the call its output opens, a compaction it measured, or a call of its own) empties the slot.
 */
export class WaitingUsage {
  private report: PendingUsage | null = null;

  /** The report waiting, to look at; null: none. */
  get current(): PendingUsage | null {
    return this.report;
  }

  /** Let a report wait; the caller has dealt with any report waiting before (as the reader always has). */
  wait(report: PendingUsage): void {
    this.report = report;
  }

  /** Take the report waiting, if any. */
  take(): PendingUsage | null {
    const r = this.report;
    this.report = null;
    return r;
  }

  /** Take the report only if it was written ahead of its call's output (the call it opens claims it). */
  takeAhead(): PendingUsage | null {
    return this.report?.ahead === true ? this.take() : null;
  }
}
