import { describe, expect, it } from 'vitest';
import { scoreRun } from '../../../src/shared/eval/score';
import { currentClaims } from '../../../src/shared/eval/view-text';
import { checkpoint, diag, facts, kept, made, result, runRecord, src, call } from './helpers';

const source = [
  src('u1', 10, 'user', 'Use JSONL for persistence. Never touch the billing module.'),
  src('a1', 11, 'assistant', 'We decided to keep the v1 API.'),
  call('a2', 12, 'Bash', '{"command":"npm test"}', 'c1'),
  result('t1', 13, '42 tests, 0 failures', 'c1'),
  src('a3', 14, 'assistant', 'The cache lives in /tmp/cache.db for now.'),
  src('a4', 15, 'assistant', 'Moved the cache to ~/.app/cache.db. Next: write the migration.'),
];
const scoring = { items: source.map((s) => ({ id: s.id, seq: s.seq })) };

const FACTS = facts([
  { id: 'c-jsonl', category: 'constraint', text: 'JSONL', match: { text: 'jsonl', ignoreCase: true }, confirmed: true },
  { id: 'c-billing', category: 'constraint', text: 'no billing', match: { regex: 'billing', flags: 'i' }, confirmed: true },
  { id: 'd-v1', category: 'decision', text: 'v1 API', match: 'v1 API', confirmed: true },
  { id: 'o-mig', category: 'open_work', text: 'migration', match: { regex: 'migration' }, confirmed: true },
  {
    id: 'e-tests',
    category: 'evidence',
    text: '42 tests pass',
    match: { regex: '\\b42 tests\\b' },
    source: { seqs: { from: 12, to: 13 } },
    confirmed: true,
  },
  { id: 's-tmp', category: 'stale', text: 'cache in /tmp', match: '/tmp/cache.db', confirmed: true },
  { id: 'draft', category: 'constraint', text: 'never scored', match: 'zzz', confirmed: false },
]);

