import type { TodoReminderRule } from '../../shared/compat/claude-unlogged';

/*
 * Claude Code's todo reminder (src/shared/compat/claude-unlogged.ts) evaluated on a log that does
 * not record it, for the importer: before each agent call the client adds one when ten assistant
 * messages followed the last TodoWrite call and the last reminder it holds. A reminder stays in the
 * process's conversation and is sent again with later requests; a new process (a resumed session)
 * holds none. The log says neither when a process ended nor, for a reminder it did not log, whether
 * one was added: where that decides, the reminder is named as one that may be there.
 */

/** A reminder the client added (or may have), and the item of the user message it travels in. */
export interface ReminderPoint {
  /** Assistant messages before it. */
  readonly at: number;
  readonly item: string;
  /** Whether it was certainly added, and certainly still held (no new process since). */
  readonly sure: boolean;
}

/**
 * The reminders a process may hold, summed up: the first and the last, how many, and whether all
 * are sure (a long headless session holds one every ten messages; only these are ever read).
 */
export interface ReminderState {
  readonly first: ReminderPoint | null;
  readonly last: ReminderPoint | null;
  readonly count: number;
  readonly allSure: boolean;
}

export const REMINDER_NONE: ReminderState = { first: null, last: null, count: 0, allSure: true };

export interface ReminderInput {
  readonly rule: TodoReminderRule;
  /** Assistant messages (records that are not thinking only) on the surface before the request. */
  readonly messages: number;
  /** Of them, those after the last TodoWrite call (all when there was none). */
  readonly sinceWrite: number;
  /** The item of the user message a new reminder travels in: the last user item before the request. */
  readonly item: string;
  /** Whether the previous request was made by the same process (no new prompt since it). */
  readonly sameProcess: boolean;
  /** Whether a firing can be certain (the version's headless log is known not to record it, and the tool was offered). */
  readonly canBeSure: boolean;
  /** Whether the surface still holds the items the held reminders travel with (a compaction rebuilds it). */
  readonly live: boolean;
  readonly state: ReminderState;
}

export interface ReminderResult {
  readonly fired: 'yes' | 'maybe' | 'no';
  /** The reminder added at this request (absent: none). */
  readonly newest?: ReminderPoint;
  /** The ones held from before, which the process sends again (null: none). */
  readonly earlier: ReminderState | null;
  readonly state: ReminderState;
}

/** The reminders in a request, and the state after it. */
export function evaluateReminder(i: ReminderInput): ReminderResult {
  // Reminders held before: still held for sure only by the same process.
  const prev = i.live ? i.state : REMINDER_NONE;
  const held: ReminderState =
    i.sameProcess || prev.count === 0 ? prev : { ...prev, allSure: false, last: prev.last && { ...prev.last, sure: false } };
  let fired: 'yes' | 'maybe' | 'no' = 'no';
  if (i.sinceWrite >= i.rule.sinceWrite) {
    const last = held.last;
    // The same process fires once the last reminder it may hold is far enough back; a new one holds none.
    const same: 'yes' | 'no' | 'maybe' = !last || i.messages - last.at >= i.rule.sinceReminder ? 'yes' : last.sure ? 'no' : 'maybe';
    fired = i.sameProcess ? same : same === 'yes' ? 'yes' : 'maybe';
    if (fired === 'yes' && !i.canBeSure) fired = 'maybe';
  }
  const earlier = held.count > 0 ? held : null;
  if (fired === 'no') return { fired, earlier, state: held };
  const newest: ReminderPoint = { at: i.messages, item: i.item, sure: fired === 'yes' };
  const state: ReminderState = { first: held.first ?? newest, last: newest, count: held.count + 1, allSure: held.allSure && newest.sure };
  return { fired, newest, earlier, state };
}
