// @vitest-environment happy-dom
import { cleanup, fireEvent, render } from '@testing-library/react';
import { createElement } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import type { CompactionDetail } from '../../../src/shared/api/contract';
import { CATEGORIES } from '../../../src/shared/forensics/categories';
import { SurvivalSection } from '../../../src/renderer/session/panels/SurvivalSection';

afterEach(cleanup);

type Survival = NonNullable<CompactionDetail['survival']>;

function survival(
  over: Partial<Record<(typeof CATEGORIES)[number], [number, number, number]>>,
  lost: Survival['lost'],
  opaque = false,
): Survival {
  const rates = Object.fromEntries(
    CATEGORIES.map((c) => {
      const [verbatim, normalised, l] = over[c] ?? [0, 0, 0];
      const total = verbatim + normalised + l;
      return [c, { total, verbatim, normalised, lost: l, rate: total === 0 ? null : (verbatim + normalised) / total }];
    }),
  ) as Survival['survival'];
  return { survival: rates, lost, lostTotal: lost.length, replaced: 40, kept: 6, opaque };
}

describe('the survival section of the compaction panel', () => {
  it('draws a bar per category with anchors, and lists the lost ones, each leading to its item', () => {
    const picked: number[] = [];
    const s = survival({ paths: [6, 7, 3], commands: [5, 0, 19] }, [
      { category: 'paths', text: '/home/USER/app/lib/pane_list_live.ex', seq: 126 },
      { category: 'commands', text: 'mix test --failed', seq: 140 },
    ]);
    const { container, getByRole } = render(createElement(SurvivalSection, { survival: s, onPick: (seq: number) => picked.push(seq) }));
    expect([...container.querySelectorAll('tr[data-category]')].map((r) => r.getAttribute('data-category'))).toEqual(['paths', 'commands']);
    const paths = container.querySelector('tr[data-category=paths]');
    expect(paths?.textContent).toContain('81 % · 13 of 16 (6 verbatim, 7 normalised), 3 lost');
    expect(paths?.querySelector('[role=meter]')?.getAttribute('aria-valuenow')).toBe('81');
    expect(container.querySelector('.sv-survival-lost summary')?.textContent).toBe('2 anchors lost');
    fireEvent.click(getByRole('button', { name: 'seq 140' }));
    expect(picked).toEqual([140]);
  });

  it('says when the summary is encrypted and when nothing was there to keep', () => {
    const { container } = render(createElement(SurvivalSection, { survival: survival({}, [], true), onPick: () => {} }));
    expect(container.textContent).toContain('Part of the summary is encrypted');
    expect(container.textContent).toContain('The replaced items hold no anchor of any category.');
    expect(container.querySelector('.sv-survival-lost')).toBeNull();
  });
});
