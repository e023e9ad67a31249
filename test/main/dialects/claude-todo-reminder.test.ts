import { describe, expect, it } from 'vitest';
import { todoReminderRule } from '../../../src/shared/compat/claude-unlogged';
import { type ReminderInput, REMINDER_NONE, evaluateReminder } from '../../../src/main/dialects/claude-todo-reminder';

/*
 * Claude Code's todo reminder where the log does not record it (2.1.9's print mode): it fires once
 * ten assistant messages followed the last TodoWrite call and the last reminder the process holds.
 */

const RULE = todoReminderRule('2.1.9');
if (!RULE) throw new Error('2.1.9 has a todo reminder rule');
const input = (over: Partial<ReminderInput>): ReminderInput => ({
  rule: RULE,
  messages: 10,
  sinceWrite: 10,
  item: 'u1',
  sameProcess: false,
  canBeSure: true,
  live: true,
  state: REMINDER_NONE,
  ...over,
});

describe('evaluateReminder', () => {
  it('fires for sure at the tenth assistant message without a TodoWrite call (the saved run: turn 2)', () => {
    const r = evaluateReminder(input({}));
    expect(r.fired).toBe('yes');
    expect(r.newest).toEqual({ at: 10, item: 'u1', sure: true });
    expect(r.earlier).toBeNull();
  });

  it('does not fire before, and names nothing', () => {
    const r = evaluateReminder(input({ messages: 9, sinceWrite: 9 }));
    expect(r.fired).toBe('no');
    expect(r.newest).toBeUndefined();
    expect(r.earlier).toBeNull();
  });

  it('counts from the last TodoWrite call', () => {
    expect(evaluateReminder(input({ messages: 30, sinceWrite: 4 })).fired).toBe('no');
  });

  it('in the same process, not again within ten messages of a sure one, which it still sends', () => {
    const first = evaluateReminder(input({}));
    const next = evaluateReminder(input({ messages: 12, sinceWrite: 12, item: 'u2', sameProcess: true, state: first.state }));
    expect(next.fired).toBe('no');
    expect(next.earlier).toMatchObject({ first: { at: 10, item: 'u1', sure: true }, count: 1, allSure: true });
  });

  it('after a prompt it may fire again (a resumed process holds no reminder) and the old one may be gone', () => {
    const first = evaluateReminder(input({}));
    const next = evaluateReminder(input({ messages: 12, sinceWrite: 12, item: 'u2', sameProcess: false, state: first.state }));
    expect(next.fired).toBe('maybe');
    expect(next.newest).toEqual({ at: 12, item: 'u2', sure: false });
    expect(next.earlier).toMatchObject({ count: 1, allSure: false });
    expect(next.state).toMatchObject({ count: 2, allSure: false, first: { item: 'u1' }, last: { item: 'u2' } });
  });

  it('is never sure where it cannot be (a version whose headless log may record it, a subagent)', () => {
    expect(evaluateReminder(input({ canBeSure: false })).fired).toBe('maybe');
    expect(todoReminderRule('2.0.77')?.unloggedHeadless).toBe(false);
    expect(todoReminderRule('2.1.97')).toBeNull();
  });

  it('forgets a reminder whose message left the surface (a compaction)', () => {
    const first = evaluateReminder(input({}));
    const next = evaluateReminder(input({ messages: 11, sinceWrite: 11, sameProcess: true, live: false, state: first.state }));
    expect(next.earlier).toBeNull();
    expect(next.newest).toEqual({ at: 11, item: 'u1', sure: true });
  });
});
