import { describe, expect, it } from 'vitest';
import { CompactionBracket } from '../../../../src/main/importers/codex/compaction-bracket';
import type { JsonLine } from '../../../../src/main/reader/types';

const at = (line: number): JsonLine => ({ value: {}, line, offset: 0, length: 0 });

describe('CompactionBracket', () => {
  it('closes once: a second close, or an estimate after it, closes nothing', () => {
    const b = new CompactionBracket();
    expect(b.close(1000)).toBeNull();
    b.open('cmp:L5', at(5));
    expect(b.isOpen).toBe(true);
    expect(b.estimated({ total: 300, line: 6 }, 1000)).toEqual({ id: 'cmp:L5', from: at(5), postTokens: 300 });
    expect(b.isOpen).toBe(false);
    expect(b.close(1000)).toBeNull();
    expect(b.estimated({ total: 200, line: 7 }, 1000)).toBeNull();
  });

  it('takes the estimate right after its line over the one before it', () => {
    const b = new CompactionBracket();
    b.estimated({ total: 900, line: 4 }, 1000);
    b.open('cmp:L5', at(5));
    expect(b.estimated({ total: 300, line: 6 }, 1000)?.postTokens).toBe(300);
  });

  it('falls back to the estimate before its line, unless a provider count came since', () => {
    const b = new CompactionBracket();
    b.estimated({ total: 400, line: 4 }, 1000);
    b.open('cmp:L5', at(5));
    expect(b.close(1000)?.postTokens).toBe(400);

    b.estimated({ total: 400, line: 8 }, 1000);
    b.counted();
    b.open('cmp:L9', at(9));
    expect(b.close(1000)?.postTokens).toBeUndefined();
  });

  it('never uses a size over the window: it becomes the note, taken once', () => {
    const b = new CompactionBracket();
    b.open('cmp:L5', at(5));
    expect(b.estimated({ total: 2000, line: 6 }, 1000)?.postTokens).toBeUndefined();
    expect(b.takeNote()).toEqual({ compactionLine: 5, estimate: { total: 2000, line: 6 } });
    expect(b.takeNote()).toBeNull();
  });

  it('uses any size when the window is not known', () => {
    const b = new CompactionBracket();
    b.open('cmp:L5', at(5));
    expect(b.estimated({ total: 2000, line: 6 }, undefined)?.postTokens).toBe(2000);
    expect(b.takeNote()).toBeNull();
  });
});
