import { describe, expect, it } from 'vitest';
import type { TokenPoint } from '../../../src/shared/api/contract';
import { chartLayout } from '../../../src/renderer/session/chart';
import { textDiff } from '../../../src/renderer/session/textdiff';

const point = (index: number, size: number, purpose = 'agent', over: Partial<TokenPoint> = {}): TokenPoint => ({
  index,
  seq: index * 10,
  purpose,
  estimated: size,
  uncounted: 0,
  reported: size,
  size,
  window: 1000,
  trigger: 800,
  state: 'below',
  cacheBreak: null,
  ...over,
});
const BOX = { width: 100, height: 100, left: 0, pad: 0 };

describe('context chart layout', () => {
  const series = {
    points: [point(0, 200), point(1, 600), point(2, 900), point(3, 50, 'compaction'), point(4, 150)],
    compactions: [{ id: 'c1', seq: 25, afterIndex: 2, outcome: 'committed' as const }],
  };

  it('plots agent requests only, with the compaction as a drop between the request it followed and the next', () => {
    const c = chartLayout(series, BOX);
    expect(c.points.map((p) => p.index)).toEqual([0, 1, 2, 4]);
    expect(c.yMax).toBe(1000);
    expect(c.points.map((p) => p.y)).toEqual([80, 40, 10, 85]);
    expect(c.compactions).toEqual([{ id: 'c1', x: (c.points[2]!.x + c.points[3]!.x) / 2 }]);
    const drop = c.points[3]!.y - c.points[2]!.y;
    expect(drop).toBeGreaterThan(0); // lower on screen: the context shrank
  });

  it('draws the trigger and the window as step lines at their heights', () => {
    const c = chartLayout(series, BOX);
    const ys = (d: string) => [...d.matchAll(/[ML]([0-9.]+) ([0-9.]+)/g)].map((m) => Number(m[2]));
    expect(new Set(ys(c.trigger))).toEqual(new Set([20])); // 800 of 1000
    expect(new Set(ys(c.window))).toEqual(new Set([0]));
    expect(c.trigger.startsWith('M0 20')).toBe(true);
  });

  it('maps a request to x and an x back to the nearest request', () => {
    const c = chartLayout(series, BOX);
    expect(c.xOf(3)).toBe(c.points[2]!.x); // a summarizer call sits on the agent request before it
    expect(c.indexAt(0)).toBe(0);
    expect(c.indexAt(100)).toBe(4);
    expect(c.indexAt(60)).toBe(2);
  });

  it('marks a prompt-cache break at the request that broke the cache, with its cause in the label', () => {
    const brk = {
      cause: 'ttl' as const,
      tokens: 500,
      cost: null,
      previous: 0,
      expected: 700,
      read: 200,
      gapMs: 400_000,
      certain: false,
      why: '',
    };
    const c = chartLayout({ points: [point(0, 700), point(1, 800, 'agent', { cacheBreak: brk })], compactions: [] }, BOX);
    expect(c.breaks).toEqual([{ index: 1, x: c.points[1]!.x, y: c.points[1]!.y, label: '#1: cache break (ttl?), 500 tokens not read' }]);
    expect(chartLayout(series, BOX).breaks).toEqual([]);
  });

  it('uses the estimate where there is no report, and draws nothing without agent requests', () => {
    const c = chartLayout({ points: [point(0, 0, 'agent', { reported: null, size: null, estimated: 300 })], compactions: [] }, BOX);
    expect(c.points[0]!.tokens).toBe(300);
    expect(c.points[0]!.reported).toBe(false);
    expect(chartLayout({ points: [], compactions: [] }, BOX).size).toBe('');
  });
});

describe('summary text diff', () => {
  it('marks removed and added words, and counts them', () => {
    const d = textDiff('Keep the column order. Tests pass.', 'Keep the CSV column order. Tests fail.');
    expect(d.by).toBe('word');
    expect(d.parts.filter((p) => p.kind === 'added').map((p) => p.text.trim())).toEqual(['CSV', 'fail']);
    expect(d.parts.filter((p) => p.kind === 'removed').map((p) => p.text.trim())).toEqual(['pass']);
    expect(
      d.parts
        .filter((p) => p.kind !== 'added')
        .map((p) => p.text)
        .join(''),
    ).toBe('Keep the column order. Tests pass.');
  });
});
