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

export interface ReminderState {
  readonly points: readonly ReminderPoint[];
}

export const REMINDER_NONE: ReminderState = { points: [] };

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
  /** Items on the surface: reminders travelling with items no longer there are gone. */
  readonly live: (item: string) => boolean;
  readonly state: ReminderState;
}

/** The reminders in a request (the new one last), and the state after it. */
export function evaluateReminder(i: ReminderInput): { present: ReminderPoint[]; fired: 'yes' | 'maybe' | 'no'; state: ReminderState } {
  // Reminders held before: still held for sure only by the same process.
  const held = i.state.points.filter((p) => i.live(p.item)).map((p) => (i.sameProcess ? p : { ...p, sure: false }));
  let fired: 'yes' | 'maybe' | 'no' = 'no';
  if (i.sinceWrite >= i.rule.sinceWrite) {
    const last = held.at(-1);
    // The same process fires once the last reminder it may hold is far enough back; a new one holds none.
    const same: 'yes' | 'no' | 'maybe' = !last || i.messages - last.at >= i.rule.sinceReminder ? 'yes' : last.sure ? 'no' : 'maybe';
    fired = i.sameProcess ? same : same === 'yes' ? 'yes' : 'maybe';
    if (fired === 'yes' && !i.canBeSure) fired = 'maybe';
  }
  const points = fired === 'no' ? held : [...held, { at: i.messages, item: i.item, sure: fired === 'yes' }];
  return { present: points, fired, state: { points } };
}
