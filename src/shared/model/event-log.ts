import type { LogEvent } from './event';

/**
 * The canonical event log of a session, read by seq. An array of events is one (`Array.prototype.at`
 * has this shape, so tests and small logs pass arrays as they are); a loaded session's log may
 * instead keep its events in compact storage and build each one when asked (docs/performance.md,
 * "The redesign the remaining gap needs"). So callers read it through `at` and do not hold on to
 * the events they get, compare them by identity, or expect array methods beyond `at`, `length` and
 * iteration.
 */
export interface EventLog {
  readonly length: number;
  /**
   * The event with this seq; undefined when seq ≥ length. Never pass a negative seq: an array
   * counts those from its end.
   */
  at(seq: number): LogEvent | undefined;
  /** Every event, in seq order. */
  [Symbol.iterator](): Iterator<LogEvent>;
}

/** The event with this seq, for callers that only ask for seqs the log has. */
export function eventAt(log: EventLog, seq: number): LogEvent {
  const e = seq >= 0 ? log.at(seq) : undefined;
  if (e === undefined) throw new RangeError(`No event at seq ${seq} (the log has ${log.length}).`);
  return e;
}

/** The events with seqs from..to-1, in order, as an array (for slices small enough to hold). */
export function eventsBetween(log: EventLog, from = 0, to = log.length): LogEvent[] {
  const out: LogEvent[] = [];
  const end = Math.min(to, log.length);
  for (let seq = Math.max(0, from); seq < end; seq++) out.push(eventAt(log, seq));
  return out;
}

/** The first `length` events of a log, as a log that ends there. */
export function logPrefix(log: EventLog, length: number): EventLog {
  const n = Math.max(0, Math.min(length, log.length));
  return {
    length: n,
    at: (seq) => (seq >= 0 && seq < n ? log.at(seq) : undefined),
    *[Symbol.iterator]() {
      for (let seq = 0; seq < n; seq++) yield eventAt(log, seq);
    },
  };
}
