import { describe, expect, it } from 'vitest';
import { compare, summaryDiff, type CompareSubject } from '../../../src/shared/compare/compare';
import { sectionsPresent } from '../../../src/shared/compare/sections';
import { pooledRecall, sourceAnchors, survival, textAnchors } from '../../../src/shared/compare/verbatim';

const SOURCE = [
  'Please fix parseConfig in src/config/load.ts; keep the public API of load_settings unchanged.',
  "Running npm test gave: TypeError: Cannot read properties of undefined (reading 'port') at line 4821.",
  'The server listens on 8080 and uses v2.14.3 of the driver; errno ENOENT when /etc/app/conf.yaml is missing.',
].join('\n');
// The source as the one user message it came in (the anchors now come from items, by the categories of compaction forensics).
const ITEMS = [{ id: 'u1', role: 'user' as const, blocks: [{ type: 'text' as const, text: SOURCE }], seq: 1 }];

describe('textAnchors', () => {
  it('finds paths, identifiers, numbers and error strings', () => {
    const a = textAnchors(SOURCE);
    expect(a.paths).toEqual(expect.arrayContaining(['src/config/load.ts', '/etc/app/conf.yaml']));
    expect(a.identifiers).toEqual(expect.arrayContaining(['parseConfig', 'load_settings']));
    expect(a.numbers).toEqual(expect.arrayContaining(['4821', '8080', 'v2.14.3']));
    expect(a.errors).toEqual(expect.arrayContaining(['ENOENT']));
    expect(a.errors.some((e) => e.startsWith('TypeError: Cannot read properties'))).toBe(true);
  });

  it('does not take prose for identifiers', () => {
    expect(textAnchors('The quick brown fox jumps over the lazy dog.').identifiers).toEqual([]);
  });
});

describe('survival', () => {
  it('counts anchors kept verbatim per kind and lists the lost ones', () => {
    const a = sourceAnchors(ITEMS);
    const s = survival(a, 'Fix parseConfig (src/config/load.ts). Server on 8080. ENOENT if config missing.');
    const paths = s.find((x) => x.kind === 'paths');
    expect(paths?.kept).toBe(1);
    expect(paths?.lost).toContain('/etc/app/conf.yaml');
    const nums = s.find((x) => x.kind === 'numbers');
    expect(nums?.kept).toBe(1);
    expect(pooledRecall(s)).toBeGreaterThan(0);
    expect(pooledRecall(s)).toBeLessThan(1);
    expect(pooledRecall(survival(a, SOURCE))).toBe(1);
  });
});

describe('sectionsPresent', () => {
  it('reads Markdown headings and notices empty sections', () => {
    const s = sectionsPresent('## Objective\nFix the bug.\n## Constraints\n\n## Next action\nRun tests.', [
      'Objective',
      'Constraints',
      'Next action',
      'Files',
    ]);
    expect(s).toEqual([
      { name: 'Objective', present: true, empty: false },
      { name: 'Constraints', present: true, empty: true },
      { name: 'Next action', present: true, empty: false },
      { name: 'Files', present: false, empty: false },
    ]);
  });

  it('reads JSON summaries by key', () => {
    const s = sectionsPresent('{"session_intent":"fix","files_touched":[],"decisions":["x"]}', [
      'session_intent',
      'files_touched',
      'next_steps',
    ]);
    expect(s).toEqual([
      { name: 'session_intent', present: true, empty: false },
      { name: 'files_touched', present: true, empty: true },
      { name: 'next_steps', present: false, empty: false },
    ]);
  });
});

describe('compare', () => {
  const subject = (id: string, summary: string | null): CompareSubject => ({
    id,
    label: id,
    outcome: summary ? 'committed' : 'failed',
    summary,
    viewText: summary,
    tokensBefore: 1000,
    tokensAfter: summary ? 100 : null,
    diagnostics: [{ rule: 'X', severity: 'warning', message: 'm', file: null, line: null, seqs: [] }],
    costUsd: null,
    requests: 1,
    latencyMs: 5,
  });

  it('diffs every summary against the first, and scores recall on the source anchors', () => {
    const c = compare(ITEMS, [
      subject('original', 'Fix parseConfig.\nKeep load_settings.\n'),
      subject('r1', 'Fix parseConfig.\nPort 8080.\n'),
      subject('r2', null),
    ]);
    expect(c.rows[0]?.diff).toBeNull();
    expect(c.rows[1]?.diff).toEqual([
      { op: 'same', text: 'Fix parseConfig.\n' },
      { op: 'removed', text: 'Keep load_settings.\n' },
      { op: 'added', text: 'Port 8080.\n' },
    ]);
    expect(c.rows[2]?.recall).toBeNull();
    expect(c.rows[1]?.severities).toEqual({ error: 0, warning: 1, info: 0 });
  });

  it('summaryDiff of equal texts is one unchanged part', () => {
    expect(summaryDiff('a\nb\n', 'a\nb\n')).toEqual([{ op: 'same', text: 'a\nb\n' }]);
  });
});
