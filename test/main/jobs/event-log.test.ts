import { describe, expect, it } from 'vitest';
import { JobEventLog } from '../../../src/main/jobs/event-log';

describe('JobEventLog', () => {
  it('numbers events, keeps the last `keep`, and answers after an index', async () => {
    const log = new JobEventLog<number>(3);
    for (let i = 0; i < 5; i++) log.push((index) => index * 10);
    expect(log.next).toBe(5);
    expect(await log.after(0, 0, () => true)).toEqual({ events: [20, 30, 40], next: 5 });
    expect(await log.after(4, 0, () => true)).toEqual({ events: [40], next: 5 });
  });

  it('a watcher with nothing new waits until the next push, and not when the job has ended', async () => {
    const log = new JobEventLog<string>();
    const waiting = log.after(0, 10_000, () => true);
    log.push(() => 'first');
    expect(await waiting).toEqual({ events: ['first'], next: 1 });
    const t0 = Date.now();
    expect(await log.after(1, 10_000, () => false)).toEqual({ events: [], next: 1 });
    expect(Date.now() - t0).toBeLessThan(1_000);
  });

  it('bounds the watchers that wait at once', async () => {
    const log = new JobEventLog<number>(10, 1);
    const first = log.after(0, 10_000, () => true);
    const t0 = Date.now();
    expect(await log.after(0, 10_000, () => true)).toEqual({ events: [], next: 0 });
    expect(Date.now() - t0).toBeLessThan(1_000);
    log.wakeAll();
    expect(await first).toEqual({ events: [], next: 0 });
  });
});
