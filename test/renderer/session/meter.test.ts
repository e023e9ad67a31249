import { describe, expect, it } from 'vitest';
import type { ByCategory, PolicyLinesRow } from '../../../src/shared/api/contract';
import { TOKEN_CATEGORIES } from '../../../src/shared/tokens/categories';
import { LABEL_GAP, meterLayout } from '../../../src/renderer/session/meter';

const zero = Object.fromEntries(TOKEN_CATEGORIES.map((c) => [c, 0])) as ByCategory;
const cats = (over: Partial<ByCategory>): ByCategory => ({ ...zero, ...over });
const lines = (over: Partial<PolicyLinesRow>): PolicyLinesRow => ({
  window: null,
  windowSource: null,
  trigger: null,
  reactive: null,
  rawTail: null,
  rawTailMessages: null,
  outputReserve: null,
  headroom: null,
  ...over,
});

describe('token meter layout', () => {
  it('stacks the categories in their fixed order, end to end, as shares of the window', () => {
    const m = meterLayout({
      byCategory: cats({ tool_result: 50_000, system: 10_000, user: 20_000 }),
      total: 80_000,
      reportedTokens: null,
      lines: lines({ window: 200_000 }),
    });
    expect(m.scale).toBe(200_000);
    expect(m.segments.map((s) => s.category)).toEqual(['system', 'user', 'tool_result']);
    expect(m.segments.map((s) => [s.x, s.width])).toEqual([
      [0, 0.05],
      [0.05, 0.1],
      [0.15000000000000002, 0.25],
    ]);
    expect(m.over).toBe(false);
  });

  it('draws the policy lines where they fall: trigger, reserves counted back from the window, raw tail, the report', () => {
    const m = meterLayout({
      byCategory: cats({ user: 1000 }),
      total: 1000,
      reportedTokens: 164_831,
      lines: lines({ window: 200_000, trigger: 167_000, outputReserve: 20_000, headroom: 13_000, rawTail: 40_000 }),
    });
    const at = Object.fromEntries(m.lines.map((l) => [l.kind, l.tokens]));
    expect(at).toEqual({
      window: 200_000,
      trigger: 167_000,
      outputReserve: 180_000,
      headroom: 167_000,
      rawTail: 40_000,
      reported: 164_831,
    });
    const x = Object.fromEntries(m.lines.map((l) => [l.kind, l.x]));
    expect(x.trigger).toBeCloseTo(0.835);
    expect(x.window).toBe(1);
  });

  it('puts labels that would touch on different rows', () => {
    const m = meterLayout({
      byCategory: cats({ user: 1000 }),
      total: 1000,
      reportedTokens: 164_831,
      lines: lines({ window: 200_000, trigger: 167_000, outputReserve: 20_000, headroom: 13_000 }),
    });
    const sorted = [...m.lines].sort((a, b) => a.x - b.x);
    for (let i = 0; i < sorted.length; i++)
      for (let j = i + 1; j < sorted.length; j++) {
        const a = sorted[i];
        const b = sorted[j];
        if (a && b && b.x - a.x < LABEL_GAP) expect(a.row).not.toBe(b.row);
      }
  });

  it('stretches the axis past the window when the view or the report does not fit, and says so', () => {
    const m = meterLayout({
      byCategory: cats({ tool_result: 150_000 }),
      total: 150_000,
      reportedTokens: 210_000,
      lines: lines({ window: 200_000 }),
    });
    expect(m.over).toBe(true);
    expect(m.scale).toBeCloseTo(220_500);
    expect(m.lines.find((l) => l.kind === 'window')?.x).toBeLessThan(1);
  });

  it('without a window, scales to the largest figure and draws no window line', () => {
    const m = meterLayout({ byCategory: cats({ user: 500 }), total: 500, reportedTokens: null, lines: lines({}) });
    expect(m.scale).toBeCloseTo(525);
    expect(m.lines).toEqual([]);
    expect(m.segments[0]?.width).toBeCloseTo(500 / 525);
  });
});
