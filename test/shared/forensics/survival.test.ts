import { describe, expect, it } from 'vitest';
import { anchorsOfItems, type ForensicItem } from '../../../src/shared/forensics/anchors';
import type { Anchor } from '../../../src/shared/forensics/categories';
import { matchAnchor, Target } from '../../../src/shared/forensics/match';
import { survivalOf } from '../../../src/shared/forensics/survival';

const a = (category: Anchor['category'], text: string): Anchor => ({ category, text, seq: 1 });

describe('matchAnchor', () => {
  it('tells verbatim from normalised from lost, per category', () => {
    const t = new Target(
      [
        'Edited spotter-4te/mix.exs and ran MIX TEST  --seed 0.',
        'The window is 12000 tokens; parse_config reads it from example.com/docs.',
        'Constraint: the CSV column order is never to change.',
      ].join('\n'),
    );
    expect(matchAnchor(a('paths', '/home/USER/projects/spotter-worktrees/spotter-4te/mix.exs'), t)).toBe('normalised');
    expect(matchAnchor(a('paths', 'lib/other.ex'), t)).toBe('lost');
    expect(matchAnchor(a('commands', 'mix test --seed 0'), t)).toBe('normalised');
    expect(matchAnchor(a('numbers', '12,000 tokens'), t)).toBe('normalised');
    expect(matchAnchor(a('numbers', '12k'), t)).toBe('normalised');
    expect(matchAnchor(a('numbers', '13,000'), t)).toBe('lost');
    expect(matchAnchor(a('identifiers', 'parseConfig'), t)).toBe('normalised');
    expect(matchAnchor(a('identifiers', 'parse_config'), t)).toBe('verbatim');
    expect(matchAnchor(a('urls', 'https://example.com/docs/?page=2'), t)).toBe('normalised');
    expect(matchAnchor(a('constraints', 'Do not change the CSV column order.'), t)).toBe('normalised');
  });
  it('does not count a constraint restated without its negation', () => {
    const t = new Target('We will change the CSV column order next.');
    expect(matchAnchor(a('constraints', 'Do not change the CSV column order.'), t)).toBe('lost');
  });
});

describe('survivalOf', () => {
  it('counts per category and lists the lost anchors with their seqs', () => {
    const items: ForensicItem[] = [
      { seq: 3, role: 'user', prompt: true, blocks: [{ type: 'text', text: 'Fix src/import.ts; never change the CSV column order.' }] },
      {
        seq: 4,
        role: 'assistant',
        prompt: false,
        blocks: [{ type: 'tool_call', id: 'c1', name: 'Bash', input: JSON.stringify({ command: 'npm test -- import' }) }],
      },
    ];
    const anchors = anchorsOfItems(items);
    expect(anchors.map((x) => `${x.category}:${x.text}@${x.seq}`)).toEqual([
      'paths:src/import.ts@3',
      'constraints:Fix src/import.ts; never change the CSV column order.@3',
      'commands:npm test -- import@4',
      'tasks:Fix src/import.ts; never change the CSV column order.@3',
    ]);
    const r = survivalOf(anchors, 'Fixed src/import.ts. Ran npm test -- import.');
    expect(r.survival.paths).toEqual({ total: 1, verbatim: 1, normalised: 0, lost: 0, rate: 1 });
    expect(r.survival.commands.rate).toBe(1);
    expect(r.survival.urls).toEqual({ total: 0, verbatim: 0, normalised: 0, lost: 0, rate: null });
    expect(r.lost.map((x) => [x.category, x.seq])).toEqual([
      ['constraints', 3],
      ['tasks', 3],
    ]);
  });
});
