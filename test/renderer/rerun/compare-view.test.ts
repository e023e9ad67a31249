// @vitest-environment happy-dom
import { cleanup, render } from '@testing-library/react';
import { createElement } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { CompareView, type CompareResult } from '../../../src/renderer/compare/CompareView';
import { foldLines } from '../../../src/renderer/compare/SummaryDiff';

afterEach(cleanup);

const XSS = '<img src=x onerror="window.__pwned=1">';

function subject(id: string, summary: string | null, outcome = 'committed') {
  return {
    id,
    label: id === 'original' ? 'original (one-shot)' : `${id} [mock] #1`,
    outcome,
    summary,
    viewChars: 10,
    tokensBefore: 100,
    tokensAfter: 40,
    diagnostics: [],
    costUsd: null,
    requests: 1,
    latencyMs: 12,
  };
}
// The nine categories of compaction forensics (the view showed four anchor kinds before: paths,
// identifiers, numbers, error strings); only paths have anchors here.
const OTHERS = ['commands', 'identifiers', 'urls', 'errors', 'numbers', 'constraints', 'tasks', 'decisions'] as const;
const survival = (kept: number, lost: string[]) => [
  { kind: 'paths' as const, total: kept + lost.length, kept, recall: kept / (kept + lost.length), lost },
  ...OTHERS.map((kind) => ({ kind, total: 0, kept: 0, recall: null, lost: [] })),
];
const RESULT: CompareResult = {
  file: '/tmp/x.runs.jsonl',
  branch: 'main',
  stale: ['run1'],
  missing: [],
  note: null,
  comparison: {
    anchors: {
      paths: ['src/a.ts', 'src/b.ts'],
      commands: [],
      identifiers: [],
      urls: [],
      errors: [],
      numbers: [],
      constraints: [],
      tasks: [],
      decisions: [],
    },
    rows: [
      {
        subject: subject('original', '## Objective\nFix it'),
        sections: [{ name: 'Objective', present: true, empty: false }],
        survival: survival(1, ['src/b.ts']),
        recall: 0.5,
        severities: { error: 0, warning: 0, info: 0 },
        diff: null,
      },
      {
        subject: {
          ...subject('run1', `## Objective\n${XSS}`),
          diagnostics: [{ rule: 'R1', severity: 'error', message: 'bad', file: null, line: null, seqs: [] }],
        },
        sections: [{ name: 'Objective', present: true, empty: true }],
        survival: survival(2, []),
        recall: 1,
        severities: { error: 1, warning: 0, info: 0 },
        diff: [
          { op: 'same', text: '## Objective\n' },
          { op: 'removed', text: 'Fix it\n' },
          { op: 'added', text: `${XSS}\n` },
        ],
      },
    ],
  },
};

describe('CompareView', () => {
  it('lays out the subjects side by side with recall, sections, diagnostics and the stale marker', () => {
    const { container } = render(createElement(CompareView, { result: RESULT }));
    const heads = [...container.querySelectorAll('thead th[data-subject]')].map((th) => th.textContent);
    expect(heads).toEqual(['original (one-shot)', 'run1 [mock] #1session changed since']);
    const cells = (label: string) =>
      [...container.querySelectorAll('tbody tr')].find((tr) => tr.querySelector('th')?.textContent === label)?.querySelectorAll('td');
    expect([...(cells('verbatim recall') ?? [])].map((c) => c.textContent)).toEqual(['50%', '100%']);
    expect([...(cells('· paths') ?? [])].map((c) => c.textContent)).toEqual(['1/2 (50%) · 1 lostsrc/b.ts', '2/2 (100%)']);
    expect([...(cells('§ Objective') ?? [])].map((c) => c.textContent)).toEqual(['✓', 'empty']);
    expect(cells('diagnostics')?.[1]?.textContent).toMatch(/1 error · 0 warnings · 0 infoR1 bad/);
  });

  it('renders summaries and diffs as text, never as markup', () => {
    const { container } = render(createElement(CompareView, { result: RESULT }));
    expect(container.querySelector('img')).toBeNull();
    const added = container.querySelector('.cmp-line.added');
    expect(added?.textContent).toBe(`+ ${XSS}\n`);
    expect(container.querySelector('.cmp-line.removed')?.textContent).toBe('− Fix it\n');
    expect(container.querySelector('.cmp-summary')?.textContent).toBe('## Objective\nFix it');
    expect((window as unknown as { __pwned?: number }).__pwned).toBeUndefined();
  });

  it('folds long unchanged stretches of a diff, keeping three lines of context at each end', () => {
    const same = Array.from({ length: 20 }, (_, i) => ({ op: 'same' as const, text: `l${i}` }));
    const shown = foldLines([...same, { op: 'added', text: 'new' }]);
    expect(shown.map((l) => ('count' in l ? `…${l.count}` : l.text))).toEqual(['l0', 'l1', 'l2', '…14', 'l17', 'l18', 'l19', 'new']);
  });
});
