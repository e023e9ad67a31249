// @vitest-environment happy-dom
import { cleanup, fireEvent, render } from '@testing-library/react';
import { createElement } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import type { TokenPoint, TokenSeries } from '../../../src/shared/api/contract';
import { CacheBreakList } from '../../../src/renderer/session/panels/CacheBreakList';
import { ContextChart } from '../../../src/renderer/session/panels/ContextChart';

afterEach(cleanup);

const brk = {
  cause: 'compaction' as const,
  tokens: 14_603,
  cost: 0.084,
  previous: 1,
  expected: 36_081,
  read: 21_478,
  gapMs: 125_744,
  certain: true,
  why: 'the history was rewritten before the cached prefix ended',
};

const point = (index: number, size: number, cacheBreak: TokenPoint['cacheBreak'] = null): TokenPoint => ({
  index,
  seq: index * 10,
  purpose: 'agent',
  estimated: size,
  uncounted: 0,
  reported: size,
  size,
  window: 200_000,
  trigger: 160_000,
  state: 'below',
  cacheBreak,
});

const series = (points: TokenPoint[], cost: number | null): TokenSeries => ({
  counting: { state: 'done', refs: 0, totalRefs: 0, error: null },
  pending: false,
  policy: {} as TokenSeries['policy'],
  policyError: null,
  points,
  compactions: [],
  triggers: [],
  matched: [],
  unpredicted: [],
  extra: [],
  cacheBreaks: {
    count: points.filter((p) => p.cacheBreak).length,
    tokens: 14_603,
    cost,
    byCause: { compaction: { count: 1, tokens: 14_603 } },
  },
});

describe('prompt-cache breaks in the token panel', () => {
  it('lists each break with cause, tokens and cost, and selects its request from the keyboard', () => {
    const picked: number[] = [];
    const s = series([point(0, 30_000), point(1, 90_000), point(2, 36_081, brk)], 0.084);
    const { container, getByRole } = render(createElement(CacheBreakList, { series: s, onSelect: (i: number) => picked.push(i) }));
    expect(container.querySelector('summary')?.textContent).toBe(
      '1 prompt-cache break: 14,603 tokens not read from the cache, $0.0840 beyond cache reads',
    );
    expect(container.querySelector('li')?.textContent).toContain('compaction 14,603 tokens (21,478 read of 36,081), $0.0840');
    fireEvent.click(getByRole('button', { name: '#2' }));
    expect(picked).toEqual([2]);
  });

  it('says the cost is unknown without prices, and shows nothing when the cache never broke', () => {
    const unpriced = render(
      createElement(CacheBreakList, { series: series([point(0, 1), point(1, 2, { ...brk, cost: null })], null), onSelect: () => {} }),
    );
    expect(unpriced.container.querySelector('summary')?.textContent).toContain('cost unknown');
    cleanup();
    const none = render(createElement(CacheBreakList, { series: series([point(0, 1)], 0), onSelect: () => {} }));
    expect(none.container.innerHTML).toBe('');
  });

  it('marks the break on the chart with its cause in the mark’s title', () => {
    const s = series([point(0, 30_000), point(1, 90_000), point(2, 36_081, brk)], null);
    const { container } = render(createElement(ContextChart, { series: s, selected: null, onSelect: () => {} }));
    const marks = [...container.querySelectorAll('.sv-chart-break')];
    expect(marks.map((m) => m.getAttribute('data-break'))).toEqual(['2']);
    expect(marks[0]?.querySelector('title')?.textContent).toBe('#2: cache break (compaction), 14,603 tokens not read');
    expect(container.querySelector('svg')?.getAttribute('aria-label')).toContain('1 prompt-cache breaks');
  });
});
