import { describe, expect, it } from 'vitest';
import { aggregate, type ScoredRun } from '../../../../src/shared/eval/aggregate';
import { compareToBaseline } from '../../../../src/shared/eval/baseline';
import { checkThresholds } from '../../../../src/shared/eval/thresholds';
import { reportHtml, reportJson, reportMarkdown, type ReportInput } from '../../../../src/main/eval/report';
import { REPORT_FORMAT } from '../../../../src/main/eval/report/json';
import { escapeMarkdown } from '../../../../src/main/eval/report/format';
import { callRecord, scored } from '../../../shared/eval/helpers';

/*
 * Reports are made from content people do not control: labels from specs, paths and fact texts
 * from traces and facts files. These tests feed hostile strings everywhere a string can appear.
 */

const XSS = '<img src=x onerror=alert(1)>';
const SCRIPT = '<script>alert("x")</script>';
const STRATEGY = `one-shot ${SCRIPT}`;
const MODEL = `mock:m|${XSS}`;
const TRACE = `traces/"><svg onload=alert(1)>.jsonl`;

function runs(recall: number): ScoredRun[] {
  return [0, 1]
    .map((repeat) =>
      scored(
        { trace: TRACE, strategy: STRATEGY, model: MODEL, repeat, of: 2 },
        {
          recall: { overall: recall + repeat * 0.1, constraint: recall },
          staleRejection: 1,
          provenance: 0.5,
          facts: { constraint: { total: 2, ok: ['c1'], missed: ['c2'] } },
        },
        { calls: [callRecord(120 + repeat, 0.002)], costUsd: 0.002, mock: true },
      ),
    )
    .concat([scored({ trace: TRACE, strategy: 'truncate', model: 'none' }, { recall: { overall: 0.2 } })]);
}

function input(): ReportInput {
  const current = aggregate(runs(0.3));
  const baseline = aggregate(runs(0.9));
  return {
    spec: { name: `nightly ${SCRIPT}`, file: `evals/${XSS}.yaml`, description: `about ${XSS}` },
    generatedAt: '2026-02-14T12:00:00Z',
    aggregate: current,
    misses: checkThresholds(current, { minRecall: 0.5 }),
    comparison: compareToBaseline(current, baseline),
    baselineFile: `base-${SCRIPT}.jsonl`,
    stopped: `stopped scheduling new cells: ${XSS}`,
    shard: { k: 1, n: 2 },
    notes: [`note ${SCRIPT}`],
    facts: [{ trace: TRACE, id: 'c2', category: 'constraint', text: XSS }],
    factsFiles: [{ trace: TRACE, file: `facts/${XSS}.yaml`, description: `checked by ${SCRIPT}`, confirmed: 2, drafts: 1 }],
  };
}

describe('reportHtml', () => {
  const html = reportHtml(input());

  it('is one self-contained page: no script, no external request, a CSP that forbids both', () => {
    expect(html).not.toMatch(/<script/i);
    // Every "<" from content is escaped, so each tag here is ours: none may load anything.
    expect(html).not.toMatch(/<[a-z][^>]*\s(?:src|href|xlink:href|action)\s*=/i);
    expect(html).not.toMatch(/url\(/i);
    expect(html).not.toMatch(/https?:\/\//i);
    expect(html).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'/);
  });

  it('escapes every string from traces, facts and specs', () => {
    expect(html).not.toContain(XSS);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(html).not.toMatch(/<svg onload/i);
    // No element anywhere carries an event-handler attribute.
    expect(html).not.toMatch(/<[a-z][^>]*\son[a-z]+\s*=/i);
  });

  it('draws the recall bars with whiskers and the cost scatter as inline SVG', () => {
    expect(html.match(/<svg /g)).toHaveLength(2);
    expect(html).toMatch(/<path d="M[^"]+" class="whisker"\/>/);
    expect(html).toMatch(/<circle cx="[\d.]+" cy="[\d.]+" r="6"/);
  });

  it('shows the misses, the regressions, the fact most often missed and why the run stopped', () => {
    expect(html).toContain('recall 35.0 % is below minRecall 50.0 %');
    expect(html).toMatch(/recall fell from 95\.0 % to 35\.0 %/);
    expect(html).toContain('Stopped early.');
    expect(html).toMatch(/Facts most often missed<\/h2>\s*<table>.*&lt;img src=x onerror=alert\(1\)&gt;/s);
  });
});

describe('reportMarkdown', () => {
  const md = reportMarkdown(input());

  it('is a pull-request summary: verdict, one table strategy × model, misses and regressions marked', () => {
    expect(md).toMatch(/^## Eval: nightly .* — ❌ 2 threshold misses, 2 regressions against the baseline, stopped early$/m);
    expect(md).toContain(
      '| Strategy | Model | Recall | Stale rejection | Provenance | Structural errors (worst run) | Failures | Cost / run | p95 latency |',
    );
    const row = md.split('\n').find((l) => l.startsWith('| ❌ one-shot'));
    expect(row).toBeDefined();
    expect(row).toContain('35.0 % ± 7.1 ▼');
    expect(row).toContain('$0.00200');
    expect(md).toContain('### Threshold misses');
    expect(md).toContain('### Against the baseline');
  });

  it('escapes labels and fact texts: no raw HTML and no table-breaking pipe', () => {
    expect(md).not.toContain('<img');
    expect(md).not.toContain('<script');
    expect(md).toContain('mock:m\\|&lt;img src=x onerror=alert\\(1\\)&gt;');
    expect(escapeMarkdown('a|b\nc *d* [e](f)')).toBe('a\\|b c \\*d\\* \\[e\\]\\(f\\)');
  });
});

describe('reportJson', () => {
  it('carries the matrix, misses and baseline under a versioned format, and says it did not pass', () => {
    const j = reportJson(input());
    expect(j).toMatchObject({ format: REPORT_FORMAT, v: 1, passed: false, shard: { k: 1, n: 2 } });
    expect(j.misses.map((m) => m.strategy)).toEqual([STRATEGY, 'truncate']);
    expect(j.baseline?.comparison.regressions.length).toBeGreaterThan(0);
    expect(JSON.parse(JSON.stringify(j))).toEqual(j);
  });

  it('passes when nothing is missed and nothing regressed', () => {
    const agg = aggregate(runs(0.9));
    expect(
      reportJson({ spec: { name: 'n', file: 'f' }, generatedAt: 't', aggregate: agg, misses: [], comparison: compareToBaseline(agg, agg) }),
    ).toMatchObject({ passed: true, verdict: 'all thresholds met' });
  });
});
