// @vitest-environment happy-dom
import { cleanup, render } from '@testing-library/react';
import { createElement } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import type { MapReduceDetail, TokenMeter as Meter } from '../../../src/shared/api/contract';
import { TOKEN_CATEGORIES } from '../../../src/shared/tokens/categories';
import { CoverageChart } from '../../../src/renderer/session/panels/CoverageChart';
import { ReductionTree } from '../../../src/renderer/session/panels/ReductionTree';
import { TokenMeter } from '../../../src/renderer/session/panels/TokenMeter';

afterEach(cleanup);

const axis = ['u1', 'a1', 't1', 'a2', 't2'].map((id, i) => ({ id, seq: i + 2 }));

describe('CoverageChart', () => {
  it('draws a bar per segment run coloured by status, and marks gaps and overlaps', () => {
    const coverage: MapReduceDetail['coverage'] = {
      axis,
      atSeq: 30,
      segments: [
        { ordinal: 0, items: ['u1', 'a1'], status: 'accepted', from: 20 },
        { ordinal: 1, items: ['a1', 't1'], status: 'failed', from: 20 },
      ],
    };
    const { container } = render(createElement(CoverageChart, { coverage }));
    expect(
      [...container.querySelectorAll('.sv-cov-bar')].map((b) => [b.getAttribute('data-ordinal'), b.classList.contains('status-failed')]),
    ).toEqual([
      ['0', false],
      ['1', true],
    ]);
    expect([...container.querySelectorAll('.sv-cov-gap')].map((g) => g.getAttribute('data-gap'))).toEqual(['3-4']);
    expect([...container.querySelectorAll('.sv-cov-overlap')].map((g) => g.getAttribute('data-overlap'))).toEqual(['1-1']);
    expect([...container.querySelectorAll('.sv-cov-item.uncovered')].map((e) => e.textContent)).toEqual(['a2', 't2']);
    expect(container.querySelector('figcaption')?.textContent).toMatch(/1 gap · 1 overlap/);
  });
});

describe('TokenMeter', () => {
  it('stacks the categories and draws the policy lines and the report, labelled with their tokens', () => {
    const byCategory = Object.fromEntries(TOKEN_CATEGORIES.map((c) => [c, 0])) as Meter['byCategory'];
    byCategory.system = 20_000;
    byCategory.tool_result = 100_000;
    const meter: Meter = {
      index: 3,
      encoding: { name: 'o200k_base', exact: false, note: null },
      counting: { state: 'done', refs: 10, totalRefs: 10, error: null },
      total: 120_000,
      uncounted: 0,
      byCategory,
      uncountable: { images: 0, opaque: 0, redacted: 0 },
      unloggedSystem: false,
      unloggedTools: true,
      maskedUnknown: 0,
      reportedTokens: 150_000,
      ratio: 1.25,
      unlogged: 10_000,
      envelope: null,
      pending: false,
      policy: {
        id: 'dsh',
        name: 'DeepSeek Harness',
        description: '',
        measure: 'next',
        trigger: '80 % of the window',
        reactive: null,
        rawTail: '16 % of the window',
        rawTailMessages: null,
        outputReserve: null,
        headroom: null,
        sources: {},
        edited: [],
      },
      policyError: null,
      lines: {
        window: 200_000,
        windowSource: 'log',
        trigger: 160_000,
        reactive: null,
        rawTail: 32_000,
        rawTailMessages: null,
        outputReserve: null,
        headroom: null,
      },
      verdict: { state: 'below', size: 150_000, sizeSource: 'reported', measured: 150_000, fill: 0.75, wouldTrigger: false },
    };
    const { container } = render(createElement(TokenMeter, { meter }));
    const segs = [...container.querySelectorAll<HTMLElement>('.sv-seg')];
    expect(segs.map((s) => [s.dataset.category, s.style.left, s.style.width])).toEqual([
      ['system', '0%', '10%'],
      ['tool_result', '10%', '50%'],
    ]);
    const lines = Object.fromEntries([...container.querySelectorAll<HTMLElement>('.sv-line')].map((l) => [l.dataset.line, l.style.left]));
    expect(lines).toEqual({ rawTail: '16%', reported: '75%', trigger: '80%', window: '100%' });
    expect(container.textContent).toMatch(/tool schemas sent but not logged/);
    expect(container.textContent).toMatch(/reported 150,000/);
  });
});

describe('ReductionTree', () => {
  it('nests reductions under the final one, down to the maps with their status', () => {
    const mr = {
      maps: [0, 1, 2].map((ordinal) => ({
        seq: ordinal,
        ordinal,
        status: ordinal === 2 ? ('rejected' as const) : ('accepted' as const),
        request: null,
        finish: null,
        usage: null,
        summary: null,
      })),
      reductions: [
        {
          seq: 10,
          level: 0,
          inputs: [0, 1],
          final: false,
          request: null,
          finish: { raw: 'stop', reason: 'stop' as const },
          usage: null,
          output: null,
        },
        { seq: 11, level: 0, inputs: [2], final: false, request: null, finish: null, usage: null, output: null },
        { seq: 12, level: 1, inputs: [0, 1], final: true, request: null, finish: null, usage: null, output: null },
      ],
    } as unknown as MapReduceDetail;
    const { container } = render(createElement(ReductionTree, { mr }));
    const root = container.querySelector(':scope > ul > li');
    expect(root?.querySelector('.sv-node')?.textContent).toMatch(/^reduce L1#0 \(final\)/);
    expect([...(root?.querySelectorAll(':scope > ul > li > .sv-node') ?? [])].map((n) => n.textContent?.split(' ·')[0])).toEqual([
      'reduce L0#0',
      'reduce L0#1',
    ]);
    expect([...container.querySelectorAll('.sv-node.map')].map((n) => n.textContent)).toEqual([
      'map #0 (accepted)',
      'map #1 (accepted)',
      'map #2 (rejected)',
    ]);
  });
});
