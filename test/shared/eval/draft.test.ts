import { describe, expect, it } from 'vitest';
import { draftFacts } from '../../../src/shared/eval/draft';
import { parseFacts } from '../../../src/shared/eval/facts';
import { scoreRun } from '../../../src/shared/eval/score';
import { call, kept, result, runRecord, src } from './helpers';

const items = [
  src('u1', 1, 'user', 'Fix the pagination bug. You must not change the public API of paginate(). Thanks!'),
  src('a1', 2, 'assistant', "Looking at it. We will use cursor-based pagination instead of offsets. Next, I'll update the tests."),
  call('a2', 3, 'Bash', '{"command":"npm test"}', 'c1'),
  result(
    't1',
    4,
    "FAIL src/lib/paginate.ts\nTypeError: Cannot read properties of undefined (reading 'cursor')\nENOENT on fixtures/pages.json",
    'c1',
  ),
  call(
    'a3',
    5,
    'TodoWrite',
    JSON.stringify({
      todos: [
        { content: 'Write the cursor tests', status: 'completed' },
        { content: 'Update the docs', status: 'pending' },
      ],
    }),
    'c2',
  ),
  call(
    'a4',
    6,
    'TodoWrite',
    JSON.stringify({
      todos: [
        { content: 'Write the cursor tests', status: 'completed' },
        { content: 'Update the README', status: 'in_progress' },
      ],
    }),
    'c3',
  ),
  src('a5', 7, 'assistant', '- [ ] release notes\nTODO: remove the offset fallback'),
  { ...src('m1', 8, 'user', 'You must never see this: it is a system reminder'), meta: true },
];

describe('draftFacts', () => {
  const drafted = draftFacts(items, { target: { compaction: 'c9' }, trace: 'trace.jsonl' });
  const byCat = (c: string) => drafted.facts.filter((f) => f.category === c);

  it('writes a valid facts file of unconfirmed drafts, each citing the item it came from', () => {
    const r = parseFacts(drafted, 'drafts.yaml');
    expect(r.ok).toBe(true);
    const ids = new Set(items.map((i) => i.id));
    for (const f of drafted.facts) {
      expect(f.confirmed).toBe(false);
      expect(f.target).toEqual({ compaction: 'c9' });
      expect(f.source?.items?.length).toBeGreaterThan(0);
      for (const id of f.source?.items ?? []) expect(ids.has(id)).toBe(true);
    }
    expect(drafted.trace).toBe('trace.jsonl');
  });

  it('drafts user constraints from user messages only, not from meta items', () => {
    expect(byCat('constraint').map((f) => f.text)).toEqual(['You must not change the public API of paginate().']);
    expect(byCat('constraint')[0]?.source).toEqual({ items: ['u1'] });
  });

  it('drafts decisions and open work, and takes only the last todo list', () => {
    expect(byCat('decision').map((f) => f.text)).toEqual(['We will use cursor-based pagination instead of offsets.']);
    const open = byCat('open_work').map((f) => f.text);
    expect(open).toEqual(
      expect.arrayContaining([
        "Next, I'll update the tests.",
        'release notes',
        'TODO: remove the offset fallback',
        'Update the README (in_progress)',
      ]),
    );
    expect(open.join(' ')).not.toMatch(/Update the docs|Write the cursor tests/);
  });

  it('drafts anchors (paths, identifiers, errors) as evidence with verbatim matchers', () => {
    const texts = byCat('evidence').map((f) => JSON.stringify(f.match));
    expect(texts).toEqual(expect.arrayContaining([JSON.stringify({ text: 'src/lib/paginate.ts' }), JSON.stringify({ text: 'ENOENT' })]));
    const path = byCat('evidence').find((f) => JSON.stringify(f.match).includes('paginate.ts'));
    expect(path?.source).toEqual({ items: ['t1'] });
  });

  it('caps each kind', () => {
    const many = Array.from({ length: 40 }, (_, i) => src(`u${i}`, i, 'user', `You must keep rule_number_${i} intact.`));
    const d = draftFacts(many, { maxPerKind: 5 });
    expect(d.facts.filter((f) => f.category === 'constraint')).toHaveLength(5);
  });

  it('is never scored while unconfirmed', () => {
    const run = runRecord(items.map(kept), { target: { compaction: 'c9' } });
    const s = scoreRun(run, drafted.facts, { items });
    expect(s.recall.overall).toBeNull();
    expect(s.drafts).toBe(drafted.facts.length);
  });
});