describe('scoreRun', () => {
  it('recall per category is the share of confirmed facts found in the view; empty categories are null, never 1', () => {
    const view = [
      checkpoint('cp', 'Persist as JSONL. Keep the v1 API. 42 tests pass.', ['u1', 'a1', 'a2', 't1']),
      kept(source[4]!),
      kept(source[5]!),
    ];
    const s = scoreRun(runRecord(view), FACTS, scoring);
    expect(s.failed).toBe(false);
    expect(s.recall).toEqual({ overall: 4 / 5, constraint: 0.5, decision: 1, open_work: 1, evidence: 1 });
    expect(s.facts.constraint).toEqual({ total: 2, ok: ['c-jsonl'], missed: ['c-billing'] });
    expect(s.drafts).toBe(1);
    const onlyConstraints = scoreRun(
      runRecord(view),
      FACTS.filter((f) => f.category === 'constraint'),
      scoring,
    );
    expect(onlyConstraints.recall.decision).toBeNull();
    expect(onlyConstraints.staleRejection).toBeNull();
    expect(onlyConstraints.provenance).toBeNull();
  });

  it('a failed run scores null, not 0, and says it failed', () => {
    for (const run of [runRecord(null), runRecord([kept(source[0]!)], { outcome: 'cancelled' })]) {
      const s = scoreRun(run, FACTS, scoring);
      expect(s.failed).toBe(true);
      expect(s.recall).toEqual({ overall: null, constraint: null, decision: null, open_work: null, evidence: null });
      expect(s.staleRejection).toBeNull();
      expect(s.provenance).toBeNull();
      expect(s.facts.constraint?.total).toBe(2);
    }
  });

  it('a fallback candidate is scored and flagged', () => {
    const s = scoreRun(runRecord([kept(source[0]!)], { outcome: 'fallback' }), FACTS, scoring);
    expect(s).toMatchObject({ failed: false, fallback: true });
  });

  describe('stale facts', () => {
    const staleOnly = FACTS.filter((f) => f.category === 'stale');
    const rejection = (items: Parameters<typeof runRecord>[0]) => scoreRun(runRecord(items), staleOnly, scoring).staleRejection;

    it('count against the strategy when its new text asserts them as current', () => {
      expect(rejection([checkpoint('cp', 'The cache is at /tmp/cache.db.', ['a3'])])).toBe(0);
      expect(rejection([checkpoint('cp', 'The cache is at ~/.app/cache.db.', ['a3'])])).toBe(1);
    });

    it('do not count when the line or its section marks them as past', () => {
      expect(rejection([checkpoint('cp', 'Cache moved; /tmp/cache.db is no longer used.', ['a3'])])).toBe(1);
      expect(rejection([checkpoint('cp', '## Invalidations\n- /tmp/cache.db\n## Files\n- ~/.app/cache.db', ['a3'])])).toBe(1);
      expect(rejection([checkpoint('cp', '## Invalidations\n- old stuff\n## Files\n- /tmp/cache.db', ['a3'])])).toBe(0);
    });

    it('quoted in a kept raw item are history, not the summary asserting them', () => {
      expect(rejection([kept(source[4]!), checkpoint('cp', 'Summary.', ['u1'])])).toBe(1);
      // A pruned copy of a raw item is raw text too.
      expect(
        rejection([
          made('p', 'The cache lives in /tmp/cache.db [… 10 chars omitted]', {
            kind: 'pruned',
            of: 'a3',
            head: 10,
            tail: 0,
            omitted: 10,
            unit: 'chars',
          }),
        ]),
      ).toBe(1);
    });
  });

  describe('provenance of evidence', () => {
    const ev = FACTS.filter((f) => f.category === 'evidence');
    const prov = (items: Parameters<typeof runRecord>[0]) => scoreRun(runRecord(items), ev, scoring);

    it('holds when the match is in a kept item of the source range', () => {
      expect(prov([kept(source[3]!)]).provenance).toBe(1);
    });

    it('holds when a checkpoint covering the range (or with the rest kept) states it', () => {
      expect(prov([checkpoint('cp', '42 tests passed.', ['a2', 't1'])]).provenance).toBe(1);
      expect(prov([checkpoint('cp', '42 tests passed.', ['a2']), kept(source[3]!)]).provenance).toBe(1);
    });

    it('fails when the only match is somewhere the evidence was not seen', () => {
      const s = prov([checkpoint('cp', '42 tests passed.', ['u1', 'a1']), made('m', 'also 42 tests')]);
      expect(s.recall.evidence).toBe(1);
      expect(s.provenance).toBe(0);
      expect(s.provenanceOf).toEqual({ ok: [], without: ['e-tests'] });
    });

    it('is left out, with a problem, when the source range resolves to nothing', () => {
      const lost = facts([{ id: 'e-x', category: 'evidence', text: 'x', match: '42 tests', source: { items: ['gone'] }, confirmed: true }]);
      const s = scoreRun(runRecord([kept(source[3]!)]), lost, scoring);
      expect(s.provenance).toBeNull();
      expect(s.problems).toEqual(['evidence fact "e-x": its source resolves to no item of this source; left out of provenance']);
    });
  });

  it('keeps structural checks apart from the quality scores', () => {
    const s = scoreRun(
      runRecord([kept(source[0]!)], {
        diagnostics: [
          diag('SUMMARY_NOT_SMALLER', 'error'),
          diag('MID_HISTORY_MUTATION', 'warning'),
          diag('MID_HISTORY_MUTATION', 'warning'),
        ],
      }),
      FACTS,
      scoring,
    );
    expect(s.structural).toEqual({ error: 1, warning: 2, info: 0, rules: { SUMMARY_NOT_SMALLER: 1, MID_HISTORY_MUTATION: 2 } });
    expect(s.recall.constraint).toBe(1);
  });
});

describe('currentClaims', () => {
  it('drops stale-marked lines and sections under stale-marked headings', () => {
    expect(currentClaims('keep me\nremoved the 5-line cap\n**Stale observations:**\nold\n## Next\nnew')).toBe('keep me\nnew');
  });
});
