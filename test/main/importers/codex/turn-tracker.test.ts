import { describe, expect, it } from 'vitest';
import { TurnTracker } from '../../../../src/main/importers/codex/turn-tracker';

describe('TurnTracker', () => {
  it('numbers turns one by one, and counts items and calls from zero at each start', () => {
    const t = new TurnTracker();
    expect(t.open).toBe(false);
    expect(t.start()).toBe(1);
    expect(t.untouched).toBe(true);
    t.item();
    expect(t.untouched).toBe(false);
    expect(t.end()).toBe(1);
    expect(t.open).toBe(false);
    expect(t.start()).toBe(2);
    expect(t.untouched).toBe(true);
    t.request();
    expect(t.untouched).toBe(false);
  });

  it('counts items only inside a turn', () => {
    const t = new TurnTracker();
    t.start();
    t.end();
    t.item();
    t.start();
    expect(t.untouched).toBe(true);
  });

  it('is resumable only after a turn ended, with no compaction or resume since', () => {
    const t = new TurnTracker();
    expect(t.resumable).toBe(false);
    t.start();
    t.end();
    expect(t.resumable).toBe(true);
    t.compacted();
    expect(t.resumable).toBe(false);
    t.start();
    t.end();
    expect(t.resumable).toBe(true);
  });

  it('marks a resume at most once between two turn ends', () => {
    const t = new TurnTracker();
    expect(t.markResume()).toBe(true);
    expect(t.markResume()).toBe(false);
    t.start();
    expect(t.markResume()).toBe(false);
    t.end();
    expect(t.markResume()).toBe(true);
    expect(t.resumable).toBe(false);
  });
});
