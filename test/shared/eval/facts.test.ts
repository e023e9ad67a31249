import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { draftCount, factsFingerprint, parseFacts, scoredFacts } from '../../../src/shared/eval/facts';
import { facts } from './helpers';

const file = (list: unknown[]) => ({ format: 'palimpsest-facts', version: 1, facts: list });
const fact = { id: 'f1', category: 'constraint' as const, text: 'Use JSONL.', match: 'JSONL', confirmed: true };

describe('parseFacts', () => {
  it('accepts a facts file and keeps matchers, targets and sources', () => {
    const r = parseFacts(
      file([fact, { ...fact, id: 'e1', category: 'evidence', source: { seqs: { from: 3, to: 5 } }, target: { request: 2 } }]),
      'x.yaml',
    );
    expect(r.ok).toBe(true);
    if (r.ok)
      expect(r.value.facts[1]).toMatchObject({ match: { text: 'JSONL' }, source: { seqs: { from: 3, to: 5 } }, target: { request: 2 } });
  });

  it('names the file and the field of every problem', () => {
    const r = parseFacts(
      file([
        { ...fact, confirmed: undefined },
        { ...fact, id: 'e1', category: 'evidence' },
        { ...fact, id: 'f1' },
        { ...fact, id: 'r1', match: { regex: '(a|b)+' } },
        { ...fact, id: 's1', category: 'opinion' },
        { ...fact, id: 'q1', source: { seqs: { from: 9, to: 2 } } },
      ]),
      'facts/a.yaml',
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const lines = r.error.split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^facts\/a\.yaml: facts\[0\]\.confirmed: /),
        'facts/a.yaml: facts[1].source: an evidence fact needs its source (items or seqs)',
        'facts/a.yaml: facts[2].id: duplicate fact id "f1" (also facts[0])',
        expect.stringMatching(/^facts\/a\.yaml: facts\[3\]\.match\.regex: the alternatives of the group/),
        expect.stringMatching(/^facts\/a\.yaml: facts\[4\]\.category: /),
        'facts/a.yaml: facts[5].source.seqs: seqs.from is after seqs.to',
      ]),
    );
  });

  it('refuses an unknown key or a file of another format', () => {
    expect(parseFacts(file([{ ...fact, confimed: true }]), 'x').ok).toBe(false);
    expect(parseFacts({ format: 'palimpsest-runs', version: 1, facts: [] }, 'x').ok).toBe(false);
  });
});

describe('which facts are scored', () => {
  const list = facts([
    { ...fact, id: 'all' },
    { ...fact, id: 'draft', confirmed: false },
    { ...fact, id: 'mine', target: { compaction: 'c1' } },
    { ...fact, id: 'other', target: { compaction: 'c2' } },
    { ...fact, id: 'req', target: { request: 4 } },
  ]);

  it('only confirmed facts for the target or for every target', () => {
    expect(scoredFacts(list, { compaction: 'c1' }).map((f) => f.id)).toEqual(['all', 'mine']);
    expect(scoredFacts(list, { request: 4 }).map((f) => f.id)).toEqual(['all', 'req']);
    expect(draftCount(list, { compaction: 'c1' })).toBe(1);
  });

  it('fingerprints the confirmed facts only', () => {
    const withDraft = facts([{ ...fact }, { ...fact, id: 'd', confirmed: false }]);
    const without = facts([{ ...fact }]);
    expect(factsFingerprint(withDraft)).toBe(factsFingerprint(without));
    expect(factsFingerprint(facts([{ ...fact, text: 'Use JSON Lines.' }]))).not.toBe(factsFingerprint(without));
    expect(factsFingerprint(without)).toMatch(/^[0-9a-f]{8}$/);
  });
});

describe('the hand-written fixture facts', () => {
  for (const name of ['claude-code-spotter-dov', 'dsh-compaction-recovery']) {
    it(`${name} parses, is all confirmed and says who checked it`, () => {
      const path = `fixtures/eval/facts/${name}.facts.yaml`;
      const r = parseFacts(YAML.parse(readFileSync(path, 'utf8')), path);
      if (!r.ok) throw new Error(r.error);
      expect(r.value.facts.length).toBeGreaterThan(10);
      expect(r.value.facts.every((f) => f.confirmed)).toBe(true);
      expect(r.value.description?.length ?? 0).toBeGreaterThan(100);
      expect(r.value.checkedBy).toBeTruthy();
      expect(r.value.facts.filter((f) => f.category === 'evidence').every((f) => f.source !== undefined)).toBe(true);
    });
  }
});
