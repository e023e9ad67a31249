import type { EventKind, EventOf, LogEvent } from './event';

/**
 * The canonical event log of a session, read by seq. An array of events is one (`Array.prototype.at`
 * has this shape, so tests and small logs pass arrays as they are); a loaded session's log may
 * instead keep its events in compact storage and build each one when asked (docs/performance.md,
 * "The compact log"). So callers read it through `at` and do not hold on to
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
  /*
   * Answers a compact log gives from its columns without building the event. Replay and the
   * diagnostics' indexes ask every event for its kind and branch; through `at` that would rebuild
   * a million events to read two fields. Read them through `kindAt` / `branchAt` below.
   */
  /** The kind of the event with this seq; undefined when there is none. */
  kindAt?(seq: number): EventKind | undefined;
  /** The `branch` field of the event with this seq (undefined: main, or no such event). */
  branchAt?(seq: number): string | undefined;
  /**
   * The event as replay keeps it: an item's `blocks` may be read from the log only when asked for
   * (a getter), so that the items a replay holds do not hold their content. Same fields as `at`.
   */
  shallowAt?(seq: number): LogEvent | undefined;
  /*
   * Answers a log that keeps events as their source lines gives, so callers ask the log rather
   * than which kind of log it is. Absent, or null for a seq: that event is kept as an object.
   */
  /** The text of the line the event at seq was kept as (a search may rule it out before a parse). */
  lineText?(seq: number): string | null;
  /** The parsed line the event at seq was kept as: the whole line, long texts included. */
  lineValue?(seq: number): Record<string, unknown> | null;
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

/** The first `length` events of a log, as a log that ends there (with the log's column answers). */
export function logPrefix(log: EventLog, length: number): EventLog {
  const n = Math.max(0, Math.min(length, log.length));
  const inside = (seq: number): boolean => seq >= 0 && seq < n;
  const prefix: EventLog = {
    length: n,
    at: (seq) => (inside(seq) ? log.at(seq) : undefined),
    *[Symbol.iterator]() {
      for (let seq = 0; seq < n; seq++) yield eventAt(log, seq);
    },
  };
  const { kindAt: kind, branchAt: branch, shallowAt: shallow } = log;
  if (kind) prefix.kindAt = (seq) => (inside(seq) ? kind.call(log, seq) : undefined);
  if (branch) prefix.branchAt = (seq) => (inside(seq) ? branch.call(log, seq) : undefined);
  if (shallow) prefix.shallowAt = (seq) => (inside(seq) ? shallow.call(log, seq) : undefined);
  return prefix;
}

/** The kind of the event with this seq (undefined: none), from the log's columns when it has them. */
export function kindAt(log: EventLog, seq: number): EventKind | undefined {
  if (seq < 0) return undefined;
  return log.kindAt ? log.kindAt(seq) : log.at(seq)?.kind;
}

/** The branch field of the event with this seq (undefined: main, or no such event). */
export function branchAt(log: EventLog, seq: number): string | undefined {
  if (seq < 0) return undefined;
  return log.branchAt ? log.branchAt(seq) : log.at(seq)?.branch;
}

/** The event as replay keeps it (see EventLog.shallowAt); undefined when there is none. */
export function shallowAt(log: EventLog, seq: number): LogEvent | undefined {
  if (seq < 0) return undefined;
  return log.shallowAt ? log.shallowAt(seq) : log.at(seq);
}

/** Every event of one kind, in seq order; the others are not built when the log answers kinds from a column. */
export function* eventsOfKind<K extends EventKind>(log: EventLog, kind: K): Generator<EventOf<K> & LogEvent, void, void> {
  for (let seq = 0; seq < log.length; seq++) {
    if (kindAt(log, seq) !== kind) continue;
    const e = eventAt(log, seq);
    if (e.kind === kind) yield e as EventOf<K> & LogEvent;
  }
}
