import { describe, expect, it } from 'vitest';
import { OpenCall } from '../../../../src/main/importers/codex/open-call';

const recorded = { usage: { input: 10, output: 2 }, totalKey: 'k', context: 12 };

describe('OpenCall', () => {
  it('opens a call only when none is open, and gives it once', () => {
    const c = new OpenCall();
    expect(c.take()).toBeNull();
    expect(c.open('req:1', null)).toBe(true);
    expect(c.open('req:2', null)).toBe(false);
    expect(c.take()).toEqual({ id: 'req:1', recorded: null });
    expect(c.isOpen).toBe(false);
    expect(c.take()).toBeNull();
  });

  it('keeps an input and a usage record on the open call only, and forgets them when it is taken', () => {
    const c = new OpenCall();
    c.input();
    c.record(recorded);
    expect(c.sawInput).toBe(false);
    expect(c.recorded).toBeNull();
    c.open('req:1', null);
    c.input();
    c.record(recorded);
    expect(c.sawInput).toBe(true);
    expect(c.take()).toEqual({ id: 'req:1', recorded });
    expect(c.sawInput).toBe(false);
    expect(c.recorded).toBeNull();
    c.open('req:2', null);
    expect(c.sawInput).toBe(false);
    expect(c.recorded).toBeNull();
  });

  it('tells a new round after an input, on the open call only', () => {
    const c = new OpenCall();
    c.round();
    c.open('req:1', null);
    c.round();
    expect(c.roundAfterInput).toBe(false);
    c.input();
    expect(c.roundAfterInput).toBe(false);
    c.round();
    expect(c.roundAfterInput).toBe(true);
    c.take();
    expect(c.roundAfterInput).toBe(false);
    c.open('req:2', null);
    expect(c.roundAfterInput).toBe(false);
  });
});
